//! Reading a host's config file on the command line: variables from the environment, and VS
//! Code's `${input:ID}` asked on the terminal (a secret typed without echo), once each.

use std::path::Path;

use dialoguer::{Input, Password, Select};
use modelctx::host::config::{ConfigError, ConfigInput, HostConfig};

use crate::inspect::interactive::is_interactive;

/// The configuration at `path`, its inputs asked on the terminal.
pub fn load(path: &Path) -> Result<HostConfig, ConfigError> {
    HostConfig::load_asking(path, ask)
}

/// Asks for `input` on the terminal; `None` when there is none to ask on, or it was left.
fn ask(input: &ConfigInput) -> Option<String> {
    if !is_interactive() {
        eprintln!(
            "the config asks for the input {:?}; run on a terminal to answer it, or write the value in place of ${{input:{}}}",
            input.id, input.id
        );
        return None;
    }
    let prompt = input.description.clone().unwrap_or_else(|| input.id.clone());
    if input.kind == "pickString" && !input.options.is_empty() {
        let default =
            input.default.as_ref().and_then(|d| input.options.iter().position(|o| o == d)).unwrap_or(0);
        let chosen =
            Select::new().with_prompt(prompt).items(&input.options).default(default).interact().ok()?;
        return input.options.get(chosen).cloned();
    }
    if input.password {
        return Password::new().with_prompt(prompt).allow_empty_password(true).interact().ok();
    }
    let mut question = Input::<String>::new().with_prompt(prompt).allow_empty(true);
    if let Some(default) = &input.default {
        question = question.default(default.clone());
    }
    question.interact_text().ok()
}
