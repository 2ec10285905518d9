//! The fixtures' resources: listed with their template (resources-list), read as text, binary
//! and through the template (resources-read-*, resources-templates-read), and an unknown URI
//! refused by name (sep-2164-resource-not-found), in both eras. Subscriptions are in
//! `fixtures_triggers.rs`; `docs/conformance.md` maps scenarios to tests.

use crate::support::conformance::{
    Client, Era, PNG_SIGNATURE, decode, in_both_eras, listed, uri_and_mime_type,
};
use serde_json::{Value, json};

#[test]
fn resources_list_and_templates() {
    in_both_eras(|client, era| {
        let resources = client.result("resources/list", Value::Null);
        for uri in ["test://static-text", "test://static-binary", "test://watched-resource"] {
            let resource = listed(&resources, "resources", "uri", uri);
            assert!(
                resource["name"].as_str().is_some_and(|n| !n.is_empty())
                    && resource["description"].is_string(),
                "{era:?}: {resource}"
            );
        }
        let templates = client.result("resources/templates/list", Value::Null);
        let template = listed(&templates, "resourceTemplates", "uriTemplate", "test://template/{id}/data");
        assert_eq!(template["mimeType"], "application/json", "{era:?}");
    });
}

#[test]
fn resources_read_text_binary_and_template() {
    in_both_eras(|client, era| {
        let text = client.result("resources/read", json!({"uri": "test://static-text"}));
        assert_eq!(
            text["contents"],
            json!([{"uri": "test://static-text", "mimeType": "text/plain", "text": "This is the content of the static text resource."}]),
            "{era:?}"
        );

        let binary = client.result("resources/read", json!({"uri": "test://static-binary"}));
        let blob = &binary["contents"][0];
        assert_eq!(uri_and_mime_type(blob), (Some("test://static-binary"), Some("image/png")));
        assert!(decode(&blob["blob"]).starts_with(PNG_SIGNATURE));

        let data = client.result("resources/read", json!({"uri": "test://template/123/data"}));
        let content = &data["contents"][0];
        assert_eq!(uri_and_mime_type(content), (Some("test://template/123/data"), Some("application/json")));
        let parsed: Value = serde_json::from_str(content["text"].as_str().unwrap()).unwrap();
        assert_eq!(parsed, json!({"id": "123", "templateTest": true, "data": "Data for ID: 123"}), "{era:?}");
    });
}

#[test]
fn reading_an_unknown_resource_is_an_error_naming_the_uri() {
    let uri = "test://nonexistent-resource-for-conformance-testing";
    for (era, code) in [(Era::Modern, -32602), (Era::Legacy, -32002)] {
        let mut client = Client::start(era);
        let error = client.error("resources/read", json!({"uri": uri}));
        assert_eq!(error["code"], code, "{era:?}: SEP-2164 standardises -32602 from 2026-07-28 on");
        assert_eq!(error["data"]["uri"], uri, "{era:?}");
    }
}
