//! A server binary's own process: its settings, made first thing in `main`, and how it ends.

/// Transparent huge pages off for this process. Where they are on for every process (the
/// kernel's `always`, Debian's default), each first touch of one of the allocator's 2 MiB-aligned
/// regions brings in a whole 2 MiB page: that tripled the resident memory of a stdio server,
/// which hosts spawn once per session, for no throughput the benchmarks could see.
pub fn small_pages() {
    // A kernel without this prctl keeps its own setting, which only costs memory.
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
}

/// Log lines at `info` and above on stderr, or what `RUST_LOG` says in the `target=level,level`
/// form; a `RUST_LOG` that does not parse is reported (as `binary`'s) and the default kept.
pub fn init_logging(binary: &str) {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let filter = match std::env::var("RUST_LOG") {
        Err(_) => Targets::new().with_default(LevelFilter::INFO),
        Ok(value) => value.parse::<Targets>().unwrap_or_else(|e| {
            eprintln!("{binary}: RUST_LOG={value:?} is not TARGET=LEVEL,LEVEL ({e}); logging at info");
            Targets::new().with_default(LevelFilter::INFO)
        }),
    };
    let _ = tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(filter)
        .try_init();
}

/// A runtime with `threads` workers: one is a current-thread runtime (the lightest), `None`
/// one worker per CPU.
pub fn runtime(threads: Option<usize>) -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = match threads {
        Some(1) => tokio::runtime::Builder::new_current_thread(),
        Some(threads) => {
            let mut builder = tokio::runtime::Builder::new_multi_thread();
            builder.worker_threads(threads);
            builder
        }
        None => tokio::runtime::Builder::new_multi_thread(),
    };
    builder.enable_all().build()
}

/// The workers a server runs its requests on, `asked` or by default: one for the one client
/// of a pipe (the quickest start), one per CPU over HTTP.
pub fn serving_threads(asked: Option<u16>, over_http: bool) -> Option<usize> {
    asked.map(usize::from).or((!over_http).then_some(1))
}

/// The runtime a server binary serves on ([`runtime`]); `None`, logged, when it cannot start.
pub fn serving_runtime(threads: Option<usize>) -> Option<tokio::runtime::Runtime> {
    match runtime(threads) {
        Ok(runtime) => Some(runtime),
        Err(e) => {
            tracing::error!(error = %e, "cannot start the async runtime");
            None
        }
    }
}

/// Ends a serving `runtime` without waiting for the thread that may still sit in `read(2)` on
/// stdin, and turns how serving ended into the exit status: 0, or 1 with the error logged.
pub fn finish(runtime: tokio::runtime::Runtime, outcome: std::io::Result<()>) -> std::process::ExitCode {
    runtime.shutdown_background();
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "serving failed");
            std::process::ExitCode::FAILURE
        }
    }
}
