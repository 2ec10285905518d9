//! VS Code's `inputs`: values a configuration asks for as it is read (`${input:ID}`, an API
//! key say), each asked once, however many fields use it.

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde::Deserialize;

/// One of a configuration's `inputs`, as VS Code's `mcp.json` declares them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigInput {
    /// What `${input:ID}` names.
    pub id: String,
    /// `promptString` (text) or `pickString` (one of `options`).
    #[serde(rename = "type", default)]
    pub kind: String,
    /// What to ask.
    #[serde(default)]
    pub description: Option<String>,
    /// Whether the answer is a secret, to be typed without showing it.
    #[serde(default)]
    pub password: bool,
    /// The answer when none is typed.
    #[serde(default)]
    pub default: Option<String>,
    /// The choices of a `pickString`.
    #[serde(default)]
    pub options: Vec<String>,
}

/// The caller's question for an input: its answer, or `None`.
pub(crate) type Ask<'a> = &'a mut dyn FnMut(&ConfigInput) -> Option<String>;

/// Asks each input at most once, through the caller's question.
pub(crate) struct Asker<'a> {
    inputs: Vec<ConfigInput>,
    ask: RefCell<Ask<'a>>,
    answers: RefCell<BTreeMap<String, String>>,
}

impl<'a> Asker<'a> {
    pub(crate) fn new(
        inputs: Vec<ConfigInput>,
        ask: &'a mut dyn FnMut(&ConfigInput) -> Option<String>,
    ) -> Self {
        Self { inputs, ask: RefCell::new(ask), answers: RefCell::default() }
    }

    /// The answer for input `id`, asked the first time.
    pub(crate) fn answer(&self, id: &str) -> Result<String, String> {
        if let Some(answer) = self.answers.borrow().get(id) {
            return Ok(answer.clone());
        }
        let Some(input) = self.inputs.iter().find(|input| input.id == id) else {
            return Err("the configuration's \"inputs\" declare no such input".into());
        };
        let answer = (self.ask.borrow_mut())(input).ok_or_else(|| "it was not given".to_owned())?;
        self.answers.borrow_mut().insert(id.to_owned(), answer.clone());
        Ok(answer)
    }
}
