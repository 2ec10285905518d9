//! Opaque cursors over name-sorted lists: a cursor names the last item of the previous page,
//! so pages stay stable when items are added or removed between requests (PAGE-05).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use modelctx_protocol::jsonrpc::ErrorObject;

const PREFIX: &str = "after:";

/// The cursor of the page after `key`.
pub(crate) fn encode(key: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{PREFIX}{key}"))
}

/// The key a cursor names; `-32602` for one this server did not make.
pub(crate) fn decode(cursor: &str) -> Result<String, ErrorObject> {
    let invalid = || {
        ErrorObject::invalid_params(format!(
            "invalid or expired cursor {cursor:?}: list again from the start"
        ))
    };
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| invalid())?;
    let text = String::from_utf8(bytes).map_err(|_| invalid())?;
    text.strip_prefix(PREFIX).map(str::to_owned).ok_or_else(invalid)
}

/// One page of `items` (sorted by `key`, ascending) after `cursor`, with the cursor of the
/// next page when more remain.
pub(crate) fn page<T: Clone>(
    items: &[T],
    key: impl Fn(&T) -> &str,
    cursor: Option<&str>,
    page_size: usize,
) -> Result<(Vec<T>, Option<String>), ErrorObject> {
    let start = match cursor {
        None => 0,
        Some(cursor) => {
            let after = decode(cursor)?;
            items.partition_point(|item| key(item) <= after.as_str())
        }
    };
    let end = (start + page_size.max(1)).min(items.len());
    let page = items[start..end].to_vec();
    let next = (end < items.len()).then(|| encode(key(&items[end - 1])));
    Ok((page, next))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("tool{i:03}")).collect()
    }

    #[test]
    fn pages_cover_the_list_once_in_order() {
        let items = names(7);
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let (page, next) = page(&items, |s| s.as_str(), cursor.as_deref(), 3).unwrap();
            seen.extend(page);
            match next {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        assert_eq!(seen, items);
    }

    #[test]
    fn cursors_survive_insertions_before_them() {
        let items = names(6);
        let (_, next) = page(&items, |s| s.as_str(), None, 3).unwrap();
        let mut grown = items.clone();
        grown.insert(0, "a-new-tool".into());
        let (second, _) = page(&grown, |s| s.as_str(), next.as_deref(), 3).unwrap();
        assert_eq!(second, items[3..6]);
    }

    #[test]
    fn page_05_invalid_cursors_are_invalid_params() {
        for bad in ["", "!!", "bm90LWEtY3Vyc29y"] {
            let error = page(&names(3), |s| s.as_str(), Some(bad), 2).unwrap_err();
            assert_eq!(error.code.0, -32602, "{bad}");
        }
    }
}
