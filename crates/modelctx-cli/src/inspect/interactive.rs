//! On a terminal, the server's elicitation requests become prompts (form fields from the
//! requested schema), its sampling requests are answered by the person as the model
//! ([`super::sampling`]), and progress reports drive a progress bar. Off a terminal, the client
//! declares neither capability (nobody could answer) and shows no bar. One question is on the
//! terminal at a time: the others wait their turn.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::{Mutex, PoisonError};

use dialoguer::theme::ColorfulTheme;
use dialoguer::{Confirm, Input, MultiSelect, Select};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use modelctx::client::{ClientHandlers, Progress};
use modelctx::protocol::jsonrpc::ErrorObject;
use modelctx::protocol::model::ElicitRequest;
use modelctx::protocol::types::{ElicitAction, ElicitValue};
use modelctx::protocol::v2026::ElicitResult;
use serde_json::Value;

use super::output::{BOLD, shown};

/// Whether a person is at the keyboard: stdin and stderr are terminals.
pub fn is_interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Handlers that ask the person at the terminal, saying that `server` asks; none when there
/// is nobody to ask.
pub fn handlers(server: &str) -> ClientHandlers {
    if !is_interactive() {
        return ClientHandlers::default();
    }
    let server = shown(server, false).into_owned();
    let for_sampling = server.clone();
    ClientHandlers::default()
        .on_elicit(move |request| {
            let server = server.clone();
            async move {
                on_the_terminal(move || ask(&server, request))
                    .await
                    .unwrap_or_else(|| answer(ElicitAction::Cancel, None))
            }
        })
        .on_sample(move |request| {
            let server = for_sampling.clone();
            async move {
                on_the_terminal(move || super::sampling::ask(&server, &request))
                    .await
                    .unwrap_or_else(|| Err(ErrorObject::internal("the terminal prompt failed")))
            }
        })
}

/// The terminal, held by the question on it.
static TERMINAL: Mutex<()> = Mutex::new(());

/// Runs the prompt `ask` off the runtime, once the terminal is free; `None` when it panicked.
async fn on_the_terminal<T: Send + 'static>(ask: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    tokio::task::spawn_blocking(move || {
        let _held = TERMINAL.lock().unwrap_or_else(PoisonError::into_inner);
        ask()
    })
    .await
    .ok()
}

fn answer(action: ElicitAction, content: Option<BTreeMap<String, ElicitValue>>) -> ElicitResult {
    ElicitResult { action, content }
}

/// What a person may do with a URL elicitation, the first (the default) never opening it.
const URL_CHOICES: [&str; 3] = ["Decline", "Open it in my browser", "Cancel"];

/// What a person may do with a filled-in form before it is sent.
const FORM_CHOICES: [&str; 4] = ["Send these answers", "Change them", "Decline", "Cancel"];

/// The lines that put a URL elicitation to the person (ELIC-02, ELIC-21): which server asks,
/// its message, the site the page is on, and the whole URL — before anything is opened.
fn url_question(server: &str, message: &str, url: &str) -> Vec<String> {
    let site = reqwest::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_owned));
    vec![
        format!("{BOLD}The server {server} asks you to open a page:{BOLD:#} {}", shown(message, true)),
        format!("  site: {}", shown(site.as_deref().unwrap_or("(none: not a web address)"), false)),
        format!("  page: {}", shown(url, false)),
    ]
}

/// Asks the question at the terminal; an interrupted prompt cancels.
fn ask(server: &str, request: ElicitRequest) -> ElicitResult {
    let theme = ColorfulTheme::default();
    match request {
        ElicitRequest::Url { message, url, .. } => ask_to_open(&theme, server, &message, &url),
        ElicitRequest::Form { message, requested_schema } => {
            anstream::eprintln!("{BOLD}The server {server} asks:{BOLD:#} {}", shown(&message, true));
            let required = requested_schema.required.unwrap_or_default();
            let fields: Vec<(String, Value)> = requested_schema
                .properties
                .into_iter()
                .map(|(name, field)| (name, serde_json::to_value(field).unwrap_or_default()))
                .collect();
            loop {
                let mut content = BTreeMap::new();
                for (name, field) in &fields {
                    match ask_field(&theme, name, field, required.contains(name)) {
                        Ok(Some(value)) => {
                            content.insert(name.clone(), value);
                        }
                        Ok(None) => {}
                        Err(_) => return answer(ElicitAction::Cancel, None),
                    }
                }
                // ELIC-02: the answers are shown, and sent only once the person says so.
                for (name, value) in &content {
                    let value = serde_json::to_string(value).unwrap_or_default();
                    anstream::eprintln!("  {}: {}", shown(name, false), shown(&value, false));
                }
                match Select::with_theme(&theme).items(FORM_CHOICES).default(0).interact() {
                    Ok(0) => return answer(ElicitAction::Accept, Some(content)),
                    Ok(1) => continue,
                    Ok(2) => return answer(ElicitAction::Decline, None),
                    _ => return answer(ElicitAction::Cancel, None),
                }
            }
        }
    }
}

/// A URL elicitation: the question shown in full, then the page opened in the person's own
/// browser only if they choose to (never fetched here, never opened otherwise, ELIC-21).
fn ask_to_open(theme: &ColorfulTheme, server: &str, message: &str, url: &str) -> ElicitResult {
    for line in url_question(server, message, url) {
        anstream::eprintln!("{line}");
    }
    let page = match modelctx::client::browser::openable(url) {
        Ok(page) => page,
        Err(why) => {
            anstream::eprintln!("modelctx will not open it: {why}");
            return answer(ElicitAction::Decline, None);
        }
    };
    match Select::with_theme(theme).items(URL_CHOICES).default(0).interact() {
        Ok(1) => {
            if !modelctx::client::browser::open_in_browser(&page) {
                anstream::eprintln!("No browser could be started; open the page above yourself.");
            }
            answer(ElicitAction::Accept, None)
        }
        Ok(0) => answer(ElicitAction::Decline, None),
        _ => answer(ElicitAction::Cancel, None),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// ELIC-02: a URL elicitation says which server asks, shows the site the page is on and
    /// the whole URL, and its first (default) choice declines; a form offers a review with
    /// decline and cancel kept apart.
    #[test]
    fn elic_02_the_question_names_the_server_the_site_and_the_whole_url() {
        let lines =
            url_question("\"payments\"", "Link your account", "https://auth.example.com/link?session=42");
        let text = lines.join("\n");
        assert!(text.contains("The server \"payments\" asks you to open a page"), "{text}");
        assert!(text.contains("site: auth.example.com"), "{text}");
        assert!(text.contains("page: https://auth.example.com/link?session=42"), "{text}");
        assert_eq!(URL_CHOICES[0], "Decline", "nothing opens by default");
        assert!(
            URL_CHOICES.contains(&"Cancel")
                && FORM_CHOICES.contains(&"Decline")
                && FORM_CHOICES.contains(&"Cancel")
        );
        let escaped = url_question("s", "m", "https://a.example/\u{1b}[2J").join("\n");
        assert!(!escaped.contains("\u{1b}[2J"), "a URL cannot drive the terminal: {escaped}");
    }

    /// ELIC-21: only an `https` page (or `http` on loopback) is ever opened, and it is
    /// opened by the person's own browser, not fetched by this client.
    #[test]
    fn elic_21_only_web_pages_are_opened_and_only_in_the_browser() {
        for url in
            ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,<script>", "http://evil.example/"]
        {
            assert!(modelctx::client::browser::openable(url).is_err(), "{url}");
        }
        assert!(modelctx::client::browser::openable("https://auth.example.com/link").is_ok());
    }
}
