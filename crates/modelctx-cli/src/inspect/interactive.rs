//! On a terminal, the server's elicitation requests become prompts (form fields from the
//! requested schema) and progress reports drive a progress bar. Off a terminal, the client
//! declares no elicitation capability (nobody could answer) and shows no bar.

use std::collections::BTreeMap;
use std::io::IsTerminal;

use dialoguer::theme::ColorfulTheme;
use dialoguer::{Confirm, Input, MultiSelect, Select};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use modelctx::client::{ClientHandlers, Progress};
use modelctx::protocol::model::ElicitRequest;
use modelctx::protocol::types::{ElicitAction, ElicitValue};
use modelctx::protocol::v2026::ElicitResult;
use serde_json::Value;

use super::output::{BOLD, shown};

/// Whether a person is at the keyboard: stdin and stderr are terminals.
pub fn is_interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Handlers that ask the person at the terminal; none when there is nobody to ask.
pub fn handlers() -> ClientHandlers {
    if !is_interactive() {
        return ClientHandlers::default();
    }
    ClientHandlers::default().on_elicit(|request| async move {
        tokio::task::spawn_blocking(move || ask(request))
            .await
            .unwrap_or_else(|_| answer(ElicitAction::Cancel, None))
    })
}

fn answer(action: ElicitAction, content: Option<BTreeMap<String, ElicitValue>>) -> ElicitResult {
    ElicitResult { action, content }
}

/// Asks the question at the terminal; an interrupted prompt cancels.
fn ask(request: ElicitRequest) -> ElicitResult {
    let theme = ColorfulTheme::default();
    match request {
        ElicitRequest::Url { message, url, .. } => {
            let (message, url) = (shown(&message, true), shown(&url, false));
            anstream::eprintln!("{BOLD}The server asks you to visit a page:{BOLD:#} {message}\n  {url}");
            match Confirm::with_theme(&theme).with_prompt("Done (no declines)?").interact() {
                Ok(true) => answer(ElicitAction::Accept, None),
                Ok(false) => answer(ElicitAction::Decline, None),
                Err(_) => answer(ElicitAction::Cancel, None),
            }
        }
        ElicitRequest::Form { message, requested_schema } => {
            anstream::eprintln!("{BOLD}The server asks:{BOLD:#} {}", shown(&message, true));
            match Confirm::with_theme(&theme).with_prompt("Answer (no declines)?").default(true).interact() {
                Ok(true) => {}
                Ok(false) => return answer(ElicitAction::Decline, None),
                Err(_) => return answer(ElicitAction::Cancel, None),
            }
            let required = requested_schema.required.unwrap_or_default();
            let mut content = BTreeMap::new();
            for (name, field) in requested_schema.properties {
                let field = serde_json::to_value(field).unwrap_or_default();
                match ask_field(&theme, &name, &field, required.contains(&name)) {
                    Ok(Some(value)) => {
                        content.insert(name, value);
                    }
                    Ok(None) => {}
                    Err(_) => return answer(ElicitAction::Cancel, None),
                }
            }
            answer(ElicitAction::Accept, Some(content))
        }
    }
}

/// The choices of an enum field: `(value, label)` from `enum` (+ legacy `enumNames`),
/// `oneOf`/`anyOf` of `{const, title}`.
fn choices(schema: &Value) -> Vec<(String, String)> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        return values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let value = v.as_str()?.to_owned();
                let label = names.and_then(|n| n.get(i)).and_then(Value::as_str).unwrap_or(&value).to_owned();
                Some((value, label))
            })
            .collect();
    }
    ["oneOf", "anyOf"]
        .iter()
        .filter_map(|key| schema.get(key).and_then(Value::as_array))
        .flatten()
        .filter_map(|option| {
            let value = option.get("const")?.as_str()?.to_owned();
            let label = option.get("title").and_then(Value::as_str).unwrap_or(&value).to_owned();
            Some((value, label))
        })
        .collect()
}

/// Asks for one field; `None` when an optional field is left empty.
fn ask_field(
    theme: &ColorfulTheme,
    name: &str,
    schema: &Value,
    required: bool,
) -> dialoguer::Result<Option<ElicitValue>> {
    let title = schema.get("title").and_then(Value::as_str).unwrap_or(name);
    let prompt = match schema.get("description").and_then(Value::as_str) {
        Some(description) => format!("{title} ({description})"),
        None => title.to_owned(),
    };
    let default = schema.get("default");
    match schema.get("type").and_then(Value::as_str).unwrap_or("string") {
        "boolean" => {
            let default = default.and_then(Value::as_bool).unwrap_or(false);
            Ok(Some(ElicitValue::Boolean(
                Confirm::with_theme(theme).with_prompt(prompt).default(default).interact()?,
            )))
        }
        "array" => {
            let options = choices(schema.get("items").unwrap_or(&Value::Null));
            let labels: Vec<&str> = options.iter().map(|(_, label)| label.as_str()).collect();
            let picked = MultiSelect::with_theme(theme).with_prompt(prompt).items(&labels).interact()?;
            Ok(Some(ElicitValue::Strings(picked.into_iter().map(|i| options[i].0.clone()).collect())))
        }
        kind @ ("number" | "integer") => {
            let integer = kind == "integer";
            let mut input = Input::<String>::with_theme(theme).with_prompt(prompt).allow_empty(!required);
            if let Some(default) = default {
                input = input.default(default.to_string());
            }
            let text = input
                .validate_with(|text: &String| -> Result<(), String> {
                    if text.is_empty() || parse_number(text, integer).is_some() {
                        Ok(())
                    } else {
                        Err(format!("not {}", if integer { "an integer" } else { "a number" }))
                    }
                })
                .interact_text()?;
            Ok(parse_number(&text, integer).map(ElicitValue::Number))
        }
        _ => {
            let options = choices(schema);
            if !options.is_empty() {
                let labels: Vec<&str> = options.iter().map(|(_, label)| label.as_str()).collect();
                let initial = default
                    .and_then(Value::as_str)
                    .and_then(|d| options.iter().position(|(value, _)| value == d))
                    .unwrap_or(0);
                let picked = Select::with_theme(theme)
                    .with_prompt(prompt)
                    .items(&labels)
                    .default(initial)
                    .interact()?;
                return Ok(Some(ElicitValue::String(options[picked].0.clone())));
            }
            let mut input = Input::<String>::with_theme(theme).with_prompt(prompt).allow_empty(!required);
            if let Some(default) = default.and_then(Value::as_str) {
                input = input.default(default.to_owned());
            }
            let text = input.interact_text()?;
            Ok((!text.is_empty() || required).then_some(ElicitValue::String(text)))
        }
    }
}

fn parse_number(text: &str, integer: bool) -> Option<serde_json::Number> {
    match serde_json::from_str::<Value>(text.trim()).ok()? {
        Value::Number(n) if !integer || n.is_i64() || n.is_u64() => Some(n),
        _ => None,
    }
}

/// A progress bar on stderr for one request (drawn only when stderr is a terminal).
pub struct ProgressDisplay(ProgressBar);

/// Progress values are fractional: the bar counts hundredths.
const SCALE: f64 = 100.0;

impl ProgressDisplay {
    /// A bar that appears with the first report (so that it never draws over a prompt for a
    /// request that reports no progress).
    pub fn new(what: &str) -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_message(what.to_owned());
        Self(bar)
    }

    /// Shows one report.
    pub fn update(&self, progress: &Progress) {
        if self.0.is_hidden() {
            self.0.set_draw_target(ProgressDrawTarget::stderr());
        }
        if let Some(total) = progress.total.filter(|t| *t > 0.0) {
            if self.0.length().is_none() {
                let style = ProgressStyle::with_template("{spinner} [{bar:32}] {percent:>3}% {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> ");
                self.0.set_style(style);
            }
            self.0.set_length((total * SCALE) as u64);
        }
        self.0.set_position((progress.progress * SCALE).max(0.0) as u64);
        if let Some(message) = &progress.message {
            self.0.set_message(message.clone());
        }
    }

    /// Takes the bar off the screen.
    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}
