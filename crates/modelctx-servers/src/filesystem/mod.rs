//! `filesystem`: a reference server that reads and (unless read-only) changes files inside
//! the directories it is given, with the tool names and arguments of the official
//! `@modelcontextprotocol/server-filesystem`.
//!
//! # Confinement
//!
//! Every path a tool receives must lead to something inside an allowed root:
//!
//! - Roots are canonicalized and opened (`O_PATH`) at startup; a missing root is a startup
//!   error. A relative path is taken relative to the first root. Paths are placed under a
//!   root by comparing path components, never string prefixes, so `--root /data` does not
//!   admit `/data-evil`.
//! - Every open is done by the kernel: `openat2(2)` relative to the root's descriptor with
//!   `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`. A `..` that climbs out, an absolute symbolic
//!   link, or a relative one that leads out fails at the open itself, so there is no window
//!   between a check and the use. A path that a link leads out of its root is looked up once
//!   more by its canonical path: if that lies in another root (a link from one root into
//!   another) it is opened beneath that root with `RESOLVE_NO_SYMLINKS` as well, so nothing
//!   can be swapped in between; otherwise it is refused with the same message whether or not
//!   the target exists.
//! - Creating, replacing and moving work on a parent directory opened that way plus one
//!   plain name, with the `*at` system calls: `openat(O_CREAT | O_EXCL | O_NOFOLLOW)` for a
//!   temporary file, `renameat` over the name (a symbolic link or a hard link at the name is
//!   replaced, never written through), `mkdirat`, and `renameat2(RENAME_NOREPLACE)` for
//!   `move_file`. Writing or editing a path that is a symbolic link is refused.
//! - Directory walks never follow symbolic links: each subdirectory is opened by name from
//!   its parent's descriptor with `O_NOFOLLOW`.
//! - Reads open with `O_NONBLOCK` and accept only regular files, so a FIFO or a device in a
//!   root cannot hang the server.
//!
//! What remains: a hard link inside a root to a file outside it (which only someone who can
//! write both places can make) is read like any other file, since the kernel cannot tell;
//! writes replace such a name rather than changing the shared file. Mount points inside a
//! root are crossed. A root renamed after startup is still served through its descriptor,
//! but paths name it by its old path. The server needs Linux 5.6 or newer (`openat2`); it
//! refuses to start without it.
//!
//! # Limits
//!
//! Every result is bounded so that it fits in one message: see the `MAX_*` constants.

mod diff;
mod error;
mod glob;
mod info;
mod read;
mod resolve;
mod roots;
mod tools;
mod walk;
mod write;

use std::path::PathBuf;
use std::sync::Arc;

use modelctx::protocol::types::Implementation;
use modelctx::server::{Server, ServerBuilder};

use resolve::Fs;
use roots::Roots;

/// The most bytes one read returns (a file, a range, or all files of
/// `read_multiple_files` together). Even as JSON-escaped text it stays under the 4 MiB
/// default message limit.
pub const MAX_READ_BYTES: usize = 512 * 1024;

/// The largest file `edit_file` edits.
pub const MAX_EDIT_BYTES: u64 = 2 * 1024 * 1024;

/// The most entries `list_directory` returns.
pub const MAX_LIST_ENTRIES: usize = 10_000;

/// The most entries `directory_tree` returns.
pub const MAX_TREE_ENTRIES: usize = 2_000;

/// How many levels `directory_tree` descends unless told otherwise.
pub const DEFAULT_TREE_DEPTH: usize = 8;

/// The most levels a walk (`directory_tree`, `search_files`) descends.
pub const MAX_DEPTH: usize = 32;

/// The most matches `search_files` returns.
pub const MAX_SEARCH_RESULTS: usize = 1_000;

/// The most directory entries one walk looks at.
pub const MAX_WALK_ENTRIES: usize = 100_000;

/// How the filesystem server is configured.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The allowed directories.
    pub roots: Vec<PathBuf>,
    /// Offer only the tools that read: the others are not registered at all.
    pub read_only: bool,
}

/// The `filesystem` server, not yet built; an error says why a root cannot be served.
pub fn builder(options: &Options) -> Result<ServerBuilder, String> {
    let roots = Roots::open(&options.roots)?;
    let described = roots.describe();
    let mode = if options.read_only { "read-only" } else { "read-write" };
    let builder = Server::with_info(Implementation {
        title: Some("modelctx filesystem".into()),
        description: Some("Reads and writes files inside the allowed directories".into()),
        ..Implementation::new("modelctx-filesystem", env!("CARGO_PKG_VERSION"))
    })
    .instructions(format!(
        "Files inside these directories are {mode}: {described}. Relative paths are taken \
         relative to the first. Call list_allowed_directories to see them again."
    ))
    .state(Arc::new(Fs { roots }));
    let builder = tools::register_reading(builder);
    Ok(if options.read_only { builder } else { tools::register_changing(builder) })
}
