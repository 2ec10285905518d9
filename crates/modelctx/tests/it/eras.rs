//! Both protocol eras on one connection: `server/discover`, `initialize` negotiation, which
//! methods each era serves, and the errors of requests that belong to neither.

use crate::common::{ERAS, Era, builder, first_text, info, raw, within};
use modelctx::protocol::era::ServerVersions;
use modelctx::server::{
    CacheDefaults, CompletionRequest, PromptDef, PromptRequest, RequestContext, ResourceDef, ResourceRequest,
    ResourceTemplateDef, Server, ServerOptions, ToolDef, text_contents,
};
use modelctx::testing::TestClient;
use modelctx_protocol::types::{ContentBlock, LoggingLevel, PromptMessage, Role};
use modelctx_protocol::v2026::CacheScope;
use modelctx_protocol::{ProtocolVersion, meta};
use serde_json::{Value, json};

const ALL_VERSIONS: [&str; 5] = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

fn tools_only() -> Server {
    builder().tool(ToolDef::new("hello", || async { "hello" })).build().unwrap()
}

/// A server with one of everything, so every capability and every method exists.
fn full(options: ServerOptions) -> Server {
    builder()
        .instructions("Say hello first.")
        .options(options)
        .tool(ToolDef::new("hello", || async { "hello" }))
        .tool(ToolDef::new("chatty", |ctx: RequestContext| async move {
            ctx.log(LoggingLevel::Error, None, json!("something to say")).await;
            "said it"
        }))
        .resource(ResourceDef::text("test://readme", "readme", "read me"))
        .resource_template(
            ResourceTemplateDef::new(
                "test://items/{id}",
                "item",
                |r: modelctx::server::ResourceRequest| async move {
                    Ok(vec![text_contents(r.uri.clone(), None, format!("item {}", r.variables["id"]))])
                },
            )
            .complete("id", |_: CompletionRequest| async { vec!["1".to_owned(), "2".to_owned()] }),
        )
        .prompt(
            PromptDef::new("greet", |_: PromptRequest| async {
                Ok(vec![PromptMessage { role: Role::User, content: ContentBlock::text("hi") }])
            })
            .argument("name", "who", false)
            .complete("name", |_: CompletionRequest| async { vec!["ada".to_owned()] }),
        )
        .build()
        .unwrap()
}

/// One request of every method each era serves on [`full`], with its params.
fn feature_requests() -> Vec<(&'static str, Value)> {
    vec![
        ("tools/list", json!({})),
        ("tools/call", json!({"name": "hello"})),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("resources/read", json!({"uri": "test://readme"})),
        ("resources/read", json!({"uri": "test://items/7"})),
        ("prompts/list", json!({})),
        ("prompts/get", json!({"name": "greet"})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": ""}}),
        ),
    ]
}

#[tokio::test]
async fn ver_03_discover_lists_the_modern_and_every_legacy_version() {
    let client = TestClient::start(full(ServerOptions::default()));
    let discover = Era::Modern.ok(&client, "server/discover", json!({})).await;
    assert_eq!(discover["supportedVersions"], json!(ALL_VERSIONS));
    assert_eq!(discover["resultType"], "complete");
    assert_eq!(discover["instructions"], "Say hello first.");
}

#[tokio::test]
async fn ver_03_discover_on_a_modern_only_server_lists_only_2026_07_28() {
    let server = builder()
        .versions(ServerVersions::modern_only())
        .tool(ToolDef::new("hello", || async { "hello" }))
        .build()
        .unwrap();
    let client = TestClient::start(server);
    let discover = Era::Modern.ok(&client, "server/discover", json!({})).await;
    assert_eq!(discover["supportedVersions"], json!(["2026-07-28"]));
}

#[tokio::test]
async fn ver_03_tool_01_log_01_discover_capabilities_follow_the_registrations() {
    let client = TestClient::start(tools_only());
    let caps = Era::Modern.ok(&client, "server/discover", json!({})).await["capabilities"].clone();
    assert_eq!(caps["tools"], json!({"listChanged": true}));
    assert_eq!(caps["logging"], json!({}));
    for absent in ["prompts", "resources", "completions"] {
        assert!(caps.get(absent).is_none(), "a tools-only server offers no {absent}: {caps}");
    }

    let client = TestClient::start(full(ServerOptions::default()));
    let caps = Era::Modern.ok(&client, "server/discover", json!({})).await["capabilities"].clone();
    assert_eq!(caps["tools"], json!({"listChanged": true}));
    assert_eq!(caps["prompts"], json!({"listChanged": true}));
    assert_eq!(caps["resources"], json!({"subscribe": true, "listChanged": true}));
    assert_eq!(caps["completions"], json!({}));

    // A server with prompts but no completer offers prompts and no completions.
    let server =
        builder().prompt(PromptDef::new("p", |_: PromptRequest| async { Ok(Vec::new()) })).build().unwrap();
    let client = TestClient::start(server);
    let caps = Era::Modern.ok(&client, "server/discover", json!({})).await["capabilities"].clone();
    assert!(caps.get("prompts").is_some() && caps.get("completions").is_none(), "{caps}");
    assert!(caps.get("tools").is_none(), "{caps}");
}

#[tokio::test]
async fn cache_01_02_ver_05_ttl_and_cache_scope_on_discover_and_every_cacheable_result() {
    let client = TestClient::start(full(ServerOptions::default()));
    let discover = Era::Modern.ok(&client, "server/discover", json!({})).await;
    assert_eq!((&discover["ttlMs"], &discover["cacheScope"]), (&json!(0), &json!("private")));

    let options = ServerOptions {
        cache: CacheDefaults { ttl_ms: 60_000, scope: CacheScope::Public },
        ..Default::default()
    };
    let client = TestClient::start(full(options));
    let cacheable = [
        ("server/discover", json!({})),
        ("tools/list", json!({})),
        ("prompts/list", json!({})),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("resources/read", json!({"uri": "test://readme"})),
    ];
    for (method, params) in cacheable {
        let result = Era::Modern.ok(&client, method, params).await;
        assert_eq!(result["ttlMs"], 60_000, "{method}: {result}");
        assert_eq!(result["cacheScope"], "public", "{method}: {result}");
    }
}

/// CACHE-08: every page of a list carries the same `cacheScope`.
#[tokio::test]
async fn cache_08_every_page_of_a_list_has_the_same_cache_scope() {
    let options = ServerOptions {
        page_size: 1,
        cache: CacheDefaults { ttl_ms: 1_000, scope: CacheScope::Public },
        ..Default::default()
    };
    let client = TestClient::start(full(options));
    let mut params = json!({});
    let mut pages = 0;
    loop {
        let page = Era::Modern.ok(&client, "tools/list", params).await;
        assert_eq!(page["cacheScope"], "public", "page {pages}: {page}");
        pages += 1;
        match page.get("nextCursor") {
            Some(cursor) => params = json!({"cursor": cursor}),
            None => break,
        }
    }
    assert!(pages > 1, "the list had several pages");
}

#[tokio::test]
async fn ver_04_discover_names_the_server_in_meta() {
    let client = TestClient::start(tools_only());
    let discover = Era::Modern.ok(&client, "server/discover", json!({})).await;
    assert_eq!(discover["_meta"][meta::SERVER_INFO], json!({"name": "test-server", "version": "1.2.3"}));
}

#[tokio::test]
async fn base_07_meta_06_every_modern_result_is_complete_and_names_the_server() {
    let client = TestClient::start(full(ServerOptions::default()));
    let server_info = serde_json::to_value(info()).unwrap();
    let mut requests = feature_requests();
    requests.push(("server/discover", json!({})));
    for (method, params) in requests {
        let result = Era::Modern.ok(&client, method, params).await;
        assert_eq!(result["resultType"], "complete", "{method}: {result}");
        assert_eq!(result["_meta"][meta::SERVER_INFO], server_info, "{method}: {result}");
    }
}

#[tokio::test]
async fn base_07_legacy_results_carry_no_result_type() {
    let client = Era::Legacy.connect(full(ServerOptions::default())).await;
    let mut requests = feature_requests();
    requests.extend([
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
        ("resources/subscribe", json!({"uri": "test://readme"})),
    ]);
    for (method, params) in requests {
        let result = Era::Legacy.ok(&client, method, params).await;
        assert!(result.get("resultType").is_none(), "{method}: {result}");
        assert!(result.get("ttlMs").is_none() && result.get("cacheScope").is_none(), "{method}: {result}");
        assert!(result["_meta"].get(meta::SERVER_INFO).is_none(), "{method}: {result}");
    }
}

#[tokio::test]
async fn life_03_initialize_echoes_a_supported_legacy_version() {
    for version in [
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2024_11_05,
    ] {
        let client = TestClient::start(tools_only());
        let result = within(client.initialize(version)).await.unwrap();
        assert_eq!(result["protocolVersion"], version.to_string());
    }
}

#[tokio::test]
async fn life_03_initialize_answers_an_unsupported_version_with_2025_11_25() {
    for requested in ["2099-01-01", "2026-07-28", "1999-12-31", "not-a-version"] {
        let client = TestClient::start(tools_only());
        let result = raw(
            &client,
            "initialize",
            json!({"protocolVersion": requested, "capabilities": {}, "clientInfo": {"name": "c", "version": "0"}}),
        )
        .await
        .unwrap_or_else(|e| panic!("initialize at {requested:?} failed: {}", e.message));
        assert_eq!(result["protocolVersion"], "2025-11-25", "asked for {requested}");
    }
}

#[tokio::test]
async fn life_03_initialize_returns_capabilities_server_info_and_instructions() {
    let client = TestClient::start(full(ServerOptions::default()));
    let result = within(client.initialize(ProtocolVersion::V2025_06_18)).await.unwrap();
    assert_eq!(result["serverInfo"], json!({"name": "test-server", "version": "1.2.3"}));
    assert_eq!(result["instructions"], "Say hello first.");
    let caps = &result["capabilities"];
    assert_eq!(caps["tools"], json!({"listChanged": true}));
    assert_eq!(caps["prompts"], json!({"listChanged": true}));
    assert_eq!(caps["resources"], json!({"subscribe": true, "listChanged": true}));
    assert_eq!(caps["completions"], json!({}));
    assert_eq!(caps["logging"], json!({}));
}

#[tokio::test]
async fn ver_14_base_27_a_modern_request_after_initialize_is_served_statelessly() {
    let client = Era::Legacy.connect(full(ServerOptions::default())).await;
    // The session asks for every log message; a modern request must not inherit that.
    Era::Legacy.ok(&client, "logging/setLevel", json!({"level": "debug"})).await;

    let result = Era::Modern.ok(&client, "tools/call", json!({"name": "chatty"})).await;
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["_meta"][meta::SERVER_INFO]["name"], "test-server");
    assert_eq!(first_text(&result), "said it");
    assert_eq!(client.take_notifications().await, Vec::new(), "the session's log level leaked");

    // The session still works under legacy rules.
    let result = Era::Legacy.ok(&client, "tools/call", json!({"name": "chatty"})).await;
    assert!(result.get("resultType").is_none());
    assert_eq!(
        crate::common::params_of(&client.take_notifications().await, "notifications/message").len(),
        1
    );
}

#[tokio::test]
async fn ver_14_legacy_only_methods_are_method_not_found_for_modern_requests() {
    let client = TestClient::start(full(ServerOptions::default()));
    for (method, params) in [
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
        ("resources/subscribe", json!({"uri": "test://readme"})),
        ("resources/unsubscribe", json!({"uri": "test://readme"})),
        ("initialize", json!({})),
    ] {
        let error = Era::Modern.err(&client, method, params).await;
        assert_eq!(error.code.0, -32601, "{method}: {}", error.message);
        assert!(error.message.contains(method), "{method}: {}", error.message);
    }
    // Modern requests in a session are refused the same way.
    let client = Era::Legacy.connect(full(ServerOptions::default())).await;
    let error = Era::Modern.err(&client, "ping", json!({})).await;
    assert_eq!(error.code.0, -32601);
}

#[tokio::test]
async fn life_10_legacy_only_methods_are_served_in_a_session() {
    let client = Era::Legacy.connect(full(ServerOptions::default())).await;
    for (method, params) in [
        ("ping", Value::Null),
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "warning"})),
        ("resources/subscribe", json!({"uri": "test://readme"})),
        ("resources/unsubscribe", json!({"uri": "test://readme"})),
    ] {
        let result = Era::Legacy.ok(&client, method, params).await;
        assert_eq!(result, json!({}), "{method}");
    }
}

#[tokio::test]
async fn meta_02_a_request_without_meta_and_without_a_session_is_invalid_params() {
    let client = TestClient::start(tools_only());
    let error = raw(&client, "tools/list", json!({})).await.unwrap_err();
    assert_eq!(error.code.0, -32602);
    assert!(error.message.contains(meta::PROTOCOL_VERSION), "{}", error.message);
    let error = raw(&client, "tools/list", Value::Null).await.unwrap_err();
    assert_eq!(error.code.0, -32602);

    // A version without capabilities is as incomplete.
    let error = raw(&client, "tools/list", json!({"_meta": {meta::PROTOCOL_VERSION: "2026-07-28"}}))
        .await
        .unwrap_err();
    assert_eq!(error.code.0, -32602);
    assert!(error.message.contains(meta::CLIENT_CAPABILITIES), "{}", error.message);

    // The connection still serves well-formed requests.
    Era::Modern.ok(&client, "tools/list", json!({})).await;
}

#[tokio::test]
async fn ver_01_an_unsupported_modern_version_is_32022_listing_the_supported_ones() {
    let client = TestClient::start(tools_only());
    let error = raw(
        &client,
        "tools/list",
        json!({"_meta": {meta::PROTOCOL_VERSION: "2027-01-01", meta::CLIENT_CAPABILITIES: {}}}),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code.0, -32022);
    let data = error.data.expect("data");
    assert_eq!(data["supported"], json!(ALL_VERSIONS));
    assert_eq!(data["requested"], "2027-01-01");
}

#[tokio::test]
async fn ver_13_a_modern_only_server_refuses_initialize_naming_its_versions() {
    let server = builder()
        .versions(ServerVersions::modern_only())
        .tool(ToolDef::new("hello", || async { "hello" }))
        .build()
        .unwrap();
    let client = TestClient::start(server);
    let error = within(client.initialize(ProtocolVersion::V2025_11_25)).await.unwrap_err();
    assert_eq!(error.code.0, -32022);
    assert_eq!(error.data.expect("data")["supported"], json!(["2026-07-28"]));
    // And without a session a plain request is still a missing-_meta error.
    assert_eq!(raw(&client, "tools/list", json!({})).await.unwrap_err().code.0, -32602);
}

#[tokio::test]
async fn life_01_a_second_initialize_is_invalid_request() {
    let client = Era::Legacy.connect(tools_only()).await;
    let again = within(client.initialize(ProtocolVersion::V2025_06_18)).await.unwrap_err();
    assert_eq!(again.code.0, -32600, "{}", again.message);
    // The first session stands.
    assert_eq!(Era::Legacy.ok(&client, "ping", json!({})).await, json!({}));
    Era::Legacy.ok(&client, "tools/list", json!({})).await;
}

#[tokio::test]
async fn base_01_an_unknown_method_is_method_not_found_in_both_eras() {
    for era in ERAS {
        let client = era.connect(full(ServerOptions::default())).await;
        let error = era.err(&client, "tools/frobnicate", json!({})).await;
        assert_eq!(error.code.0, -32601, "{era:?}: {}", error.message);
        assert!(error.message.contains("tools/frobnicate"), "{era:?}: {}", error.message);
    }
}

#[tokio::test]
async fn res_01_prompt_01_comp_01_methods_behind_an_undeclared_capability_are_method_not_found() {
    let gated_on_tools_only = [
        ("prompts/list", json!({})),
        ("prompts/get", json!({"name": "greet"})),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("resources/read", json!({"uri": "test://readme"})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "n", "value": ""}}),
        ),
    ];
    for era in ERAS {
        let client = era.connect(tools_only()).await;
        for (method, params) in gated_on_tools_only.clone() {
            let error = era.err(&client, method, params).await;
            assert_eq!(error.code.0, -32601, "{era:?} {method}: {}", error.message);
        }
        // The tools it has are served.
        era.ok(&client, "tools/list", json!({})).await;
    }
    // A server without tools refuses the tool methods.
    let no_tools = || builder().resource(ResourceDef::text("test://readme", "readme", "x")).build().unwrap();
    for era in ERAS {
        let client = era.connect(no_tools()).await;
        let error = era.err(&client, "tools/list", json!({})).await;
        assert_eq!(error.code.0, -32601, "{era:?}: {}", error.message);
    }
    // A session without resources cannot subscribe.
    let client = Era::Legacy.connect(tools_only()).await;
    let error = Era::Legacy.err(&client, "resources/subscribe", json!({"uri": "test://readme"})).await;
    assert_eq!(error.code.0, -32601);
}

#[tokio::test]
async fn cache_a_handler_sets_the_cache_hints_of_its_own_result() {
    let daily = ResourceDef::new("test://daily", "daily", |request: ResourceRequest| async move {
        request.ctx.set_cache(std::time::Duration::from_secs(86_400), CacheScope::Public);
        Ok(vec![text_contents(request.uri, None, "today's news")])
    });
    let server =
        builder().resource(daily).resource(ResourceDef::text("test://plain", "plain", "x")).build().unwrap();
    let client = TestClient::start(server);
    let result = Era::Modern.ok(&client, "resources/read", json!({"uri": "test://daily"})).await;
    assert_eq!((&result["ttlMs"], &result["cacheScope"]), (&json!(86_400_000), &json!("public")), "{result}");
    // Other results keep the server's defaults.
    let result = Era::Modern.ok(&client, "resources/read", json!({"uri": "test://plain"})).await;
    assert_eq!((&result["ttlMs"], &result["cacheScope"]), (&json!(0), &json!("private")), "{result}");
}

/// Cache hints per definition, merged as CACHE-08 says: a listing page is fresh as long as
/// its shortest-lived entry (each entry without hints of its own takes the server's), a list
/// with one `private` entry is `private` on every page, and a resource's or template's hints
/// are those of its reads (a handler's own still win).
#[tokio::test]
async fn cache_08_hints_per_definition_merge_on_each_page_and_reach_the_reads() {
    use std::time::Duration;
    let seconds = Duration::from_secs;
    let options = ServerOptions {
        page_size: 1,
        cache: CacheDefaults { ttl_ms: 3_600_000, scope: CacheScope::Public },
        ..Default::default()
    };
    let read_user = |request: ResourceRequest| async move {
        if request.uri.ends_with("/today") {
            request.ctx.set_cache(Duration::from_secs(86_400), CacheScope::Public);
        }
        Ok(vec![text_contents(request.uri.clone(), None, "a user")])
    };
    let server = builder()
        .options(options)
        .tool(ToolDef::new("a", || async { "a" }).cache(seconds(5), CacheScope::Public))
        .tool(ToolDef::new("b", || async { "b" }))
        .tool(ToolDef::new("c", || async { "c" }).cache(seconds(60), CacheScope::Private))
        .resource(ResourceDef::text("test://fixed", "fixed", "x").cache(seconds(30), CacheScope::Public))
        .resource_template(
            ResourceTemplateDef::new("test://users/{id}", "user", read_user)
                .cache(seconds(10), CacheScope::Private),
        )
        .prompt(
            PromptDef::new("p", |_: PromptRequest| async { Ok(Vec::new()) })
                .cache(seconds(1), CacheScope::Public),
        )
        .build()
        .unwrap();
    let client = TestClient::start(server);
    let hints = |result: &Value| {
        (result["ttlMs"].as_u64().unwrap(), result["cacheScope"].as_str().unwrap().to_owned())
    };
    let private = |ttl: u64| (ttl, "private".to_owned());
    let public = |ttl: u64| (ttl, "public".to_owned());
    let mut pages = Vec::new();
    let mut params = json!({});
    loop {
        let page = Era::Modern.ok(&client, "tools/list", params).await;
        pages.push(hints(&page));
        match page.get("nextCursor") {
            Some(cursor) => params = json!({"cursor": cursor}),
            None => break,
        }
    }
    assert_eq!(pages, [private(5_000), private(3_600_000), private(60_000)], "a, b, c: one private entry");
    assert_eq!(hints(&Era::Modern.ok(&client, "resources/list", json!({})).await), public(30_000));
    assert_eq!(hints(&Era::Modern.ok(&client, "resources/templates/list", json!({})).await), private(10_000));
    assert_eq!(hints(&Era::Modern.ok(&client, "prompts/list", json!({})).await), public(1_000));
    let read = |uri: &str| Era::Modern.ok(&client, "resources/read", json!({"uri": uri}));
    assert_eq!(hints(&read("test://fixed").await), public(30_000));
    assert_eq!(hints(&read("test://users/7").await), private(10_000));
    assert_eq!(hints(&read("test://users/today").await), public(86_400_000), "the handler's own hints");
    // Discover keeps the server's.
    assert_eq!(hints(&Era::Modern.ok(&client, "server/discover", json!({})).await), public(3_600_000));
}

#[tokio::test]
async fn ext_01_ver_06_declared_extensions_need_a_prefixed_id_and_reach_modern_clients_only() {
    for refused in ["no-prefix", "com..example/thing", "-bad.label/x", "com.example/-name"] {
        let built = builder().extension(refused, serde_json::Map::new()).build();
        assert!(built.is_err(), "{refused} was accepted");
    }
    let settings = json!({"mimeTypes": ["text/html;profile=mcp-app"]}).as_object().cloned().unwrap();
    let server = builder().extension("com.example/widgets", settings).build().unwrap();
    let modern = Era::Modern.connect(server.clone()).await;
    let discovered = Era::Modern.request(&modern, "server/discover", json!({})).await.unwrap();
    assert_eq!(
        discovered["capabilities"]["extensions"]["com.example/widgets"]["mimeTypes"][0],
        "text/html;profile=mcp-app"
    );
    let legacy = TestClient::start(server);
    let initialized = within(legacy.initialize(ProtocolVersion::V2025_11_25)).await.unwrap();
    assert!(initialized["capabilities"].get("extensions").is_none(), "2025-11-25 has no extensions");
}
