//! Expansion (RFC 6570 section 3), up to level 4.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{Expression, Operator, Part, TemplateValue, VarSpec};

pub(super) fn expand(parts: &[Part], values: &BTreeMap<String, TemplateValue>) -> String {
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Literal(literal) => encode_into(&mut out, literal, true),
            Part::Expression(expr) => expand_expression(&mut out, expr, values),
        }
    }
    out
}

fn expand_expression(out: &mut String, expr: &Expression, values: &BTreeMap<String, TemplateValue>) {
    let op = expr.op;
    let mut first = true;
    for var in &expr.vars {
        let Some(value) = values.get(&var.name).filter(|value| expands(value, var)) else { continue };
        if first {
            out.extend(op.first());
            first = false;
        } else {
            out.push(op.separator());
        }
        expand_value(out, op, var, value);
    }
}

/// Whether `value` is written for `var`: it must be defined, and a `:N` prefix applies to
/// strings only (RFC 6570 section 2.4.1), so a list or map under a prefix is skipped.
fn expands(value: &TemplateValue, var: &VarSpec) -> bool {
    value.is_defined() && (var.prefix.is_none() || matches!(value, TemplateValue::String(_)))
}

/// Writes one defined value (RFC 6570 section 3.2.1).
fn expand_value(out: &mut String, op: Operator, var: &VarSpec, value: &TemplateValue) {
    let allow = op.allows_reserved();
    match value {
        TemplateValue::String(text) => item(out, op, &var.name, prefix(text, var.prefix)),
        TemplateValue::List(items) if var.explode => {
            join(out, op.separator(), items, |out, value| item(out, op, &var.name, value));
        }
        TemplateValue::Map(pairs) if var.explode => join(out, op.separator(), pairs, |out, (name, value)| {
            encode_into(out, name, allow);
            assign(out, op, value);
        }),
        TemplateValue::List(items) => {
            name_equals(out, op, &var.name);
            join(out, ',', items, |out, value| encode_into(out, value, allow));
        }
        TemplateValue::Map(pairs) => {
            name_equals(out, op, &var.name);
            join(out, ',', pairs, |out, (name, value)| {
                encode_into(out, name, allow);
                out.push(',');
                encode_into(out, value, allow);
            });
        }
    }
}

/// Writes `value`, after `name` and `=` when the operator is named.
fn item(out: &mut String, op: Operator, name: &str, value: &str) {
    if op.named() {
        out.push_str(name);
        assign(out, op, value);
    } else {
        encode_into(out, value, op.allows_reserved());
    }
}

/// Writes `=value`; `;` writes nothing for an empty value (its `ifemp`).
fn assign(out: &mut String, op: Operator, value: &str) {
    if !value.is_empty() || op != Operator::PathParam {
        out.push('=');
    }
    encode_into(out, value, op.allows_reserved());
}

/// Writes `name=` before an unexploded list or map when the operator is named.
fn name_equals(out: &mut String, op: Operator, name: &str) {
    if op.named() {
        out.push_str(name);
        out.push('=');
    }
}

/// Writes each item with `write`, `separator` between them.
fn join<T>(out: &mut String, separator: char, items: &[T], mut write: impl FnMut(&mut String, &T)) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(separator);
        }
        write(out, item);
    }
}

/// The first `max` characters of `text`, or all of it without a `:N` prefix.
fn prefix(text: &str, max: Option<usize>) -> &str {
    match max.and_then(|max| text.char_indices().nth(max)) {
        Some((end, _)) => &text[..end],
        None => text,
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
pub(crate) fn encode_into(out: &mut String, text: &str, allow_reserved: bool) {
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
