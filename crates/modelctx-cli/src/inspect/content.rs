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
            let mime = blob.mime_type.as_deref().unwrap_or("binary");
            format!("{DIM}[{mime}, {} bytes, {}]{DIM:#}", decoded_len(&blob.blob), blob.uri)
        }
    }
}

/// One content block as text: text as it is, anything else as a line describing it.
pub fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => shown(&text.text, true).into_owned(),
        ContentBlock::Image(image) => {
            format!("{DIM}[image {}, {} bytes]{DIM:#}", image.mime_type, decoded_len(&image.data))
        }
        ContentBlock::Audio(audio) => {
            format!("{DIM}[audio {}, {} bytes]{DIM:#}", audio.mime_type, decoded_len(&audio.data))
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
