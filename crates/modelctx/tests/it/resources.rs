//! Resources: fixed and templated, text and binary, the not-found errors of each era, and
//! legacy subscriptions.

use crate::common::{ERAS, Era, builder, next_notification};
use base64::Engine;
use modelctx::server::{
    ResourceDef, ResourceError, ResourceRequest, ResourceTemplateDef, Server, blob_contents, text_contents,
};
use modelctx::testing::TestClient;
use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::Notification;
use serde_json::{Value, json};

const BYTES: &[u8] = &[0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff, b'\n'];

fn server() -> Server {
    builder()
        .resource(ResourceDef::text("test://readme", "readme", "Read me first.").description("The readme"))
        .resource(
            ResourceDef::new("test://bytes.bin", "bytes", |r: ResourceRequest| async move {
                Ok(vec![blob_contents(r.uri, Some("application/octet-stream"), BYTES)])
            })
            .mime_type("application/octet-stream")
            .size(BYTES.len() as u64),
        )
        .resource(ResourceDef::new("test://empty", "empty", |_: ResourceRequest| async { Ok(Vec::new()) }))
        .resource(ResourceDef::new("test://broken", "broken", |_: ResourceRequest| async {
            Err(ResourceError::Failed("the disk is on fire".into()))
        }))
        .resource_template(
            ResourceTemplateDef::new("test://items/{id}", "item", |r: ResourceRequest| async move {
                match r.variables["id"].parse::<u32>() {
                    Ok(n) if n < 100 => Ok(vec![text_contents(
                        r.uri.clone(),
                        Some("application/json"),
                        json!({"id": n}).to_string(),
                    )]),
                    _ => Err(ResourceError::NotFound),
                }
            })
            .mime_type("application/json"),
        )
        .resource_template(ResourceTemplateDef::new(
            "test://users/{name}/posts/{post}",
            "post",
            |r: ResourceRequest| async move {
                let text = format!("{} wrote post {}", r.variables["name"], r.variables["post"]);
                Ok(vec![text_contents(r.uri, Some("text/plain"), text)])
            },
        ))
        .build()
        .unwrap()
}

async fn read(era: Era, client: &TestClient, uri: &str) -> Value {
    era.ok(client, "resources/read", json!({"uri": uri})).await
}

#[tokio::test]
async fn res_02_resources_list_shows_every_fixed_resource_in_uri_order() {
    for era in ERAS {
        let client = era.connect(server()).await;
        let list = era.ok(&client, "resources/list", json!({})).await;
        let resources = list["resources"].as_array().unwrap();
        let uris: Vec<&str> = resources.iter().map(|r| r["uri"].as_str().unwrap()).collect();
        assert_eq!(uris, ["test://broken", "test://bytes.bin", "test://empty", "test://readme"], "{era:?}");
        let readme = &resources[3];
        assert_eq!(readme["name"], "readme");
        assert_eq!(readme["mimeType"], "text/plain");
        assert_eq!(readme["description"], "The readme");
        assert_eq!(resources[1]["size"], BYTES.len());
    }
}

#[tokio::test]
async fn resources_read_returns_text_contents() {
    for era in ERAS {
        let client = era.connect(server()).await;
        let result = read(era, &client, "test://readme").await;
        assert_eq!(
            result["contents"],
            json!([{"uri": "test://readme", "mimeType": "text/plain", "text": "Read me first."}]),
            "{era:?}"
        );
    }
}

#[tokio::test]
async fn res_10_resources_read_returns_binary_contents_as_base64() {
    for era in ERAS {
        let client = era.connect(server()).await;
        let result = read(era, &client, "test://bytes.bin").await;
        let contents = &result["contents"][0];
        assert_eq!(contents["uri"], "test://bytes.bin", "{era:?}");
        assert_eq!(contents["mimeType"], "application/octet-stream", "{era:?}");
        assert!(contents.get("text").is_none(), "{era:?}");
        let blob = contents["blob"].as_str().expect("a blob");
        let decoded = base64::engine::general_purpose::STANDARD.decode(blob).expect("standard base64");
        assert_eq!(decoded, BYTES, "{era:?}");
    }
}

#[tokio::test]
async fn res_02_resource_templates_list_shows_every_template() {
    for era in ERAS {
        let client = era.connect(server()).await;
        let list = era.ok(&client, "resources/templates/list", json!({})).await;
        assert_eq!(
            list["resourceTemplates"],
            json!([
                {"uriTemplate": "test://items/{id}", "name": "item", "mimeType": "application/json"},
                {"uriTemplate": "test://users/{name}/posts/{post}", "name": "post"},
            ]),
            "{era:?}"
        );
    }
}

#[tokio::test]
async fn template_read_passes_the_decoded_variables() {
    for era in ERAS {
        let client = era.connect(server()).await;
        let result = read(era, &client, "test://items/42").await;
        assert_eq!(
            result["contents"],
            json!([{"uri": "test://items/42", "mimeType": "application/json", "text": "{\"id\":42}"}]),
            "{era:?}"
        );
        let result = read(era, &client, "test://users/ada%20lovelace/posts/7").await;
        assert_eq!(result["contents"][0]["text"], "ada lovelace wrote post 7", "{era:?}");
        assert_eq!(result["contents"][0]["uri"], "test://users/ada%20lovelace/posts/7", "{era:?}");
    }
}

#[tokio::test]
async fn res_07_an_unknown_resource_is_32002_for_legacy_requests() {
    let client = Era::Legacy.connect(server()).await;
    // No resource or template matches; a template handler says not found.
    for uri in ["test://nowhere", "test://items/not-a-number", "test://items/1000"] {
        let error = Era::Legacy.err(&client, "resources/read", json!({"uri": uri})).await;
        assert_eq!(error.code.0, -32002, "{uri}: {}", error.message);
        assert_eq!(error.data, Some(json!({"uri": uri})), "{uri}");
    }
}

#[tokio::test]
async fn res_04_base_15_an_unknown_resource_is_invalid_params_for_modern_requests() {
    let client = Era::Modern.connect(server()).await;
    for uri in ["test://nowhere", "test://items/not-a-number", "test://items/1000"] {
        let error = Era::Modern.err(&client, "resources/read", json!({"uri": uri})).await;
        assert_eq!(error.code.0, -32602, "{uri}: {}", error.message);
        assert_eq!(error.data, Some(json!({"uri": uri})), "{uri}");
    }
}

#[tokio::test]
async fn res_05_a_handler_returning_no_contents_is_not_found() {
    for (era, code) in [(Era::Modern, -32602), (Era::Legacy, -32002)] {
        let client = era.connect(server()).await;
        let error = era.err(&client, "resources/read", json!({"uri": "test://empty"})).await;
        assert_eq!(error.code.0, code, "{era:?}: {}", error.message);
    }
}

#[tokio::test]
async fn res_04_res_07_a_failed_read_is_an_internal_error() {
    for era in ERAS {
        let client = era.connect(server()).await;
        let error = era.err(&client, "resources/read", json!({"uri": "test://broken"})).await;
        assert_eq!(error.code.0, -32603, "{era:?}: {}", error.message);
        assert!(error.message.contains("the disk is on fire"), "{era:?}: {}", error.message);
        // A read without a uri is malformed.
        assert_eq!(era.err(&client, "resources/read", json!({})).await.code.0, -32602, "{era:?}");
    }
}

#[tokio::test]
async fn res_12_resources_updated_reaches_the_session_only_while_subscribed() {
    let server = server();
    let client = Era::Legacy.connect(server.clone()).await;
    let subscribe = |uri: &'static str| Era::Legacy.ok(&client, "resources/subscribe", json!({"uri": uri}));
    let updated = |n: Notification| n.params.unwrap_or_default()["uri"].clone();

    subscribe("test://readme").await;
    server.resource_updated("test://readme");
    let notification = next_notification(&client).await;
    assert_eq!(notification.method, Method::ResourceUpdated);
    assert_eq!(updated(notification), "test://readme");

    // Changes to a resource nobody subscribed to are not announced: the next notification
    // is the one for the subscribed resource that changed after it.
    server.resource_updated("test://bytes.bin");
    server.resource_updated("test://readme");
    assert_eq!(updated(next_notification(&client).await), "test://readme");

    // After unsubscribing, nothing for that URI.
    Era::Legacy.ok(&client, "resources/unsubscribe", json!({"uri": "test://readme"})).await;
    subscribe("test://bytes.bin").await;
    server.resource_updated("test://readme");
    server.resource_updated("test://bytes.bin");
    assert_eq!(updated(next_notification(&client).await), "test://bytes.bin");
    assert_eq!(client.take_notifications().await, Vec::new());
}

#[tokio::test]
async fn res_12_updates_of_sub_resources_are_announced_but_not_of_uris_sharing_a_prefix() {
    let server = server();
    let client = Era::Legacy.connect(server.clone()).await;
    Era::Legacy.ok(&client, "resources/subscribe", json!({"uri": "test://items/1"})).await;
    let updated = |n: Notification| n.params.unwrap_or_default()["uri"].clone();

    // `test://items/10` is another resource, not part of `test://items/1`.
    server.resource_updated("test://items/10");
    server.resource_updated("test://items/1/details");
    assert_eq!(updated(next_notification(&client).await), "test://items/1/details");
    server.resource_updated("test://items/1");
    assert_eq!(updated(next_notification(&client).await), "test://items/1");
    assert_eq!(client.take_notifications().await, Vec::new());
}

/// RES-09: a resource's URI must be an absolute RFC 3986 URI, custom schemes included; one
/// that is not is refused when the server is built (or the resource added), naming why.
#[tokio::test]
async fn res_09_resource_uris_must_be_rfc_3986_uris() {
    for good in ["app://notes/today", "x-my.scheme+v1:opaque/part?q=1#f", "file:///tmp/a%20b.txt"] {
        assert!(builder().resource(ResourceDef::text(good, "r", "x")).build().is_ok(), "{good}");
    }
    let refused = [
        ("no-scheme-here", "has no scheme"),
        ("1app://x", "is not one RFC 3986 allows"),
        ("app://a b", "which a URI must percent-encode"),
        ("app://x%zz", "which a URI must percent-encode"),
        ("app://caf\u{e9}", "which a URI must percent-encode"),
    ];
    for (uri, why) in refused {
        let error = builder().resource(ResourceDef::text(uri, "r", "x")).build().err().expect(uri);
        assert!(error.to_string().contains(why), "{uri}: {error}");
    }
    let server = builder().build().unwrap();
    assert!(server.add_resource(ResourceDef::text("not a uri", "r", "x")).is_err());
    let template =
        ResourceTemplateDef::new("bad scheme://{id}", "t", |_: modelctx::server::ResourceRequest| async {
            Ok::<_, modelctx::server::ResourceError>(Vec::new())
        });
    assert!(builder().resource_template(template).build().is_err());
}
