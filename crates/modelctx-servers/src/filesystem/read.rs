//! Reading files: text with line or byte ranges, media as base64, several files at once.
//! Every read is bounded by [`MAX_READ_BYTES`].

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use base64::Engine;
use modelctx::protocol::model::CallToolResult;
use modelctx::protocol::types::{
    AudioContent, AudioType, BlobResourceContents, ContentBlock, EmbeddedResource, EmbeddedResourceType,
    ImageContent, ImageType, TextOrBlob,
};
use schemars::JsonSchema;
use serde::Serialize;

use super::MAX_READ_BYTES;
use super::error::FsError;
use super::resolve::{Fs, How};
use super::roots::shorten;

/// The most files `read_multiple_files` reads in one call.
pub const MAX_MULTIPLE_FILES: usize = 100;

/// A regular file opened for reading, with its size and where it is.
pub struct Readable {
    /// The file.
    pub file: File,
    /// Its size in bytes when opened.
    pub size: u64,
    /// Where it is.
    pub path: PathBuf,
}

/// Opens `raw` inside the roots; it must be a regular file.
pub fn open_regular(fs: &Fs, raw: &str) -> Result<Readable, FsError> {
    let opened = fs.open(raw, How::File)?;
    let file = File::from(opened.fd);
    let metadata = file.metadata().map_err(|e| FsError::std_io(&shorten(raw), "read", &e))?;
    if metadata.is_dir() {
        return Err(FsError::Refused(format!(
            "{} is a directory; use list_directory or directory_tree",
            shorten(raw)
        )));
    }
    if !metadata.is_file() {
        return Err(FsError::Refused(format!("{} is not a regular file", shorten(raw))));
    }
    Ok(Readable { file, size: metadata.len(), path: opened.path })
}

/// Reads up to `length` bytes at `offset` (fewer at the end of the file).
fn read_at(readable: &Readable, raw: &str, offset: u64, length: u64) -> Result<Vec<u8>, FsError> {
    let mut buffer = vec![0; usize::try_from(length).unwrap_or(usize::MAX).min(MAX_READ_BYTES + 1)];
    let mut filled = 0;
    while filled < buffer.len() {
        match readable.file.read_at(&mut buffer[filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(FsError::std_io(&shorten(raw), "read", &e)),
        }
    }
    buffer.truncate(filled);
    Ok(buffer)
}

/// The byte range `offset`/`length` of a file of `size` bytes, checked against the limit.
fn byte_range(raw: &str, size: u64, offset: Option<u64>, length: Option<u64>) -> Result<(u64, u64), FsError> {
    let offset = offset.unwrap_or(0);
    if offset > size {
        return Err(FsError::Refused(format!(
            "offset {offset} is past the end of {} ({size} bytes)",
            shorten(raw)
        )));
    }
    let available = size - offset;
    let limit = MAX_READ_BYTES as u64;
    match length {
        Some(length) if length > limit => Err(FsError::Refused(format!(
            "length {length} is more than the {limit} bytes that can be read at once"
        ))),
        Some(length) => Ok((offset, length.min(available))),
        None if available > limit => Err(FsError::Refused(format!(
            "{} has {available} bytes from offset {offset}; at most {limit} can be read at once: \
             pass offset and length (or head or tail for text) to read it in parts",
            shorten(raw)
        ))),
        None => Ok((offset, available)),
    }
}

/// `read_text_file`: how much of the file to read.
#[derive(Clone, Copy, Debug, Default)]
pub struct TextRange {
    /// Only the first N lines.
    pub head: Option<u64>,
    /// Only the last N lines.
    pub tail: Option<u64>,
    /// Start at this byte.
    pub offset: Option<u64>,
    /// Read this many bytes.
    pub length: Option<u64>,
}

/// Reads `raw` as UTF-8 text, whole or in the range asked.
pub fn read_text(fs: &Fs, raw: &str, range: TextRange) -> Result<String, FsError> {
    let lines = range.head.is_some() || range.tail.is_some();
    if range.head.is_some() && range.tail.is_some() {
        return Err(FsError::Refused("give head or tail, not both".into()));
    }
    if lines && (range.offset.is_some() || range.length.is_some()) {
        return Err(FsError::Refused(
            "head and tail count lines, offset and length count bytes: give one kind of range".into(),
        ));
    }
    text_of(&open_regular(fs, raw)?, raw, range)
}

/// The text of the file `readable`, opened as `raw`, in the range asked: at most the size it
/// had when it was opened, however it grows meanwhile.
fn text_of(readable: &Readable, raw: &str, range: TextRange) -> Result<String, FsError> {
    let limit = MAX_READ_BYTES as u64;
    let window = readable.size.min(limit + 1);
    let bytes = if let Some(count) = range.head {
        let bytes = read_at(readable, raw, 0, window)?;
        first_lines(&bytes, count, bytes.len() as u64 >= readable.size)
            .ok_or_else(|| too_many_lines(raw, "first", count))?
            .to_vec()
    } else if let Some(count) = range.tail {
        let bytes = read_at(readable, raw, readable.size - window, window)?;
        last_lines(&bytes, count, window >= readable.size)
            .ok_or_else(|| too_many_lines(raw, "last", count))?
            .to_vec()
    } else {
        let (offset, length) = byte_range(raw, readable.size, range.offset, range.length)?;
        let bytes = read_at(readable, raw, offset, length)?;
        if range.offset.is_some() || range.length.is_some() {
            trim_partial_characters(&bytes).to_vec()
        } else {
            bytes
        }
    };
    String::from_utf8(bytes).map_err(|e| {
        FsError::Refused(format!(
            "{} is not UTF-8 text (invalid byte at {} of the part read); read it with read_media_file",
            shorten(raw),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The error for head or tail lines that do not fit in one read.
fn too_many_lines(raw: &str, which: &str, count: u64) -> FsError {
    FsError::Refused(format!(
        "the {which} {count} lines of {} are more than the {MAX_READ_BYTES} bytes that can be read at once; \
         ask for fewer lines or use offset and length",
        shorten(raw)
    ))
}

/// The first `count` lines of `bytes` (without the last line's newline); `None` when they
/// do not fit and `whole` says `bytes` is not the whole file.
fn first_lines(bytes: &[u8], count: u64, whole: bool) -> Option<&[u8]> {
    if count == 0 {
        return Some(&[]);
    }
    let mut seen = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            seen += 1;
            if seen == count {
                return Some(&bytes[..i]);
            }
        }
    }
    (whole && bytes.len() <= MAX_READ_BYTES).then_some(bytes)
}

/// The last `count` lines of `bytes` (a final newline does not start a line); `None` when
/// they do not fit and `whole` says `bytes` is not the whole file.
fn last_lines(bytes: &[u8], count: u64, whole: bool) -> Option<&[u8]> {
    if count == 0 {
        return Some(&[]);
    }
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let mut seen = 0;
    for (i, &b) in body.iter().enumerate().rev() {
        if b == b'\n' {
            seen += 1;
            if seen == count {
                let lines = &body[i + 1..];
                return (lines.len() <= MAX_READ_BYTES).then_some(lines);
            }
        }
    }
    (whole && body.len() <= MAX_READ_BYTES).then_some(body)
}

/// `bytes` without a character cut in two at either end of a byte range.
fn trim_partial_characters(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().take(3).take_while(|&&b| b & 0xC0 == 0x80).count();
    let bytes = &bytes[start..];
    match std::str::from_utf8(bytes) {
        Err(e) if e.error_len().is_none() => &bytes[..e.valid_up_to()],
        _ => bytes,
    }
}

/// The MIME type of a file, by its extension.
pub fn mime_type(path: &Path) -> &'static str {
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    match extension.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "bmp" => "image/bmp",
        "svg" => "image/svg+xml",
        "ico" => "image/x-icon",
        "tif" | "tiff" => "image/tiff",
        "avif" => "image/avif",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "ogg" | "oga" => "audio/ogg",
        "opus" => "audio/opus",
        "flac" => "audio/flac",
        "m4a" => "audio/mp4",
        "aac" => "audio/aac",
        "weba" => "audio/webm",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" => "application/gzip",
        "json" => "application/json",
        "txt" | "md" => "text/plain",
        _ => "application/octet-stream",
    }
}

/// A `file://` URI for `path`, with every byte outside `A-Z a-z 0-9 - . _ ~ /`
/// percent-encoded.
pub fn file_uri(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut uri = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// Reads `raw` (or the byte range asked) as base64: an image or audio block by its MIME
/// type, otherwise an embedded blob resource; a text block first says what was read.
pub fn read_media(
    fs: &Fs,
    raw: &str,
    offset: Option<u64>,
    length: Option<u64>,
) -> Result<Vec<ContentBlock>, FsError> {
    let readable = open_regular(fs, raw)?;
    let (offset, length) = byte_range(raw, readable.size, offset, length)?;
    let bytes = read_at(&readable, raw, offset, length)?;
    let mime = mime_type(&readable.path);
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let summary = format!(
        "{} ({mime}): bytes {offset}..{} of {}",
        readable.path.display(),
        offset + bytes.len() as u64,
        readable.size
    );
    let media = if mime.starts_with("image/") {
        ContentBlock::Image(ImageContent {
            kind: ImageType,
            data,
            mime_type: mime.into(),
            annotations: None,
            meta: None,
        })
    } else if mime.starts_with("audio/") {
        ContentBlock::Audio(AudioContent {
            kind: AudioType,
            data,
            mime_type: mime.into(),
            annotations: None,
            meta: None,
        })
    } else {
        ContentBlock::Resource(EmbeddedResource {
            kind: EmbeddedResourceType,
            resource: TextOrBlob::Blob(BlobResourceContents {
                uri: file_uri(&readable.path),
                mime_type: Some(mime.into()),
                blob: data,
                meta: None,
            }),
            annotations: None,
            meta: None,
        })
    };
    Ok(vec![ContentBlock::text(summary), media])
}

/// One file of `read_multiple_files`.
#[derive(Serialize, JsonSchema)]
pub struct FileText {
    /// The path as given.
    pub path: String,
    /// Its text, when it could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Why it could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `read_multiple_files` output.
#[derive(Serialize, JsonSchema)]
pub struct FileTexts {
    /// The files, in the order asked.
    pub files: Vec<FileText>,
}

/// Reads several whole text files; one that fails does not stop the others. Together they
/// may hold at most [`MAX_READ_BYTES`]; the result is an error only when every file failed.
pub fn read_multiple(fs: &Fs, paths: &[String]) -> Result<CallToolResult, FsError> {
    if paths.is_empty() || paths.len() > MAX_MULTIPLE_FILES {
        return Err(FsError::Refused(format!(
            "paths must name 1 to {MAX_MULTIPLE_FILES} files; it names {}",
            paths.len()
        )));
    }
    let mut budget = MAX_READ_BYTES as u64;
    let mut files = Vec::new();
    for raw in paths {
        let read = open_regular(fs, raw).and_then(|readable| {
            if readable.size > budget {
                return Err(FsError::Refused(format!(
                    "skipped: {} is {} bytes and only {budget} of the {MAX_READ_BYTES} bytes a call may read are left",
                    shorten(raw),
                    readable.size
                )));
            }
            // Read from the same open file the size was checked on: a file that grows between
            // the two cannot take more than the budget (nor make it underflow).
            let text = text_of(&readable, raw, TextRange::default())?;
            budget = budget.saturating_sub(text.len() as u64);
            Ok(text)
        });
        files.push(match read {
            Ok(text) => FileText { path: raw.clone(), content: Some(text), error: None },
            Err(e) => FileText { path: raw.clone(), content: None, error: Some(e.to_string()) },
        });
    }
    let text = files
        .iter()
        .map(|file| match (&file.content, &file.error) {
            (Some(content), _) => format!("{}:\n{content}\n", file.path),
            (None, error) => format!("{}: Error - {}", file.path, error.as_deref().unwrap_or_default()),
        })
        .collect::<Vec<_>>()
        .join("\n---\n");
    let all_failed = files.iter().all(|file| file.error.is_some());
    let value = serde_json::to_value(FileTexts { files }).map_err(|e| FsError::Refused(e.to_string()))?;
    Ok(CallToolResult {
        content: vec![ContentBlock::text(text)],
        structured_content: (!all_failed).then_some(value),
        is_error: all_failed.then_some(true),
        ..CallToolResult::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ranges() {
        let text = b"one\ntwo\nthree\n";
        assert_eq!(first_lines(text, 2, true), Some(&b"one\ntwo"[..]));
        assert_eq!(first_lines(text, 9, true), Some(&text[..]));
        assert_eq!(first_lines(text, 9, false), None);
        assert_eq!(last_lines(text, 2, true), Some(&b"two\nthree"[..]));
        assert_eq!(last_lines(b"one\ntwo", 1, true), Some(&b"two"[..]));
        assert_eq!(last_lines(text, 5, true), Some(&b"one\ntwo\nthree"[..]));
        assert_eq!(last_lines(text, 5, false), None);
    }

    #[test]
    fn byte_ranges_drop_cut_characters() {
        let text = "é-é".as_bytes();
        assert_eq!(trim_partial_characters(&text[1..4]), b"-");
        assert_eq!(trim_partial_characters(&text[..3]), "é-".as_bytes());
    }

    #[test]
    fn uris_and_mime_types() {
        assert_eq!(file_uri(Path::new("/a b/ü.png")), "file:///a%20b/%C3%BC.png");
        assert_eq!(mime_type(Path::new("x.PNG")), "image/png");
        assert_eq!(mime_type(Path::new("x")), "application/octet-stream");
    }

    /// A file that grows after it was opened and measured is read only to the size measured:
    /// what keeps `read_multiple_files` within its budget (it used to measure one open and read
    /// another, so a growing file could take more than the budget left and underflow it).
    #[test]
    fn a_file_growing_after_it_was_measured_is_read_to_its_measured_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("growing.txt");
        std::fs::write(&path, "abc").unwrap();
        let fs = crate::filesystem::resolve::Fs::beneath(dir.path());
        let raw = path.to_str().unwrap();
        let readable = open_regular(&fs, raw).unwrap();
        std::fs::write(&path, "abc".repeat(100)).unwrap();
        assert_eq!(text_of(&readable, raw, TextRange::default()).unwrap(), "abc");
    }
}
