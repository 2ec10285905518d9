//! `conformance-client`: the modelctx client as the official MCP conformance suite drives it.
//!
//! The server URL is the last argument; the scenario is in `MCP_CONFORMANCE_SCENARIO`, its
//! data (when it has any) in `MCP_CONFORMANCE_CONTEXT`, and the revision in
//! `MCP_CONFORMANCE_PROTOCOL_VERSION`. Each scenario is what an application would do against
//! such a server — list, call, read — through the public `Client` API; the suite's server
//! judges the wire. Exits 0 when every step succeeded.

use std::process::ExitCode;
use std::sync::Arc;

use modelctx::auth::{
    Assertion, FetchLimits, Grant, Headless, OAuth, OAuthOptions, Secret, SigningKey, StaticClient,
};
use modelctx::client::egress::Egress;
use modelctx::client::{Client, ClientHandlers, ClientOptions, EraMode};
use modelctx::protocol::model::ElicitRequest;
use modelctx::protocol::types::Implementation;
use modelctx::protocol::{Era, ProtocolVersion, v2026};
use serde_json::{Map, Value, json};
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn")))
        .init();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance-client URL (scenario in MCP_CONFORMANCE_SCENARIO)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let version =
        std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").ok().and_then(|v| ProtocolVersion::parse(&v));
    let context = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    match run(&url, &scenario, version, &context).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-client: {scenario}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Why a scenario could not be played: the client's error, the OAuth setup's, or a check.
type Failure = Box<dyn std::error::Error + Send + Sync>;

/// A legacy revision pins the `initialize` handshake; otherwise the client negotiates. An
/// `auth/*` scenario gets the OAuth client its context calls for.
fn options(
    url: &str,
    scenario: &str,
    version: Option<ProtocolVersion>,
    context: &Value,
) -> Result<ClientOptions, Failure> {
    let mode = match version.map(ProtocolVersion::era) {
        // The Skills extension is 2026-07-28's (a 2025-11-25 server declares no extensions);
        // the suite runs its client scenarios on no revision's timeline.
        _ if scenario.starts_with("sep-2640-") => EraMode::Auto,
        Some(Era::Legacy) => EraMode::Legacy,
        _ => EraMode::Auto,
    };
    let auth = match scenario.strip_prefix("auth/") {
        Some(_) => Some(Arc::new(oauth(url, context)?) as _),
        None => None,
    };
    Ok(ClientOptions {
        mode,
        handlers: handlers(),
        auth,
        ..ClientOptions::new(Implementation::new("modelctx-conformance-client", env!("CARGO_PKG_VERSION")))
    })
}

/// The client metadata document URL the suite's authorization servers expect of a client
/// that uses Client ID Metadata Documents.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The OAuth client for `url` as the scenario's context describes it: a pre-registered or
/// client-credentials client, a workload's assertion, an enterprise ID token, or else a
/// person who approves at once (the suite's authorization servers redirect without a page).
/// The suite's servers listen on localhost over plain HTTP, so loopback is allowed.
fn oauth(url: &str, context: &Value) -> Result<OAuth, modelctx::auth::AuthError> {
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_owned);
    let secret = |key: &str| text(key).map(Secret::new);
    let client = |issuer: Option<String>| {
        text("client_id").map(|client_id| StaticClient {
            client_id,
            client_secret: secret("client_secret"),
            signing_key: secret("private_key_pem").map(|pem| SigningKey {
                pem,
                algorithm: text("signing_algorithm").unwrap_or_else(|| "ES256".into()),
            }),
            issuer,
        })
    };
    let name = text("name").unwrap_or_default();
    let grant = match name.as_str() {
        "auth/client-credentials-jwt" | "auth/client-credentials-basic" => Grant::ClientCredentials,
        "auth/wif-jwt-bearer" => {
            Grant::JwtBearer(Assertion::Value(secret("valid_jwt").unwrap_or_else(|| Secret::new(""))))
        }
        "auth/enterprise-managed-authorization" => Grant::EnterpriseManaged {
            idp_token_endpoint: text("idp_token_endpoint").unwrap_or_default(),
            id_token: Assertion::Value(secret("idp_id_token").unwrap_or_else(|| Secret::new(""))),
            idp_client_id: text("idp_client_id"),
            idp_client_secret: None,
        },
        _ => Grant::AuthorizationCode(Arc::new(Headless::new("http://localhost:3000/callback"))),
    };
    let mut options = OAuthOptions::new(grant);
    options.client = client(text("issuer"));
    options.client_metadata_url = Some(CLIENT_METADATA_URL.into());
    options.client_name = "modelctx conformance client".into();
    options.fetch = FetchLimits { egress: Egress::Any, ..FetchLimits::default() };
    OAuth::new(url, options)
}

/// Answers like a user who accepts every form with its defaults, a model that always says
/// the same thing, and a host with no roots.
fn handlers() -> ClientHandlers {
    ClientHandlers::default()
        .on_elicit(|request| async move {
            let content = match request {
                ElicitRequest::Form { requested_schema, .. } => {
                    Some(defaults(&serde_json::to_value(requested_schema).unwrap_or_default()))
                }
                ElicitRequest::Url { .. } => None,
            };
            let answer = json!({"action": "accept", "content": content});
            serde_json::from_value::<v2026::ElicitResult>(answer).expect("a valid elicitation answer")
        })
        .on_sample(|_| async {
            let answer = json!({
                "role": "assistant",
                "content": {"type": "text", "text": "modelctx conformance sample"},
                "model": "modelctx-conformance-client",
                "stopReason": "endTurn",
            });
            Ok(serde_json::from_value(answer).expect("a valid sampling answer"))
        })
        .on_roots(|| async { Vec::new() })
}

/// A form filled with each property's `default`, or a plain value of its type.
fn defaults(schema: &Value) -> Value {
    let properties = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let filled: Map<String, Value> = properties
        .into_iter()
        .map(|(name, property)| {
            let value = property.get("default").cloned().unwrap_or_else(|| {
                match (
                    property.get("enum").and_then(|e| e.get(0)),
                    property.get("type").and_then(Value::as_str),
                ) {
                    (Some(first), _) => first.clone(),
                    (None, Some("boolean")) => json!(true),
                    (None, Some("integer" | "number")) => json!(0),
                    _ => json!(""),
                }
            });
            (name, value)
        })
        .collect();
    Value::Object(filled)
}

async fn run(
    url: &str,
    scenario: &str,
    version: Option<ProtocolVersion>,
    context: &Value,
) -> Result<(), Failure> {
    let options = options(url, scenario, version, context)?;
    let client = Client::connect_http(url, Default::default(), options).await?;
    match scenario {
        // A client uses only what the server declared (LIFE-08): `initialize`'s server
        // declares no tools.
        "initialize" | "json-schema-ref-no-deref" => {
            if client.server().capabilities.tools.is_some() {
                client.list_tools().await?;
            }
        }
        "tools_call" => {
            client.call_tool("add_numbers", json!({"a": 5, "b": 3})).await?;
        }
        "http-custom-headers" => {
            client.list_tools().await?;
            let calls = context.get("toolCalls").and_then(Value::as_array).cloned().unwrap_or_default();
            for call in calls {
                let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
                client.call_tool(name, call.get("arguments").cloned().unwrap_or(json!({}))).await?;
            }
        }
        "http-invalid-tool-headers" => {
            // Tools with invalid `x-mcp-header` annotations never reach the listing.
            for tool in client.list_tools().await? {
                client.call_tool(&tool.name, json!({"region": "us-west1"})).await?;
            }
        }
        "json-schema-2020-12-preservation" => {
            let tools = client.list_tools().await?;
            let tool = tools
                .iter()
                .find(|tool| tool.name == "json_schema_2020_12_tool")
                .ok_or_else(|| Failure::from("tools/list lists no json_schema_2020_12_tool"))?;
            client.call_tool("json_schema_echo", json!({"schema": tool.input_schema})).await?;
        }
        "sse-retry" => {
            client.list_tools().await?;
            client.call_tool("test_reconnection", json!({})).await?;
        }
        "elicitation-sep1034-client-defaults" => {
            client.call_tool("test_client_elicitation_defaults", json!({})).await?;
        }
        "sep-2322-client-request-state" => {
            for tool in [
                "test_mrtr_echo_state",
                "test_mrtr_no_state",
                "test_mrtr_unrelated",
                "test_mrtr_no_result_type",
            ] {
                client.call_tool(tool, json!({})).await?;
            }
        }
        // Skills (SEP-2640): listing reads no file; loading reads the SKILL.md alone and
        // verifies it, and only a verified skill's other files are read.
        "sep-2640-client-no-prefetch" => {
            client.list_skills().await?;
        }
        skills if skills.starts_with("sep-2640-client-verify-") => {
            for entry in client.list_skills().await? {
                let skill = client.load_skill(&entry).await?;
                for file in entry.resources.iter().filter(|file| file.uri != entry.uri) {
                    client.read_skill_file(&skill, &file.uri).await?;
                }
            }
        }
        // Everything else (request-metadata, http-standard-headers, …): use all the server offers.
        _ => exercise(&client).await?,
    }
    Ok(())
}

/// Lists every kind of primitive the server declares and uses each one once.
async fn exercise(client: &Client) -> Result<(), Failure> {
    let offers = client.server().capabilities.clone();
    if offers.tools.is_some() {
        for tool in client.list_tools().await? {
            client.call_tool(&tool.name, json!({})).await?;
        }
    }
    if offers.resources.is_some() {
        for resource in client.list_resources().await? {
            client.read_resource(&resource.uri).await?;
        }
    }
    if offers.prompts.is_some() {
        for prompt in client.list_prompts().await? {
            client.get_prompt(&prompt.name, json!({})).await?;
        }
    }
    Ok(())
}
