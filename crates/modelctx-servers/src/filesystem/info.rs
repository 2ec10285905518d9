//! `get_file_info`: what `stat` says about a path, for people and for programs.

use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::time::{SystemTime, UNIX_EPOCH};

use schemars::JsonSchema;
use serde::Serialize;

use super::error::FsError;
use super::resolve::{Fs, How};
use super::roots::shorten;
use super::walk::Kind;

/// `get_file_info` output. Symbolic links that stay inside the roots are followed.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileInfo {
    /// Where it is.
    pub path: String,
    /// What it is.
    #[serde(rename = "type")]
    pub kind: Kind,
    /// Its size in bytes.
    pub size: u64,
    /// When it was created (RFC 3339, UTC), where the file system records it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    /// When its contents last changed (RFC 3339, UTC).
    pub modified: String,
    /// When it was last read (RFC 3339, UTC).
    pub accessed: String,
    /// Its permission bits in octal, such as `644`.
    pub permissions: String,
    /// Its owner's user id.
    pub uid: u32,
    /// Its group id.
    pub gid: u32,
}

/// Stats `raw` (inside the roots).
pub fn info(fs: &Fs, raw: &str) -> Result<FileInfo, FsError> {
    let opened = fs.open(raw, How::Any)?;
    let metadata =
        File::from(opened.fd).metadata().map_err(|e| FsError::std_io(&shorten(raw), "inspect", &e))?;
    let file_type = metadata.file_type();
    let kind = if file_type.is_dir() {
        Kind::Directory
    } else if file_type.is_file() {
        Kind::File
    } else if file_type.is_symlink() {
        Kind::Symlink
    } else {
        Kind::Other
    };
    let time = |t: std::io::Result<SystemTime>| t.ok().map(rfc3339);
    Ok(FileInfo {
        path: opened.path.display().to_string(),
        kind,
        size: metadata.len(),
        created: time(metadata.created()),
        modified: time(metadata.modified()).unwrap_or_default(),
        accessed: time(metadata.accessed()).unwrap_or_default(),
        permissions: format!("{:o}", metadata.mode() & 0o7777),
        uid: metadata.uid(),
        gid: metadata.gid(),
    })
}

/// The text form: one `key: value` line each.
pub fn describe(info: &FileInfo) -> String {
    let kind = match info.kind {
        Kind::File => "file",
        Kind::Directory => "directory",
        Kind::Symlink => "symlink",
        Kind::Other => "other",
    };
    let mut lines =
        vec![format!("path: {}", info.path), format!("type: {kind}"), format!("size: {}", info.size)];
    if let Some(created) = &info.created {
        lines.push(format!("created: {created}"));
    }
    lines.push(format!("modified: {}", info.modified));
    lines.push(format!("accessed: {}", info.accessed));
    lines.push(format!("permissions: {}", info.permissions));
    lines.push(format!("uid: {}", info.uid));
    lines.push(format!("gid: {}", info.gid));
    lines.join("\n")
}

/// `time` as RFC 3339 in UTC, to the second (`1970-01-01T00:00:00Z`).
fn rfc3339(time: SystemTime) -> String {
    let seconds = match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
    };
    match jiff::Timestamp::from_second(seconds) {
        Ok(stamp) => stamp.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        Err(_) => "(out of range)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_secs(951_782_400)), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_secs(1_767_225_599)), "2025-12-31T23:59:59Z");
    }
}
