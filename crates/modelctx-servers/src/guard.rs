//! `guard` (experimental): a server that hosts interceptors (SEP-2624) for a gateway to run
//! around the calls it relays — no tools of its own.
//!
//! - `pii-redactor`, a mutator on `tools/call`, `prompts/get` and `resources/read`, both
//!   phases: every string of the payload with e-mail addresses, US social security numbers
//!   (`123-45-6789`) and payment card numbers (13 to 19 digits, spaces or dashes allowed, that
//!   pass the Luhn check) replaced by `[EMAIL]`, `[SSN]`, `[CARD]`. Early when requests arrive,
//!   late when results leave.
//! - `blocked-terms`, a validator of `tools/call` and `prompts/get` requests: refuses a payload
//!   any string of which contains one of `config.terms` (case-insensitive), naming where.
//! - `audit-log`, a validator in audit mode on every event and phase (`*`), fail-open: logs the
//!   event, phase and payload size at info, never refuses.

use modelctx::protocol::interceptors::{Hook, Mode, Phase, PriorityHint, Severity, ValidationResult};
use modelctx::protocol::types::Implementation;
use modelctx::server::interceptors::{InterceptorDef, Invocation};
use modelctx::server::{Server, ServerBuilder};
use serde_json::{Value, json};

/// The events `pii-redactor` rewrites.
const REDACTED_EVENTS: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];

/// The guard server, not yet built.
pub fn builder() -> ServerBuilder {
    let info = Implementation {
        description: Some("Interceptors for a gateway: PII redaction, blocked terms, an audit log".into()),
        ..Implementation::new("modelctx-guard", env!("CARGO_PKG_VERSION"))
    };
    Server::with_info(info).interceptors([redactor(), blocked_terms(), audit_log()])
}

fn both_phases(events: &[&str]) -> Vec<Hook> {
    let events: Vec<String> = events.iter().map(|event| (*event).to_owned()).collect();
    [Phase::Request, Phase::Response].map(|phase| Hook { events: events.clone(), phase }).into()
}

fn redactor() -> InterceptorDef {
    InterceptorDef::mutator(
        "pii-redactor",
        both_phases(&REDACTED_EVENTS),
        |invocation: Invocation| async move {
            let mut payload = invocation.payload;
            Ok(redact_strings(&mut payload).then_some(payload))
        },
    )
    .description("Replaces e-mail addresses, US social security numbers and payment card numbers")
    .version("1.0.0")
    .priority(PriorityHint::PerPhase { request: Some(-50_000), response: Some(50_000) })
}

fn blocked_terms() -> InterceptorDef {
    let hooks = vec![Hook { events: vec!["tools/call".into(), "prompts/get".into()], phase: Phase::Request }];
    let schema =
        json!({"type": "object", "properties": {"terms": {"type": "array", "items": {"type": "string"}}}});
    InterceptorDef::validator("blocked-terms", hooks, |invocation: Invocation| async move {
        let terms: Vec<String> =
            invocation.config.get("terms").and_then(Value::as_array).map_or_else(Vec::new, |terms| {
                terms.iter().filter_map(Value::as_str).map(str::to_lowercase).collect()
            });
        Ok(match find_term(&invocation.payload, &terms, "$") {
            Some((path, term)) => ValidationResult::finding(
                Severity::Error,
                format!("the payload contains the blocked term {term:?}"),
                Some(path),
            ),
            None => ValidationResult::pass(),
        })
    })
    .description("Refuses requests that contain any of config.terms")
    .version("1.0.0")
    .config_schema(schema.as_object().cloned().unwrap_or_default())
}

fn audit_log() -> InterceptorDef {
    InterceptorDef::validator("audit-log", both_phases(&["*"]), |invocation: Invocation| async move {
        let bytes = invocation.payload.to_string().len();
        tracing::info!(event = %invocation.event, phase = invocation.phase.as_str(), bytes, "audit");
        Ok(ValidationResult::pass())
    })
    .description("Logs every event and phase with the payload's size")
    .version("1.0.0")
    .mode(Mode::Audit)
    .fail_open(true)
}

/// Redacts every string in `value`; whether any changed.
fn redact_strings(value: &mut Value) -> bool {
    match value {
        Value::String(text) => match redact(text) {
            Some(redacted) => {
                *text = redacted;
                true
            }
            None => false,
        },
        Value::Array(items) => items.iter_mut().fold(false, |changed, item| redact_strings(item) | changed),
        Value::Object(members) => {
            members.values_mut().fold(false, |changed, item| redact_strings(item) | changed)
        }
        _ => false,
    }
}

/// `text` with its e-mail addresses, SSNs and card numbers replaced; `None` when it has none.
fn redact(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    for word in text.split_inclusive(char::is_whitespace) {
        let trimmed = word.trim_end();
        let (core, trailing_punctuation) = split_trailing_punctuation(trimmed);
        if is_email(core) {
            out.push_str("[EMAIL]");
            out.push_str(trailing_punctuation);
            out.push_str(&word[trimmed.len()..]);
            changed = true;
        } else {
            out.push_str(word);
        }
    }
    let (digits_done, digits_changed) = redact_numbers(&out);
    (changed || digits_changed).then_some(digits_done)
}

/// `word` without the punctuation that may end a sentence after it.
fn split_trailing_punctuation(word: &str) -> (&str, &str) {
    let core = word.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', '"', '\'']);
    (core, &word[core.len()..])
}

/// `local@domain.tld`, plainly.
fn is_email(word: &str) -> bool {
    let Some((local, domain)) = word.split_once('@') else { return false };
    let allowed_local = |c: char| c.is_ascii_alphanumeric() || "._%+-".contains(c);
    let allowed_domain = |c: char| c.is_ascii_alphanumeric() || ".-".contains(c);
    !local.is_empty()
        && local.chars().all(allowed_local)
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && domain.chars().all(allowed_domain)
}

/// `text` with its SSNs and card numbers replaced, and whether any was.
fn redact_numbers(text: &str) -> (String, bool) {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut at = 0;
    while at < chars.len() {
        let starts_run = chars[at].is_ascii_digit() && (at == 0 || !chars[at - 1].is_ascii_alphanumeric());
        if starts_run {
            // The run of digits with single spaces or dashes between them.
            let mut end = at;
            let mut digits = String::new();
            while end < chars.len() {
                if chars[end].is_ascii_digit() {
                    digits.push(chars[end]);
                    end += 1;
                } else if matches!(chars[end], ' ' | '-')
                    && chars.get(end + 1).is_some_and(char::is_ascii_digit)
                {
                    end += 1;
                } else {
                    break;
                }
            }
            let run: String = chars[at..end].iter().collect();
            let label = if is_ssn(&run) {
                Some("[SSN]")
            } else if (13..=19).contains(&digits.len()) && luhn(&digits) {
                Some("[CARD]")
            } else {
                None
            };
            match label {
                Some(label) => {
                    out.push_str(label);
                    changed = true;
                }
                None => out.push_str(&run),
            }
            at = end;
        } else {
            out.push(chars[at]);
            at += 1;
        }
    }
    (out, changed)
}

/// `ddd-dd-dddd`.
fn is_ssn(run: &str) -> bool {
    let parts: Vec<&str> = run.split('-').collect();
    parts.len() == 3
        && [3, 2, 4]
            .iter()
            .zip(&parts)
            .all(|(len, part)| part.len() == *len && part.bytes().all(|b| b.is_ascii_digit()))
}

/// The Luhn check of a card number.
fn luhn(digits: &str) -> bool {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 1 { if d * 2 > 9 { d * 2 - 9 } else { d * 2 } } else { d }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// The first string in `value` holding one of `terms` (lower case): its JSON path and the term.
fn find_term(value: &Value, terms: &[String], path: &str) -> Option<(String, String)> {
    match value {
        Value::String(text) => {
            let lower = text.to_lowercase();
            terms
                .iter()
                .find(|term| !term.is_empty() && lower.contains(term.as_str()))
                .map(|term| (path.to_owned(), term.clone()))
        }
        Value::Array(items) => {
            items.iter().enumerate().find_map(|(i, item)| find_term(item, terms, &format!("{path}[{i}]")))
        }
        Value::Object(members) => {
            members.iter().find_map(|(key, item)| find_term(item, terms, &format!("{path}.{key}")))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_ssns_and_cards_are_redacted_and_nothing_else() {
        let text = "Mail ada@example.com, SSN 123-45-6789, card 4111 1111 1111 1111; order 12345 at 10:30.";
        assert_eq!(redact(text).unwrap(), "Mail [EMAIL], SSN [SSN], card [CARD]; order 12345 at 10:30.");
        assert_eq!(redact("nothing here, not even 4111 1111 1111 1112"), None, "a number failing Luhn stays");
        assert_eq!(redact("@handle and a@b"), None);
    }

    #[test]
    fn a_blocked_term_is_found_with_its_path() {
        let payload = json!({"method": "tools/call", "params": {"name": "echo", "arguments": {"message": "please DROP TABLE users"}}});
        let terms = ["drop table".to_owned()];
        assert_eq!(
            find_term(&payload, &terms, "$"),
            Some(("$.params.arguments.message".into(), "drop table".into()))
        );
        assert_eq!(find_term(&payload, &[], "$"), None);
    }
}
