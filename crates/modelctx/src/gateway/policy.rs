//! Who may see and use what through the gateway: rules that match a verified principal
//! (issuer, subject, scopes, claims) to the tools, prompts and resources it may list and use.
//!
//! ```json
//! {"mcpServers": {…},
//!  "policies": [
//!    {"name": "operators", "principals": {"scopes": ["mcp:admin"]}, "allow": {"tools": ["*"], "prompts": ["*"], "resources": ["*"]}},
//!    {"name": "analysts", "principals": {"claims": {"groups": "analysts"}},
//!     "allow": {"readOnlyTools": true, "resources": ["mcp-host://search/*"]},
//!     "deny": {"tools": ["search__export*"]}}
//!  ]}
//! ```
//!
//! A rule applies to a caller when every condition of its `principals` holds: `issuer` equal,
//! `subject` matching (`*` for any run of characters), every one of `scopes` granted, and each
//! of `claims` equal to the token's claim (or one of its values, when the claim is a list).
//! A rule without conditions applies to every caller, one with no token included. A
//! definition is allowed when a rule that applies allows it (by name, `*` patterns as
//! `allowTools` takes them; for tools also `readOnlyTools`, those whose annotations say they
//! only read) and none that applies denies it. Listings show each caller what it may use, and
//! nothing else; a call, a `prompts/get`, a `resources/read` or a completion of anything else
//! is refused with `-32602` naming the rule that denies it, or saying that none allows it.
//! Without policies, every caller may use everything (the gateway's authorization and scopes
//! still apply). Plain matching covers these rules; no expression language is embedded.

use std::collections::BTreeMap;

use modelctx_protocol::{JsonObject, Method};
use serde::Deserialize;
use serde_json::Value;

use crate::host::Host;
use crate::host::config::matches;
use crate::server::Principal;
use crate::server::middleware::McpRequest;

/// The gateway's rules, in the order written.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    rules: Vec<Rule>,
}

/// One rule: whom it applies to, what it allows and what it denies.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Rule {
    /// Named in refusals.
    name: String,
    #[serde(default)]
    principals: Principals,
    #[serde(default)]
    allow: Definitions,
    #[serde(default)]
    deny: Definitions,
}

/// The callers a rule applies to.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Principals {
    issuer: Option<String>,
    subject: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
    #[serde(default)]
    claims: BTreeMap<String, String>,
}

/// Definitions by name (`*` patterns); `readOnlyTools` adds the tools that say they only read.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Definitions {
    #[serde(default)]
    tools: Vec<String>,
    #[serde(default)]
    read_only_tools: bool,
    #[serde(default)]
    prompts: Vec<String>,
    #[serde(default)]
    resources: Vec<String>,
}

/// What a caller asks for.
#[derive(Clone, Copy, Debug)]
enum Target<'a> {
    /// A tool by its gateway name, and whether it says it only reads.
    Tool(&'a str, bool),
    Prompt(&'a str),
    /// A resource by its host URI, or a template by its host URI template.
    Resource(&'a str),
}

impl Target<'_> {
    fn describe(self) -> String {
        match self {
            Self::Tool(name, _) => format!("tool {name:?}"),
            Self::Prompt(name) => format!("prompt {name:?}"),
            Self::Resource(uri) => format!("resource {uri:?}"),
        }
    }
}

impl Principals {
    fn apply_to(&self, principal: Option<&Principal>) -> bool {
        let unconditional = self.issuer.is_none()
            && self.subject.is_none()
            && self.scopes.is_empty()
            && self.claims.is_empty();
        let Some(principal) = principal else { return unconditional };
        self.issuer.as_ref().is_none_or(|issuer| principal.issuer.as_ref() == Some(issuer))
            && self.subject.as_ref().is_none_or(|subject| matches(subject, &principal.subject))
            && self.scopes.iter().all(|scope| principal.scopes.contains(scope))
            && self.claims.iter().all(|(claim, wanted)| match principal.claims.get(claim) {
                Some(Value::String(value)) => value == wanted,
                Some(Value::Array(values)) => values.iter().any(|value| value.as_str() == Some(wanted)),
                // A number or a boolean, written as such in the rule ("42", "true").
                Some(other) => serde_json::from_str::<Value>(wanted).is_ok_and(|wanted| wanted == *other),
                None => false,
            })
    }
}

impl Definitions {
    fn holds(&self, target: Target<'_>) -> bool {
        let named = |patterns: &[String], name: &str| patterns.iter().any(|pattern| matches(pattern, name));
        match target {
            Target::Tool(name, read_only) => named(&self.tools, name) || (self.read_only_tools && read_only),
            Target::Prompt(name) => named(&self.prompts, name),
            Target::Resource(uri) => named(&self.resources, uri),
        }
    }
}

impl Policy {
    /// The rules of a configuration's `policies` (an array); an error names the rule and what
    /// is wrong.
    pub fn from_json(policies: &Value) -> Result<Self, String> {
        let Value::Array(rules) = policies else {
            return Err(format!("\"policies\" must be an array of rules, not {policies}"));
        };
        let rules = rules
            .iter()
            .enumerate()
            .map(|(at, rule)| {
                serde_path_to_error::deserialize::<_, Rule>(rule.clone())
                    .map_err(|e| format!("policies[{at}]: {}: {}", e.path(), e.inner()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { rules })
    }

    /// Whether there are rules at all (without them everything is allowed).
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// `Ok` when `principal` may use `target`; otherwise the refusal, naming the rule.
    fn decide(&self, principal: Option<&Principal>, target: Target<'_>) -> Result<(), String> {
        if self.rules.is_empty() {
            return Ok(());
        }
        let applying: Vec<&Rule> =
            self.rules.iter().filter(|rule| rule.principals.apply_to(principal)).collect();
        if let Some(rule) = applying.iter().find(|rule| rule.deny.holds(target)) {
            return Err(format!("{} is denied to this caller by policy {:?}", target.describe(), rule.name));
        }
        if applying.iter().any(|rule| rule.allow.holds(target)) {
            return Ok(());
        }
        let names: Vec<&str> = applying.iter().map(|rule| rule.name.as_str()).collect();
        Err(if names.is_empty() {
            format!("{} is not allowed: no policy applies to this caller", target.describe())
        } else {
            format!(
                "{} is not allowed to this caller: no policy allows it (policies applying: {})",
                target.describe(),
                names.join(", ")
            )
        })
    }
}

impl Policy {
    /// Why `request`, about one definition, is refused to its caller (naming the rule); `None`
    /// when it is allowed or not about one definition. `host` tells whether a tool only reads.
    pub(super) fn refusal(&self, request: &McpRequest, host: &Host) -> Option<String> {
        let target = target(request, host)?;
        self.decide(request.ctx.principal(), target.as_target()).err()
    }

    /// Whether `method`'s answer is a listing this policy filters per caller.
    pub(super) fn filters(method: &Method) -> bool {
        listed_member(method).is_some()
    }

    /// The listing `result` of `method` with only what `principal` may use, and marked
    /// `private` where it has cache hints: each caller sees its own, which no cache may share.
    pub(super) fn filter(
        &self,
        method: &Method,
        principal: Option<&Principal>,
        mut result: JsonObject,
    ) -> JsonObject {
        let Some((member, kind)) = listed_member(method) else { return result };
        if let Some(Value::Array(items)) = result.get_mut(member) {
            items.retain(|item| self.decide(principal, kind.target_of(item)).is_ok());
        }
        if result.contains_key("ttlMs") || result.contains_key("cacheScope") {
            result.insert("cacheScope".into(), Value::String("private".into()));
        }
        result
    }
}

/// What a listed item is.
#[derive(Clone, Copy)]
enum Listed {
    Tool,
    Prompt,
    Resource,
    Template,
}

impl Listed {
    fn target_of(self, item: &Value) -> Target<'_> {
        let text = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or_default();
        match self {
            Self::Tool => Target::Tool(text("name"), reads_only(item.get("annotations"))),
            Self::Prompt => Target::Prompt(text("name")),
            Self::Resource => Target::Resource(text("uri")),
            Self::Template => Target::Resource(text("uriTemplate")),
        }
    }
}

/// The member a listing method's result holds its items in, and what they are.
fn listed_member(method: &Method) -> Option<(&'static str, Listed)> {
    match method {
        Method::ListTools => Some(("tools", Listed::Tool)),
        Method::ListPrompts => Some(("prompts", Listed::Prompt)),
        Method::ListResources => Some(("resources", Listed::Resource)),
        Method::ListResourceTemplates => Some(("resourceTemplates", Listed::Template)),
        _ => None,
    }
}

/// Whether annotations say the tool only reads.
fn reads_only(annotations: Option<&Value>) -> bool {
    annotations.and_then(|a| a.get("readOnlyHint")).and_then(Value::as_bool) == Some(true)
}

/// A request's target, owned.
enum Owned {
    Tool(String, bool),
    Prompt(String),
    Resource(String),
}

impl Owned {
    fn as_target(&self) -> Target<'_> {
        match self {
            Self::Tool(name, read_only) => Target::Tool(name, *read_only),
            Self::Prompt(name) => Target::Prompt(name),
            Self::Resource(uri) => Target::Resource(uri),
        }
    }
}

/// What `request` is about, when it is about one definition.
fn target(request: &McpRequest, host: &Host) -> Option<Owned> {
    let params = request.params.as_ref();
    let text = |params: Option<&JsonObject>, key: &str| params?.get(key)?.as_str().map(str::to_owned);
    match &request.method {
        Method::CallTool => {
            let name = text(params, "name")?;
            let read_only = host.tool(&name).is_some_and(|tool| {
                tool.tool.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true)
            });
            Some(Owned::Tool(name, read_only))
        }
        Method::GetPrompt => text(params, "name").map(Owned::Prompt),
        Method::ReadResource | Method::Subscribe => text(params, "uri").map(Owned::Resource),
        Method::Complete => {
            let reference = params?.get("ref")?.as_object();
            match text(reference, "type")?.as_str() {
                "ref/prompt" => text(reference, "name").map(Owned::Prompt),
                _ => text(reference, "uri").map(Owned::Resource),
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn principal(subject: &str, scopes: &[&str], claims: Value) -> Principal {
        let mut principal = Principal::new(
            Some("https://issuer".into()),
            subject,
            scopes.iter().map(|s| (*s).to_owned()).collect(),
        );
        principal.claims = claims.as_object().cloned().unwrap_or_default();
        principal
    }

    #[test]
    fn deny_wins_claims_match_lists_and_a_rule_without_conditions_applies_to_anyone() {
        let policy = Policy::from_json(&json!([
            {"name": "public", "allow": {"prompts": ["hello"]}},
            {"name": "team", "principals": {"issuer": "https://issuer", "claims": {"groups": "team", "level": "3"}},
             "allow": {"tools": ["a__*"], "readOnlyTools": true}, "deny": {"tools": ["a__drop"]}}
        ]))
        .unwrap();
        let member = principal("ann", &[], json!({"groups": ["staff", "team"], "level": 3}));
        assert!(policy.decide(Some(&member), Target::Tool("a__get", false)).is_ok());
        assert!(policy.decide(Some(&member), Target::Tool("b__read", true)).is_ok(), "read-only tools");
        let denied = policy.decide(Some(&member), Target::Tool("a__drop", false)).unwrap_err();
        assert_eq!(denied, "tool \"a__drop\" is denied to this caller by policy \"team\"");
        assert!(
            policy.decide(None, Target::Prompt("hello")).is_ok(),
            "no conditions: anyone, even without a token"
        );
        let outsider = principal("bob", &[], json!({"groups": "others", "level": 3}));
        let refused = policy.decide(Some(&outsider), Target::Tool("a__get", false)).unwrap_err();
        assert_eq!(
            refused,
            "tool \"a__get\" is not allowed to this caller: no policy allows it (policies applying: public)"
        );
        assert!(Policy::default().decide(None, Target::Resource("x://y")).is_ok(), "no rules: everything");
    }

    #[test]
    fn a_rule_that_does_not_read_is_refused_naming_where() {
        let error = Policy::from_json(&json!([{"name": "r", "allow": {"tool": ["x"]}}])).unwrap_err();
        assert!(error.starts_with("policies[0]: allow"), "{error}");
        assert!(Policy::from_json(&json!({"name": "r"})).unwrap_err().contains("must be an array"));
    }
}
