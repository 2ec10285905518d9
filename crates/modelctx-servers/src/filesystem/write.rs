//! Changing files: writing, editing, creating directories, moving. Each works on an
//! [`Entry`] — a directory opened inside a root plus one plain name — so the `*at` system
//! calls it makes cannot leave that directory. A file is replaced by writing a temporary
//! file beside it and renaming it over the name: a symbolic link or hard link at the name is
//! replaced, never written through.

use std::fs::File;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags};
use rustix::io::Errno;
use schemars::JsonSchema;
use serde::Deserialize;

use super::MAX_EDIT_BYTES;
use super::diff::unified;
use super::error::FsError;
use super::resolve::{Entry, Fs};
use super::roots::shorten;

/// Distinguishes the temporary files of concurrent writes in one process.
static TEMPORARY: AtomicU64 = AtomicU64::new(0);

/// The mode a temporary file is created with. Replacing a file, it is the owner's alone
/// until the file's own mode is set: the new contents of a file others may not read are
/// never readable by them, not even for the moment of the write (the temporary file used to
/// be 0644 whatever the file's mode). A new file gets what any new file gets (0666 less the
/// umask).
fn temporary_mode(existing: Option<u32>) -> u32 {
    match existing {
        Some(_) => 0o600,
        None => 0o666,
    }
}

/// Which contents a file holds, as far as its metadata tells: the same file (inode), size
/// and modification time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Version {
    inode: u64,
    size: u64,
    modified: (i64, i64),
}

impl Version {
    fn of_metadata(metadata: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        Self {
            inode: metadata.ino(),
            size: metadata.size(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
        }
    }

    fn of_stat(stat: &rustix::fs::Stat) -> Self {
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)] // the field types vary by target
        Self {
            inode: stat.st_ino as u64,
            size: stat.st_size as u64,
            modified: (stat.st_mtime as i64, stat.st_mtime_nsec as i64),
        }
    }
}

/// Replaces the file at `entry` with `bytes`, keeping an existing file's permissions. A
/// symbolic link, a directory or anything but a regular file at the name is refused. With
/// `expected`, the file must still be that version when the new one takes its place (an
/// edit of what was read): a change made meanwhile is refused, not overwritten.
fn replace_file(entry: &Entry, raw: &str, bytes: &[u8], expected: Option<Version>) -> Result<(), FsError> {
    let raw = shorten(raw);
    let existing = match rustix::fs::statat(&entry.dir, &entry.name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => match FileType::from_raw_mode(stat.st_mode) {
            FileType::Symlink => {
                return Err(FsError::Refused(format!(
                    "{raw} is a symbolic link; refusing to write through it (write to the path it points to)"
                )));
            }
            FileType::Directory => return Err(FsError::Refused(format!("{raw} is a directory"))),
            FileType::RegularFile if stat.st_mode & 0o222 == 0 => {
                return Err(FsError::Refused(format!("{raw} is read-only")));
            }
            FileType::RegularFile => Some(stat.st_mode & 0o7777),
            _ => return Err(FsError::Refused(format!("{raw} is not a regular file"))),
        },
        Err(Errno::NOENT) => None,
        Err(errno) => return Err(FsError::io(&raw, "write", errno)),
    };
    let temporary =
        format!(".modelctx-{}-{}.tmp", std::process::id(), TEMPORARY.fetch_add(1, Ordering::Relaxed));
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(
        &entry.dir,
        temporary.as_str(),
        flags,
        Mode::from_raw_mode(temporary_mode(existing)),
    )
    .map_err(|errno| FsError::io(&raw, "write", errno))?;
    let mut file = File::from(fd);
    let written = file
        .write_all(bytes)
        .and_then(|()| match existing {
            Some(mode) => rustix::fs::fchmod(&file, Mode::from_raw_mode(mode)).map_err(Into::into),
            None => Ok(()),
        })
        .and_then(|()| file.sync_all())
        .map_err(|e| FsError::std_io(&raw, "write", &e))
        .and_then(|()| match expected {
            Some(expected) => {
                let now = rustix::fs::statat(&entry.dir, &entry.name, AtFlags::SYMLINK_NOFOLLOW)
                    .map_err(|errno| FsError::io(&raw, "write", errno))?;
                if Version::of_stat(&now) == expected {
                    Ok(())
                } else {
                    Err(FsError::Refused(format!(
                        "{raw} changed while it was being edited; nothing was written: read it again and redo the edits"
                    )))
                }
            }
            None => Ok(()),
        })
        .and_then(|()| {
            rustix::fs::renameat(&entry.dir, temporary.as_str(), &entry.dir, &entry.name)
                .map_err(|errno| FsError::io(&raw, "write", errno))
        });
    if written.is_err() {
        // Best effort: the temporary file is ours and useless now.
        let _ = rustix::fs::unlinkat(&entry.dir, temporary.as_str(), AtFlags::empty());
    }
    written
}

/// `write_file`: creates or replaces the file `raw` with `content`.
pub fn write(fs: &Fs, raw: &str, content: &str) -> Result<String, FsError> {
    let entry = fs.entry(raw)?;
    replace_file(&entry, raw, content.as_bytes(), None)?;
    Ok(format!("Wrote {} bytes to {}", content.len(), entry.path.display()))
}

/// One replacement of `edit_file`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Edit {
    /// The text to replace: it must occur exactly once in the file (after the edits
    /// before it), whitespace and line breaks included.
    pub old_text: String,
    /// The text to put in its place.
    pub new_text: String,
}

/// Applies `edits` in order; each must match exactly once. In a file with CRLF line ends,
/// an edit written with LF ends matches their CRLF form.
fn apply(raw: &str, mut text: String, edits: &[Edit]) -> Result<String, FsError> {
    let total = edits.len();
    for (index, edit) in edits.iter().enumerate() {
        let n = index + 1;
        if edit.old_text.is_empty() {
            return Err(FsError::Refused(format!("edit {n} of {total}: oldText is empty")));
        }
        let (old, new) = if text.contains("\r\n") && !edit.old_text.contains('\r') {
            (edit.old_text.replace('\n', "\r\n"), edit.new_text.replace('\n', "\r\n"))
        } else {
            (edit.old_text.clone(), edit.new_text.clone())
        };
        let mut places = text.match_indices(&old).map(|(at, _)| at);
        match (places.next(), places.count()) {
            (None, _) => {
                return Err(FsError::Refused(format!(
                    "edit {n} of {total}: its oldText does not occur in {}{}; copy it exactly from the \
                     file, whitespace included",
                    shorten(raw),
                    if n > 1 { " (after the edits before it)" } else { "" }
                )));
            }
            (Some(at), 0) => text.replace_range(at..at + old.len(), &new),
            (Some(_), more) => {
                return Err(FsError::Refused(format!(
                    "edit {n} of {total}: its oldText occurs {} times in {}; include more of the \
                     surrounding text so that it occurs exactly once",
                    more + 1,
                    shorten(raw)
                )));
            }
        }
    }
    Ok(text)
}

/// `edit_file`: applies `edits` to the text file `raw` (all or none) and returns a unified
/// diff; with `dry_run` nothing is written. A symbolic link is refused, not followed.
pub fn edit(fs: &Fs, raw: &str, edits: &[Edit], dry_run: bool) -> Result<String, FsError> {
    if edits.is_empty() {
        return Err(FsError::Refused("edits must hold at least one {oldText, newText} edit".into()));
    }
    let entry = fs.entry(raw)?;
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    let fd =
        rustix::fs::openat(&entry.dir, &entry.name, flags, Mode::empty()).map_err(|errno| match errno {
            Errno::LOOP => FsError::Refused(format!(
                "{} is a symbolic link; refusing to edit through it (edit the path it points to)",
                shorten(raw)
            )),
            errno => FsError::io(&shorten(raw), "read", errno),
        })?;
    let file = File::from(fd);
    let metadata = file.metadata().map_err(|e| FsError::std_io(&shorten(raw), "read", &e))?;
    if !metadata.is_file() {
        return Err(FsError::Refused(format!("{} is not a regular file", shorten(raw))));
    }
    if metadata.len() > MAX_EDIT_BYTES {
        return Err(FsError::Refused(format!(
            "{} is {} bytes; edit_file works on files of at most {MAX_EDIT_BYTES} bytes",
            shorten(raw),
            metadata.len()
        )));
    }
    let mut old = String::new();
    (&file).take(MAX_EDIT_BYTES).read_to_string(&mut old).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => {
            FsError::Refused(format!("{} is not UTF-8 text; edit_file edits text only", shorten(raw)))
        }
        _ => FsError::std_io(&shorten(raw), "read", &e),
    })?;
    let new = apply(raw, old.clone(), edits)?;
    let display = entry.path.display().to_string();
    let diff = unified(&display, &old, &new);
    if !dry_run && new != old {
        replace_file(&entry, raw, new.as_bytes(), Some(Version::of_metadata(&metadata)))?;
    }
    let verdict = match (dry_run, diff.is_empty()) {
        (true, true) => "Dry run: the edits change nothing; nothing was written.".to_owned(),
        (true, false) => "Dry run: nothing was written. The edits would change:".to_owned(),
        (false, true) => format!("The edits change nothing; {display} was left as it was."),
        (false, false) => format!("Edited {display}:"),
    };
    Ok(if diff.is_empty() { verdict } else { format!("{verdict}\n```diff\n{diff}```") })
}

/// `create_directory`: creates `raw` and its missing parents.
pub fn create_directory(fs: &Fs, raw: &str) -> Result<String, FsError> {
    Ok(if fs.create_dir_all(raw)? {
        format!("Created directory {}", shorten(raw))
    } else {
        format!("Directory {} already exists", shorten(raw))
    })
}

/// `move_file`: moves or renames `source` to `destination`, which must not exist (checked
/// atomically with `RENAME_NOREPLACE`).
pub fn move_entry(fs: &Fs, source: &str, destination: &str) -> Result<String, FsError> {
    let from = fs.entry(source)?;
    let to = fs.entry(destination)?;
    rustix::fs::renameat_with(&from.dir, &from.name, &to.dir, &to.name, RenameFlags::NOREPLACE).map_err(
        |errno| match errno {
            Errno::EXIST | Errno::NOTEMPTY => FsError::Refused(format!(
                "destination {} already exists; move_file never replaces anything",
                shorten(destination)
            )),
            Errno::NOENT => FsError::io(&shorten(source), "move", errno),
            errno => FsError::io(&format!("{} to {}", shorten(source), shorten(destination)), "move", errno),
        },
    )?;
    Ok(format!("Moved {} to {}", from.path.display(), to.path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(old: &str, new: &str) -> Edit {
        Edit { old_text: old.into(), new_text: new.into() }
    }

    #[test]
    fn edits_apply_in_order_and_must_match_once() {
        let text = "alpha\nbeta\ngamma\n".to_owned();
        let done = apply("f", text.clone(), &[edit("beta", "BETA"), edit("BETA\ng", "B\nG")]).unwrap();
        assert_eq!(done, "alpha\nB\nGamma\n");
        let missing = apply("f", text.clone(), &[edit("beta", "x"), edit("delta", "y")]).unwrap_err();
        assert!(missing.to_string().starts_with("edit 2 of 2: its oldText does not occur in f"), "{missing}");
        let twice = apply("f", text, &[edit("a\n", "x")]).unwrap_err();
        assert!(twice.to_string().contains("edit 1 of 1: its oldText occurs 3 times"), "{twice}");
    }

    #[test]
    fn lf_edits_match_crlf_files() {
        let done = apply("f", "a\r\nb\r\n".into(), &[edit("a\nb", "c\nd")]).unwrap();
        assert_eq!(done, "c\r\nd\r\n");
    }

    /// Replacing a file others may not read keeps it theirs alone throughout: its temporary
    /// file starts as the owner's only, and the file keeps its mode.
    #[test]
    fn replacing_a_private_file_never_opens_it_to_others() {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(temporary_mode(Some(0o600)), 0o600);
        assert_eq!(temporary_mode(Some(0o644)), 0o600, "set to the file's own mode after writing");
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret.txt");
        std::fs::write(&secret, "old").unwrap();
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
        let fs = crate::filesystem::resolve::Fs::beneath(dir.path());
        write(&fs, secret.to_str().unwrap(), "new").unwrap();
        assert_eq!(std::fs::read_to_string(&secret).unwrap(), "new");
        assert_eq!(std::fs::metadata(&secret).unwrap().permissions().mode() & 0o777, 0o600);
    }

    /// A change made to a file while it is being edited is refused, not overwritten (the edit
    /// used to write its result over whatever the file held by then).
    #[test]
    fn a_change_made_during_an_edit_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, "one").unwrap();
        let fs = crate::filesystem::resolve::Fs::beneath(dir.path());
        let raw = path.to_str().unwrap();
        let read = Version::of_metadata(&std::fs::metadata(&path).unwrap());
        std::fs::write(&path, "someone else's change").unwrap();
        let entry = fs.entry(raw).unwrap();
        let refused = replace_file(&entry, raw, b"the edit", Some(read)).unwrap_err();
        assert!(refused.to_string().contains("changed while it was being edited"), "{refused}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "someone else's change");
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
        // Unchanged since it was read, it is replaced.
        let now = Version::of_metadata(&std::fs::metadata(&path).unwrap());
        replace_file(&entry, raw, b"the edit", Some(now)).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "the edit");
    }
}
