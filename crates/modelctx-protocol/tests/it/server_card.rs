//! Server cards (SEP-2127, experimental) against the extension's own `schema.json` and its
//! valid examples (`spec/extensions/server-card`).

use modelctx_protocol::server_card::{Remote, SCHEMA_URL, ServerCard};
use modelctx_protocol::types::Implementation;
use serde_json::{Value, json};

use crate::support::{schema_errors, spec_dir};

fn card_schema() -> Value {
    let path = spec_dir().join("extensions/server-card/schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("schema.json")).expect("it parses")
}

fn example(name: &str) -> Value {
    let path = spec_dir().join("extensions/server-card/examples").join(name);
    serde_json::from_str(&std::fs::read_to_string(path).expect("the example")).expect("it parses")
}

#[test]
fn the_drafts_valid_examples_parse_check_and_round_trip() {
    let schema = card_schema();
    for name in ["minimal.json", "templated-remote.json"] {
        let document = example(name);
        assert_eq!(schema_errors(&schema, "ServerCard", &document), None, "{name} is valid");
        let card: ServerCard = serde_json::from_value(document.clone()).expect(name);
        assert_eq!(card.validate(), Ok(()), "{name}");
        assert_eq!(serde_json::to_value(&card).unwrap(), document, "{name} round trips");
    }
}

#[test]
fn a_card_built_here_follows_the_schema() {
    let mut card = ServerCard::new("io.github.modelctx/everything", "0.9.0", "Every MCP feature");
    card.title = Some("Everything".into());
    card.remotes = Some(vec![Remote::streamable_http(
        "http://127.0.0.1:8080/mcp",
        vec!["2026-07-28".into(), "2025-11-25".into()],
    )]);
    let document = serde_json::to_value(&card).unwrap();
    assert_eq!(document["$schema"], SCHEMA_URL);
    assert_eq!(schema_errors(&card_schema(), "ServerCard", &document), None);
}

#[test]
fn what_the_schema_refuses_validate_refuses_too() {
    let schema = card_schema();
    let good = example("minimal.json");
    let bad = [
        ("$schema", json!("https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json")),
        ("name", json!("no-slash")),
        ("name", json!("two/sla/shes")),
        ("description", json!("")),
        ("description", json!("d".repeat(101))),
    ];
    for (field, value) in bad {
        let mut document = good.clone();
        document[field] = value;
        assert!(schema_errors(&schema, "ServerCard", &document).is_some(), "the schema refuses {field}");
        let card: ServerCard = serde_json::from_value(document).unwrap();
        assert_eq!(card.validate().unwrap_err().field, field);
    }
}

#[test]
fn a_card_and_a_live_server_that_agree_have_no_disagreements() {
    let card: ServerCard = serde_json::from_value(example("templated-remote.json")).unwrap();
    let mut info = Implementation::new("with-remote", "2.1.0");
    info.title = Some("Example Remote Server".into());
    assert!(card.disagreements(Some(&info), "2025-11-25").is_empty());
    assert_eq!(card.disagreements(Some(&info), "2026-07-28")[0].field, "supportedProtocolVersions");
}
