//! RFC 6570 URI templates, as MCP resource templates use them (`ResourceTemplate.uriTemplate`).
//!
//! [`UriTemplate::parse`] reads literals and expressions with every RFC 6570 operator (none,
//! `+`, `#`, `.`, `/`, `;`, `?`, `&`), variable lists (`{x,y}`) and the `:N` prefix and `*`
//! explode modifiers. [`UriTemplate::expand_values`] expands all four levels: strings, lists
//! and associative arrays ([`TemplateValue`]), with `:N` and `*` for every operator;
//! [`UriTemplate::expand`] is its shorthand for string values. [`UriTemplate::match_uri`] is
//! the inverse that routes `resources/read` to a template: it returns the percent-decoded
//! values when a URI matches.
//!
//! # Matching rules
//!
//! - Literal text matches exactly, either as written in the template or in the
//!   percent-encoded form [`UriTemplate::expand`] writes it in (characters that may not
//!   appear in a URI, such as a space).
//! - `{var}`, and the `.`, `/` and `;` operators, match one segment: never `/`, `?` or `#`,
//!   nor the first character of the literal that follows, nor the operator character of the
//!   `.`, `/`, `;`, `?`, `&` or `#` expressions between them and that literal. `;` values
//!   never hold `;`.
//! - `{+var}` and `{#var}` may match `/`; they take as much as they can while the rest of
//!   the template still matches. `{+var}` never matches `?` when a query expression comes
//!   after it, nor `#` when a `#` expression comes after it.
//! - In a list, a value never holds the operator's separator (`,` `.` `/` `;` `&`), and
//!   values fill the variables from the left: `{x,y}` against `768` gives `x` only.
//! - Expressions without a leading character (none and `+`) need at least one character
//!   per value. The others are optional as a whole (`{/a}` matches nothing or `/v`), and their
//!   values may be empty.
//! - `;` items, and `?`/`&` expressions that are not at the end, match `name=value` (or a bare
//!   `name`, an empty value) in the template's order, each optional; `?`/`&` values there
//!   never hold `&` or `#`.
//! - The `?` and `&` expressions at the end of the template match the query as a whole: its
//!   parameters may come in any order and are all optional, but each at most once, and a
//!   parameter the template does not name, an empty parameter or a `#` means no match.
//! - Values are percent-decoded (`+` stays `+`); a value that does not decode to UTF-8 means
//!   no match. `:N` and `*` do not change matching, which reads every value as one string.
//! - Matching runs in time proportional to the URI's length times the template's, whatever
//!   the input (a Pike VM, no backtracking).
//!
//! ```
//! use std::collections::BTreeMap;
//! use modelctx_protocol::uri_template::{TemplateValue, UriTemplate};
//!
//! let template = UriTemplate::parse("weather://forecast/{city}{?units,days}").unwrap();
//! let values = template.match_uri("weather://forecast/S%C3%A3o%20Paulo?days=3").unwrap();
//! assert_eq!(values["city"], "São Paulo");
//! assert_eq!(values["days"], "3");
//! assert!(!values.contains_key("units"));
//!
//! let values = BTreeMap::from([("city".to_owned(), "Zürich".to_owned())]);
//! assert_eq!(template.expand(&values), "weather://forecast/Z%C3%BCrich");
//!
//! let template = UriTemplate::parse("files://{owner}{/path*}{?tag*}").unwrap();
//! let values = BTreeMap::from([
//!     ("owner".to_owned(), TemplateValue::from("ana")),
//!     ("path".to_owned(), TemplateValue::from(["docs", "a b.md"])),
//!     ("tag".to_owned(), TemplateValue::from(["x", "y"])),
//! ]);
//! assert_eq!(template.expand_values(&values), "files://ana/docs/a%20b.md?tag=x&tag=y");
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

mod compile;
mod expand;
pub(crate) use expand::encode_into;
#[cfg(test)]
mod tests;
mod value;
mod vm;

pub use value::TemplateValue;

/// A parsed RFC 6570 URI template.
#[derive(Clone)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
    program: compile::Program,
}

/// Why a string is not a URI template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UriTemplateError {
    /// Byte offset in the template where the problem is.
    pub position: usize,
    /// What the problem is.
    pub kind: UriTemplateErrorKind,
}

/// The problems [`UriTemplate::parse`] reports.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum UriTemplateErrorKind {
    /// A `{` with no `}` before the next `{` or the end.
    UnclosedExpression,
    /// A `}` outside an expression.
    UnexpectedCloseBrace,
    /// `{}`.
    EmptyExpression,
    /// An operator RFC 6570 reserves for extensions: `=`, `,`, `!`, `@` or `|`.
    ReservedOperator(char),
    /// An empty entry in a variable list (`{a,}`, `{+}`).
    MissingVariableName,
    /// A character that may not appear at this place in a variable name or modifier.
    InvalidCharacter(char),
    /// A `:` prefix length that is not a number from 1 to 9999.
    InvalidPrefixLength,
    /// A variable that appears twice in the template; holds its name.
    DuplicateVariable(String),
}

impl fmt::Display for UriTemplateErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnclosedExpression => f.write_str("'{' has no matching '}'"),
            Self::UnexpectedCloseBrace => f.write_str("'}' outside an expression"),
            Self::EmptyExpression => f.write_str("empty expression '{}'"),
            Self::ReservedOperator(op) => {
                write!(f, "operator {op:?} is reserved by RFC 6570 for future extensions")
            }
            Self::MissingVariableName => f.write_str("missing variable name"),
            Self::InvalidCharacter(c) => write!(
                f,
                "{c:?} is not allowed here: a variable name holds letters, digits, '_', %XX and inner '.', and may end with ':N' or '*'"
            ),
            Self::InvalidPrefixLength => f.write_str("the ':' prefix length must be a number from 1 to 9999"),
            Self::DuplicateVariable(name) => write!(f, "variable {name:?} appears more than once"),
        }
    }
}

impl fmt::Display for UriTemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid URI template at byte {}: {}", self.position, self.kind)
    }
}

impl std::error::Error for UriTemplateError {}

/// An expression operator, named after RFC 6570 section 3.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operator {
    /// `{var}`
    Simple,
    /// `{+var}`
    Reserved,
    /// `{#var}`
    Fragment,
    /// `{.var}`
    Label,
    /// `{/var}`
    Path,
    /// `{;var}`
    PathParam,
    /// `{?var}`
    Query,
    /// `{&var}`
    QueryContinuation,
}

impl Operator {
    fn from_char(c: char) -> Option<Self> {
        Some(match c {
            '+' => Self::Reserved,
            '#' => Self::Fragment,
            '.' => Self::Label,
            '/' => Self::Path,
            ';' => Self::PathParam,
            '?' => Self::Query,
            '&' => Self::QueryContinuation,
            _ => return None,
        })
    }

    /// The character written before the first value, if any.
    fn first(self) -> Option<char> {
        match self {
            Self::Simple | Self::Reserved => None,
            Self::Fragment => Some('#'),
            Self::Label => Some('.'),
            Self::Path => Some('/'),
            Self::PathParam => Some(';'),
            Self::Query => Some('?'),
            Self::QueryContinuation => Some('&'),
        }
    }

    /// The character written between values.
    fn separator(self) -> char {
        match self {
            Self::Simple | Self::Reserved | Self::Fragment => ',',
            Self::Label => '.',
            Self::Path => '/',
            Self::PathParam => ';',
            Self::Query | Self::QueryContinuation => '&',
        }
    }

    /// Whether values are written as `name=value`.
    fn named(self) -> bool {
        matches!(self, Self::PathParam | Self::Query | Self::QueryContinuation)
    }

    /// Whether reserved characters and `%XX` triplets pass through expansion unencoded.
    fn allows_reserved(self) -> bool {
        matches!(self, Self::Reserved | Self::Fragment)
    }

    fn is_query(self) -> bool {
        matches!(self, Self::Query | Self::QueryContinuation)
    }
}

/// One variable of an expression.
#[derive(Clone, Debug)]
struct VarSpec {
    name: String,
    /// The `:N` modifier.
    prefix: Option<usize>,
    /// The `*` modifier.
    explode: bool,
}

#[derive(Clone, Debug)]
struct Expression {
    op: Operator,
    vars: Vec<VarSpec>,
}

#[derive(Clone, Debug)]
enum Part {
    Literal(String),
    Expression(Expression),
}

impl UriTemplate {
    /// Parses a template.
    pub fn parse(template: &str) -> Result<Self, UriTemplateError> {
        let bytes = template.as_bytes();
        let mut parts = Vec::new();
        let mut seen = BTreeSet::new();
        let mut literal_start = 0;
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'{' => {
                    if literal_start < i {
                        parts.push(Part::Literal(template[literal_start..i].to_owned()));
                    }
                    let close = match template[i + 1..].find(['{', '}']) {
                        Some(offset) if bytes[i + 1 + offset] == b'}' => i + 1 + offset,
                        _ => return Err(error(i, UriTemplateErrorKind::UnclosedExpression)),
                    };
                    parts.push(Part::Expression(parse_expression(template, i, close, &mut seen)?));
                    i = close + 1;
                    literal_start = i;
                }
                b'}' => return Err(error(i, UriTemplateErrorKind::UnexpectedCloseBrace)),
                _ => i += 1,
            }
        }
        if literal_start < template.len() {
            parts.push(Part::Literal(template[literal_start..].to_owned()));
        }
        let program = compile::Program::compile(&parts);
        Ok(Self { source: template.to_owned(), parts, program })
    }

    /// The template as it was parsed.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names, in the order they appear.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts
            .iter()
            .flat_map(|part| match part {
                Part::Literal(_) => [].iter(),
                Part::Expression(expr) => expr.vars.iter(),
            })
            .map(|var| var.name.as_str())
    }

    /// Expands the template with string values: [`UriTemplate::expand_values`] with every
    /// value a [`TemplateValue::String`].
    pub fn expand(&self, values: &BTreeMap<String, String>) -> String {
        let values = values.iter().map(|(name, value)| (name.clone(), value.as_str().into())).collect();
        self.expand_values(&values)
    }

    /// Expands the template (RFC 6570 section 3, up to level 4) with strings, lists and
    /// associative arrays. Variables without a value, empty lists and empty maps are undefined
    /// and skipped with their operator's rules. A `:N` prefix applies to strings only: a list
    /// or map under a prefix, which RFC 6570 does not allow, is skipped too.
    pub fn expand_values(&self, values: &BTreeMap<String, TemplateValue>) -> String {
        expand::expand(&self.parts, values)
    }

    /// Matches a URI against the template and returns the percent-decoded value of every
    /// variable the URI holds, or `None` when the URI does not match. See the
    /// [module documentation](crate::uri_template) for the rules.
    pub fn match_uri(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        self.program.match_uri(uri)
    }
}

fn error(position: usize, kind: UriTemplateErrorKind) -> UriTemplateError {
    UriTemplateError { position, kind }
}

/// Parses the expression between `template[open]` (`{`) and `template[close]` (`}`).
fn parse_expression<'t>(
    template: &'t str,
    open: usize,
    close: usize,
    seen: &mut BTreeSet<&'t str>,
) -> Result<Expression, UriTemplateError> {
    let Some(first) = template[open + 1..close].chars().next() else {
        return Err(error(open, UriTemplateErrorKind::EmptyExpression));
    };
    let (op, mut start) = match Operator::from_char(first) {
        Some(op) => (op, open + 2),
        None if matches!(first, '=' | ',' | '!' | '@' | '|') => {
            return Err(error(open + 1, UriTemplateErrorKind::ReservedOperator(first)));
        }
        None => (Operator::Simple, open + 1),
    };
    let mut vars = Vec::new();
    for spec in template[start..close].split(',') {
        let var = parse_varspec(spec, start)?;
        let name = &spec[..var.name.len()];
        if !seen.insert(name) {
            return Err(error(start, UriTemplateErrorKind::DuplicateVariable(var.name)));
        }
        vars.push(var);
        start += spec.len() + 1;
    }
    Ok(Expression { op, vars })
}

/// Parses `varname [ ":" max-length / "*" ]`; `at` is the byte offset of `spec`.
fn parse_varspec(spec: &str, at: usize) -> Result<VarSpec, UriTemplateError> {
    if spec.is_empty() {
        return Err(error(at, UriTemplateErrorKind::MissingVariableName));
    }
    let bytes = spec.as_bytes();
    let is_hex = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_hexdigit);
    let starts_varchar = |i: usize| match bytes.get(i) {
        Some(b'%') => is_hex(i + 1) && is_hex(i + 2),
        Some(b) => b.is_ascii_alphanumeric() || *b == b'_',
        None => false,
    };
    let mut end = 0;
    loop {
        if starts_varchar(end) {
            end += if bytes[end] == b'%' { 3 } else { 1 };
        } else if end > 0 && bytes.get(end) == Some(&b'.') && starts_varchar(end + 1) {
            end += 1;
        } else {
            break;
        }
    }
    let invalid = |i: usize| {
        let c = spec[i..].chars().next().unwrap_or('\0');
        error(at + i, UriTemplateErrorKind::InvalidCharacter(c))
    };
    if end == 0 {
        return Err(invalid(0));
    }
    let name = spec[..end].to_owned();
    let explode = &spec[end..] == "*";
    let prefix = match &spec[end..] {
        "" | "*" => None,
        rest if rest.starts_with(':') => {
            let digits = &rest[1..];
            let valid = (1..=4).contains(&digits.len())
                && digits.bytes().all(|b| b.is_ascii_digit())
                && !digits.starts_with('0');
            if !valid {
                return Err(error(at + end, UriTemplateErrorKind::InvalidPrefixLength));
            }
            digits.parse().ok()
        }
        rest if rest.starts_with('*') => return Err(invalid(end + 1)),
        _ => return Err(invalid(end)),
    };
    Ok(VarSpec { name, prefix, explode })
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl fmt::Debug for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("UriTemplate").field(&self.source).finish()
    }
}

impl FromStr for UriTemplate {
    type Err = UriTemplateError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// Two templates are equal when their text is.
impl PartialEq for UriTemplate {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for UriTemplate {}

impl Hash for UriTemplate {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.source.hash(state);
    }
}
