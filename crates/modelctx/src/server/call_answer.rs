//! `tools/call` results written without a serializer where they can be, byte for byte as serde
//! writes them: the members every call has, and plain text blocks, as the literal text serde
//! writes for them; anything else (other blocks, structured content, `_meta`) through
//! serde_json. Writing a small result is mostly writing its keys, and serde_json spends about
//! 130 instructions escaping each.

use modelctx_protocol::types::{ContentBlock, TextContent, write_json_string};
use modelctx_protocol::{v2025, v2026};
use serde::Serialize;

use super::answer::{WithServerInfo, WriteJson};

/// A 2026-07-28 result with the server's `serverInfo` as its `_meta`.
#[derive(Debug)]
pub(super) struct ModernCall(pub(super) WithServerInfo<v2026::CallToolResult>);

impl WriteJson for ModernCall {
    fn write_json(&self, json: &mut Vec<u8>) -> serde_json::Result<()> {
        let WithServerInfo { result, meta } = &self.0;
        let v2026::CallToolResult { result_type, content, structured_content, is_error, meta: own_meta } =
            result;
        if *result_type != v2026::ResultType::Complete || own_meta.is_some() {
            return serde_json::to_writer(json, &self.0);
        }
        json.extend_from_slice(br#"{"resultType":"complete","content":"#);
        write_content(content, json)?;
        write_outcome(structured_content.as_ref(), *is_error, json)?;
        json.extend_from_slice(br#","_meta":{"io.modelcontextprotocol/serverInfo":"#);
        json.extend_from_slice(meta.server_info.get().as_bytes());
        json.extend_from_slice(b"}}");
        Ok(())
    }
}

/// A 2025-11-25 result.
#[derive(Debug)]
pub(super) struct LegacyCall(pub(super) v2025::CallToolResult);

impl WriteJson for LegacyCall {
    fn write_json(&self, json: &mut Vec<u8>) -> serde_json::Result<()> {
        let v2025::CallToolResult { content, structured_content, is_error, meta } = &self.0;
        json.extend_from_slice(br#"{"content":"#);
        write_content(content, json)?;
        write_outcome(structured_content.as_ref(), *is_error, json)?;
        if let Some(meta) = meta {
            json.extend_from_slice(br#","_meta":"#);
            serde_json::to_writer(&mut *json, meta)?;
        }
        json.push(b'}');
        Ok(())
    }
}

/// The `content` array.
fn write_content(content: &[ContentBlock], json: &mut Vec<u8>) -> serde_json::Result<()> {
    json.push(b'[');
    for (n, block) in content.iter().enumerate() {
        if n > 0 {
            json.push(b',');
        }
        match block {
            ContentBlock::Text(TextContent { text, annotations: None, meta: None, .. }) => {
                json.extend_from_slice(br#"{"type":"text","text":"#);
                write_json_string(text, json);
                json.push(b'}');
            }
            other => serde_json::to_writer(&mut *json, other)?,
        }
    }
    json.push(b']');
    Ok(())
}

/// `structuredContent` and `isError`, each when present, after the members before them.
fn write_outcome(
    structured: Option<&impl Serialize>,
    is_error: Option<bool>,
    json: &mut Vec<u8>,
) -> serde_json::Result<()> {
    if let Some(structured) = structured {
        json.extend_from_slice(br#","structuredContent":"#);
        serde_json::to_writer(&mut *json, structured)?;
    }
    match is_error {
        Some(true) => json.extend_from_slice(br#","isError":true"#),
        Some(false) => json.extend_from_slice(br#","isError":false"#),
        None => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use modelctx_protocol::types::Implementation;
    use serde_json::json;
    use serde_json::value::RawValue;

    use super::*;

    /// `writer`'s JSON after what the buffer held, and serde's of `value`.
    fn both(writer: &impl WriteJson, value: &impl Serialize) -> (String, String) {
        let mut by_hand = b"held".to_vec();
        writer.write_json(&mut by_hand).unwrap();
        assert_eq!(&by_hand[..4], b"held", "what the buffer held is kept");
        let by_hand = String::from_utf8(by_hand[4..].to_vec()).unwrap();
        (by_hand, serde_json::to_string(value).unwrap())
    }

    /// Blocks of each kind the writer tells apart.
    fn blocks() -> Vec<Vec<ContentBlock>> {
        let all: Vec<ContentBlock> = serde_json::from_value(json!([
            {"type": "text", "text": "plain"},
            {"type": "text", "text": "a \"quoted\"\\ line\n\u{1}é𝄞"},
            {"type": "text", "text": "long ".repeat(300)},
            {"type": "text", "text": "hinted", "annotations": {"priority": 0.5}},
            {"type": "text", "text": "with meta", "_meta": {"k": 1}},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        ]))
        .unwrap();
        vec![Vec::new(), all[..1].to_vec(), all]
    }

    #[test]
    fn a_modern_result_is_written_byte_for_byte_as_serde_writes_it() {
        let info: Arc<RawValue> =
            Arc::from(serde_json::value::to_raw_value(&Implementation::new("s", "1")).unwrap());
        let structured = [None, Some(json!({"n": 1.5, "s": "x"})), Some(json!([1]))];
        for content in blocks() {
            for structured_content in &structured {
                for is_error in [None, Some(true), Some(false)] {
                    for result_type in [v2026::ResultType::Complete, v2026::ResultType::Task] {
                        let result = v2026::CallToolResult {
                            result_type,
                            content: content.clone(),
                            structured_content: structured_content.clone(),
                            is_error,
                            meta: None,
                        };
                        let with_info = WithServerInfo::new(result, info.clone());
                        let (by_hand, by_serde) = both(
                            &ModernCall(WithServerInfo::new(with_info.result.clone(), info.clone())),
                            &with_info,
                        );
                        assert_eq!(by_hand, by_serde);
                    }
                }
            }
        }
    }

    #[test]
    fn a_legacy_result_is_written_byte_for_byte_as_serde_writes_it() {
        let structured = [None, Some(json!({"n": 1.5, "s": "x"}).as_object().unwrap().clone())];
        let metas = [None, Some(serde_json::from_value(json!({"k": [1, "x"]})).unwrap())];
        for content in blocks() {
            for structured_content in &structured {
                for is_error in [None, Some(true), Some(false)] {
                    for meta in &metas {
                        let result = v2025::CallToolResult {
                            content: content.clone(),
                            structured_content: structured_content.clone(),
                            is_error,
                            meta: meta.clone(),
                        };
                        let (by_hand, by_serde) = both(&LegacyCall(result.clone()), &result);
                        assert_eq!(by_hand, by_serde);
                    }
                }
            }
        }
    }
}
