//! Content blocks (tool results, prompt messages, resource contents) as text for a person.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use modelctx::protocol::types::{ContentBlock, TextOrBlob};

use super::output::{DIM, shown};

/// The size of base64 `data`, decoded.
fn decoded_len(data: &str) -> usize {
    STANDARD.decode(data).map_or(data.len() * 3 / 4, |bytes| bytes.len())
}

/// Resource contents as text: the text itself, or a line describing binary contents.
pub fn contents_text(contents: &TextOrBlob) -> String {
    match contents {
        TextOrBlob::Text(text) => shown(&text.text, true).into_owned(),
        TextOrBlob::Blob(blob) => {
            let mime = shown(blob.mime_type.as_deref().unwrap_or("binary"), false);
            format!("{DIM}[{mime}, {} bytes, {}]{DIM:#}", decoded_len(&blob.blob), shown(&blob.uri, false))
        }
    }
}

/// One content block as text: text as it is, anything else as a line describing it.
pub fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => shown(&text.text, true).into_owned(),
        ContentBlock::Image(image) => {
            format!(
                "{DIM}[image {}, {} bytes]{DIM:#}",
                shown(&image.mime_type, false),
                decoded_len(&image.data)
            )
        }
        ContentBlock::Audio(audio) => {
            format!(
                "{DIM}[audio {}, {} bytes]{DIM:#}",
                shown(&audio.mime_type, false),
                decoded_len(&audio.data)
            )
        }
        ContentBlock::ResourceLink(link) => {
            format!(
                "{DIM}[link]{DIM:#} {} ({})",
                shown(&link.resource.uri, false),
                shown(&link.resource.name, false)
            )
        }
        ContentBlock::Resource(embedded) => contents_text(&embedded.resource),
    }
}

#[cfg(test)]
mod tests {
    use modelctx::protocol::types::{ContentBlock, TextOrBlob};
    use serde_json::json;

    use super::{block_text, contents_text};

    /// The lines describing binary content quote the server's MIME types and URIs inert.
    #[test]
    fn binary_content_is_described_inert() {
        let image: ContentBlock = serde_json::from_value(
            json!({"type": "image", "data": "AAAA", "mimeType": "image/png\u{1b}]0;owned\u{7}"}),
        )
        .unwrap();
        let blob: TextOrBlob = serde_json::from_value(
            json!({"uri": "file:///x\u{1b}[2J", "blob": "AAAA", "mimeType": "a\u{1b}[31m"}),
        )
        .unwrap();
        for described in [block_text(&image), contents_text(&blob)] {
            let server_part = described.replace("\u{1b}[2m", "").replace("\u{1b}[0m", "");
            assert!(!server_part.contains('\u{1b}'), "{described:?}");
        }
    }
}
