//! Settings of a server's own process, made first thing in `main`.

/// Transparent huge pages off for this process. Where they are on for every process (the
/// kernel's `always`, Debian's default), each first touch of one of the allocator's 2 MiB-aligned
/// regions brings in a whole 2 MiB page: that tripled the resident memory of a stdio server,
/// which hosts spawn once per session, for no throughput the benchmarks could see.
pub fn small_pages() {
    // A kernel without this prctl keeps its own setting, which only costs memory.
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
}
