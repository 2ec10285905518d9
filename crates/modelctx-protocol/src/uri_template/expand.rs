//! Expansion (RFC 6570 section 3) for string values.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{Expression, Part};

pub(super) fn expand(parts: &[Part], values: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Literal(literal) => encode_into(&mut out, literal, true),
            Part::Expression(expr) => expand_expression(&mut out, expr, values),
        }
    }
    out
}

fn expand_expression(out: &mut String, expr: &Expression, values: &BTreeMap<String, String>) {
    let op = expr.op;
    let mut first = true;
    for var in &expr.vars {
        let Some(value) = values.get(&var.name) else { continue };
        if first {
            out.extend(op.first());
            first = false;
        } else {
            out.push(op.separator());
        }
        let value = match var.prefix {
            Some(max) => value.char_indices().nth(max).map_or(value.as_str(), |(end, _)| &value[..end]),
            None => value,
        };
        if op.named() {
            out.push_str(&var.name);
            // `;` writes a bare name for an empty value, `?` and `&` write `name=`.
            if !value.is_empty() || op.is_query() {
                out.push('=');
            }
        }
        encode_into(out, value, op.allows_reserved());
    }
}

/// RFC 3986 unreserved characters.
pub(super) fn is_unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

/// RFC 3986 reserved characters (gen-delims and sub-delims).
fn is_reserved(c: char) -> bool {
    matches!(
        c,
        ':' | '/'
            | '?'
            | '#'
            | '['
            | ']'
            | '@'
            | '!'
            | '$'
            | '&'
            | '\''
            | '('
            | ')'
            | '*'
            | '+'
            | ','
            | ';'
            | '='
    )
}

/// Appends `text`, percent-encoding (as UTF-8) every character that is not unreserved, or,
/// with `allow_reserved`, not unreserved, reserved or the `%` of a `%XX` triplet.
pub(super) fn encode_into(out: &mut String, text: &str, allow_reserved: bool) {
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let keep = is_unreserved(c)
            || (allow_reserved
                && (is_reserved(c)
                    || (c == '%'
                        && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                        && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit))));
        if keep {
            out.push(c);
        } else {
            let mut buf = [0; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
}
