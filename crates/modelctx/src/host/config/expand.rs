//! `${VAR}` expansion in configuration strings, the forms hosts accept: `${NAME}`,
//! `${NAME:-default}` (the default when `NAME` is unset or empty), VS Code's `${env:NAME}`,
//! and VS Code's `${input:ID}` where the configuration's `inputs` may be asked. A `$` not followed by `{` is kept as written, so shell snippets in `args`
//! (`"$1"`, `"$HOME"`) pass through untouched; expanded text is not scanned again.

/// Why a string could not be expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ExpandError {
    /// `${NAME}` with `NAME` unset and no default.
    Unset(String),
    /// A `${` with no closing `}`.
    Unterminated,
    /// `${…}` that names no variable (`${}`, or `${input:token}` where no inputs are asked):
    /// the text between the braces.
    Unsupported(String),
    /// `${input:ID}` got no value: the input, and why.
    Input(String, String),
}

/// The answer to `${input:ID}`, or why there is none.
pub(crate) type Inputs<'a> = &'a dyn Fn(&str) -> Result<String, String>;

/// `text` with every `${…}` replaced through `lookup`, and `${input:ID}` through `inputs`
/// (without them, `${input:ID}` is [`ExpandError::Unsupported`]).
pub(crate) fn expand(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
    inputs: Option<Inputs<'_>>,
) -> Result<String, ExpandError> {
    let mut expanded = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        expanded.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find('}').ok_or(ExpandError::Unterminated)?;
        expanded.push_str(&resolve(&after[..end], lookup, inputs)?);
        rest = &after[end + 1..];
    }
    expanded.push_str(rest);
    Ok(expanded)
}

/// The value of one `${inner}`.
fn resolve(
    inner: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
    inputs: Option<Inputs<'_>>,
) -> Result<String, ExpandError> {
    if let (Some(id), Some(inputs)) = (inner.strip_prefix("input:"), inputs) {
        return inputs(id).map_err(|why| ExpandError::Input(id.to_owned(), why));
    }
    let (name, default) = match inner.split_once(":-") {
        Some((name, default)) => (name, Some(default)),
        None => (inner, None),
    };
    let name = name.strip_prefix("env:").unwrap_or(name);
    if !is_variable_name(name) {
        return Err(ExpandError::Unsupported(inner.to_owned()));
    }
    match (lookup(name), default) {
        (Some(value), Some(_)) if !value.is_empty() => Ok(value),
        (Some(value), None) => Ok(value),
        (_, Some(default)) => Ok(default.to_owned()),
        (None, None) => Err(ExpandError::Unset(name.to_owned())),
    }
}

/// A shell variable name: a letter or `_`, then letters, digits and `_`.
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/ada".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    fn run(text: &str) -> Result<String, ExpandError> {
        expand(text, &env, None)
    }

    #[test]
    fn variables_defaults_and_the_vs_code_form() {
        assert_eq!(run("${HOME}/data").unwrap(), "/home/ada/data");
        assert_eq!(run("${env:HOME}").unwrap(), "/home/ada");
        assert_eq!(run("${MISSING:-fallback}").unwrap(), "fallback");
        assert_eq!(run("${EMPTY:-fallback}").unwrap(), "fallback", "an empty value takes the default");
        assert_eq!(run("${EMPTY}").unwrap(), "", "an empty value without a default is empty");
        assert_eq!(run("${HOME:-x}${MISSING:-}!").unwrap(), "/home/ada!");
        assert_eq!(run("a ${MISSING:-b:-c} d").unwrap(), "a b:-c d");
    }

    #[test]
    fn dollars_without_braces_and_expanded_text_stay_as_they_are() {
        assert_eq!(run("echo $HOME $1 $").unwrap(), "echo $HOME $1 $");
        let nested = |name: &str| (name == "A").then(|| "${HOME}".to_owned());
        assert_eq!(expand("${A}", &nested, None).unwrap(), "${HOME}");
    }

    #[test]
    fn unset_unterminated_and_unsupported_forms_are_errors() {
        assert_eq!(run("${MISSING}"), Err(ExpandError::Unset("MISSING".into())));
        assert_eq!(run("${env:MISSING}"), Err(ExpandError::Unset("MISSING".into())));
        assert_eq!(run("x ${HOME"), Err(ExpandError::Unterminated));
        assert_eq!(run("${input:token}"), Err(ExpandError::Unsupported("input:token".into())));
        assert_eq!(run("${}"), Err(ExpandError::Unsupported(String::new())));
        assert_eq!(run("${1X}"), Err(ExpandError::Unsupported("1X".into())));
    }

    #[test]
    fn inputs_are_asked_where_they_may_be() {
        let inputs =
            |id: &str| if id == "token" { Ok("s3cret".to_owned()) } else { Err("no such input".to_owned()) };
        assert_eq!(expand("Bearer ${input:token}", &env, Some(&inputs)).unwrap(), "Bearer s3cret");
        assert_eq!(
            expand("${input:other}", &env, Some(&inputs)),
            Err(ExpandError::Input("other".into(), "no such input".into()))
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, .. Default::default() })]

        /// Text without `${` comes back as written; any text expands or fails with a reason,
        /// never a panic; and a value is never expanded again (it may hold `${…}` itself).
        #[test]
        fn expansion_is_total_and_never_rescans(
            text in "[a-z$:{}\\-]{0,24}",
            value in "[a-z${}]{0,8}",
        ) {
            crate::fuzzing::expansion_holds(&text, &value);
        }
    }
}
