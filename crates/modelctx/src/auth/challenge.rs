//! `WWW-Authenticate` challenges (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9449 §7.1): what a
//! resource server says when it refuses a request, read by the client and written by the
//! server.
//!
//! A header holds one or more challenges, each a scheme and then either auth-params
//! (`name=token` or `name="quoted string"`, comma-separated) or a token68. Several challenges
//! share the commas: `Bearer realm="a", scope="x", DPoP algs="ES256"` is two challenges.

use std::fmt;

/// One challenge: a scheme (`Bearer`, `DPoP`, …) and its parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Challenge {
    /// The authentication scheme, as sent (compare with [`Challenge::is`]).
    pub scheme: String,
    /// The auth-params in order, names lowercased, values unquoted.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// A challenge of `scheme` with no parameters yet.
    pub fn new(scheme: impl Into<String>) -> Self {
        Self { scheme: scheme.into(), params: Vec::new() }
    }

    /// The same challenge with `name="value"` added.
    pub fn param(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.params.push((name.into().to_ascii_lowercase(), value.into()));
        self
    }

    /// Whether the scheme is `scheme` (schemes are case-insensitive).
    pub fn is(&self, scheme: &str) -> bool {
        self.scheme.eq_ignore_ascii_case(scheme)
    }

    /// The value of parameter `name` (case-insensitive), when present.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value.as_str())
    }

    /// The `error` parameter (`invalid_token`, `insufficient_scope`, `use_dpop_nonce`, …).
    pub fn error(&self) -> Option<&str> {
        self.get("error")
    }

    /// The scopes of the `scope` parameter, split on spaces.
    pub fn scopes(&self) -> Vec<String> {
        self.get("scope").map(split_scopes).unwrap_or_default()
    }

    /// The `resource_metadata` URL of RFC 9728 §5.1.
    pub fn resource_metadata(&self) -> Option<&str> {
        self.get("resource_metadata")
    }
}

/// Splits a space-separated scope string, dropping empty entries.
pub fn split_scopes(scope: &str) -> Vec<String> {
    scope.split(' ').filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

impl fmt::Display for Challenge {
    /// The challenge as a header value: every parameter value quoted and escaped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.scheme)?;
        for (i, (name, value)) in self.params.iter().enumerate() {
            f.write_str(if i == 0 { " " } else { ", " })?;
            write!(f, "{name}=\"")?;
            for c in value.chars() {
                if c == '"' || c == '\\' {
                    f.write_str("\\")?;
                }
                write!(f, "{c}")?;
            }
            f.write_str("\"")?;
        }
        Ok(())
    }
}

/// The challenges of one or more `WWW-Authenticate` header values. What cannot be read is
/// skipped rather than failing the whole header: a server's odd extension parameter must not
/// hide its `Bearer` challenge.
pub fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> Vec<Challenge> {
    values.into_iter().flat_map(parse_one).collect()
}

fn parse_one(header: &str) -> Vec<Challenge> {
    let mut lexer = Lexer { rest: header };
    let mut challenges: Vec<Challenge> = Vec::new();
    loop {
        lexer.skip(|c| c == ' ' || c == '\t' || c == ',');
        let Some(word) = lexer.token() else {
            if lexer.rest.is_empty() {
                return challenges;
            }
            // Not a token where one belongs: skip to the next comma and go on.
            lexer.skip(|c| c != ',');
            continue;
        };
        lexer.skip(|c| c == ' ' || c == '\t');
        match challenges.last_mut() {
            // `name = value` after a scheme: a parameter of the current challenge.
            Some(current) if lexer.rest.starts_with('=') => {
                lexer.rest = lexer.rest[1..].trim_start_matches([' ', '\t']);
                let value = lexer.value().unwrap_or_default();
                current.params.push((word.to_ascii_lowercase(), value));
            }
            _ => {
                // A new scheme. Its first parameter (or token68) follows after a space.
                challenges.push(Challenge::new(word));
                if let Some(token68) = lexer.token68() {
                    let current = challenges.last_mut().expect("just pushed");
                    current.params.push((String::new(), token68));
                }
            }
        }
    }
}

struct Lexer<'a> {
    rest: &'a str,
}

impl Lexer<'_> {
    fn skip(&mut self, what: impl Fn(char) -> bool) {
        self.rest = self.rest.trim_start_matches(what);
    }

    /// A token (RFC 9110 tchar+).
    fn token(&mut self) -> Option<String> {
        let end = self.rest.find(|c: char| !is_tchar(c)).unwrap_or(self.rest.len());
        (end > 0).then(|| {
            let (token, rest) = self.rest.split_at(end);
            self.rest = rest;
            token.to_owned()
        })
    }

    /// A token68 directly after a scheme: its characters and any `=` padding, with nothing
    /// but the end or a comma after. Anything else (`name=value`) is left for the caller to
    /// read as a parameter.
    fn token68(&mut self) -> Option<String> {
        let end = self
            .rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || "-._~+/".contains(c)))
            .unwrap_or(self.rest.len());
        let after = &self.rest[end..];
        let padding = after.len() - after.trim_start_matches('=').len();
        let tail = after[padding..].trim_start_matches([' ', '\t']);
        if end == 0 || !(tail.is_empty() || tail.starts_with(',')) {
            return None;
        }
        let token = self.rest[..end + padding].to_owned();
        self.rest = &self.rest[end + padding..];
        Some(token)
    }

    /// A parameter's value: a quoted string (with `\` escapes) or a token.
    fn value(&mut self) -> Option<String> {
        let Some(quoted) = self.rest.strip_prefix('"') else { return self.token() };
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                '"' => {
                    self.rest = &quoted[i + 1..];
                    return Some(value);
                }
                c => value.push(c),
            }
        }
        // An unterminated quote: take the rest.
        self.rest = "";
        Some(value)
    }
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bearer_challenge_with_quoted_and_bare_values() {
        let found = parse([
            r#"Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp", scope="files:read files:write", error=insufficient_scope"#,
        ]);
        assert_eq!(found.len(), 1);
        let bearer = &found[0];
        assert!(bearer.is("bearer"));
        assert_eq!(
            bearer.resource_metadata(),
            Some("https://a.example/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(bearer.scopes(), ["files:read", "files:write"]);
        assert_eq!(bearer.error(), Some("insufficient_scope"));
    }

    #[test]
    fn two_challenges_in_one_header_and_across_headers() {
        let found = parse([r#"Bearer realm="x", DPoP algs="ES256 PS256", error="use_dpop_nonce""#, "Basic"]);
        let schemes: Vec<_> = found.iter().map(|c| c.scheme.as_str()).collect();
        assert_eq!(schemes, ["Bearer", "DPoP", "Basic"]);
        assert_eq!(found[1].get("ALGS"), Some("ES256 PS256"));
        assert_eq!(found[1].error(), Some("use_dpop_nonce"));
    }

    #[test]
    fn escapes_token68_and_junk() {
        let found =
            parse([r#"Bearer error_description="say \"no\"", , Negotiate abc123==, ;;;, Bearer scope="a""#]);
        assert_eq!(found[0].get("error_description"), Some(r#"say "no""#));
        assert!(found[1].is("Negotiate"));
        assert_eq!(found[1].get(""), Some("abc123=="));
        assert_eq!(found.last().and_then(|c| c.get("scope")), Some("a"));
    }

    #[test]
    fn what_is_written_reads_back() {
        let written = Challenge::new("Bearer")
            .param("error", "insufficient_scope")
            .param("scope", "a b")
            .param("error_description", r#"needs "a" \ b"#);
        assert_eq!(parse([written.to_string().as_str()]), vec![written]);
    }
}
