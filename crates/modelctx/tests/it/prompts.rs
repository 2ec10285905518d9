//! Prompts, argument completion, and pagination of every list method.

use std::collections::BTreeSet;

use crate::common::{ERAS, Era, builder};
use modelctx::server::{
    CompletionRequest, PromptDef, PromptError, PromptRequest, ResourceDef, ResourceRequest,
    ResourceTemplateDef, Server, ServerOptions, ToolDef, text_contents,
};
use modelctx::testing::TestClient;
use modelctx_protocol::types::{ContentBlock, PromptMessage, Role};
use serde_json::{Value, json};

async fn greet(request: PromptRequest) -> Result<Vec<PromptMessage>, PromptError> {
    let name = &request.arguments["name"];
    if name.is_empty() {
        return Err(PromptError::InvalidArguments("name must not be empty".into()));
    }
    let style = request.arguments.get("style").map_or("warmly", String::as_str);
    Ok(vec![
        PromptMessage { role: Role::User, content: ContentBlock::text(format!("Greet {name} {style}.")) },
        PromptMessage { role: Role::Assistant, content: ContentBlock::text("Hello!") },
    ])
}

/// Styles for the person named in `context.arguments`, so the test sees the context arrive.
async fn complete_style(request: CompletionRequest) -> Vec<String> {
    let who = request.context.get("name").cloned().unwrap_or_else(|| "anyone".into());
    ["formally", "fondly", "warmly"]
        .iter()
        .filter(|s| s.starts_with(&request.value))
        .map(|s| format!("{s} for {who}"))
        .collect()
}

fn server() -> Server {
    builder()
        .prompt(
            PromptDef::new("greet", greet)
                .title("Greeting")
                .description("Asks for a greeting")
                .argument("name", "Who to greet", true)
                .argument("style", "How", false)
                .complete("style", complete_style),
        )
        .prompt(PromptDef::new("broken", |_: PromptRequest| async {
            Err(PromptError::Failed("the template store is down".into()))
        }))
        .resource_template(
            ResourceTemplateDef::new("test://items/{id}", "item", |r: ResourceRequest| async move {
                Ok(vec![text_contents(r.uri, None, "an item")])
            })
            .complete("id", |r: CompletionRequest| async move {
                (0..250).map(|n| n.to_string()).filter(|n| n.starts_with(&r.value)).collect()
            }),
        )
        .build()
        .unwrap()
}

fn prompt_ref(name: &str) -> Value {
    json!({"type": "ref/prompt", "name": name})
}

#[tokio::test]
async fn prompt_02_prompts_list_shows_arguments_in_name_order() {
    for era in ERAS {
        let client = era.connect(server()).await;
        let list = era.ok(&client, "prompts/list", json!({})).await;
        let prompts = list["prompts"].as_array().unwrap();
        assert_eq!(
            prompts.iter().map(|p| p["name"].as_str().unwrap()).collect::<Vec<_>>(),
            ["broken", "greet"]
        );
        assert_eq!(prompts[1]["title"], "Greeting", "{era:?}");
        assert_eq!(
            prompts[1]["arguments"],
            json!([
                {"name": "name", "description": "Who to greet", "required": true},
                {"name": "style", "description": "How", "required": false},
            ]),
            "{era:?}"
        );
    }
}

#[tokio::test]
async fn prompts_get_with_arguments_returns_the_messages() {
    for era in ERAS {
        let client = era.connect(server()).await;
        let result = era
            .ok(
                &client,
                "prompts/get",
                json!({"name": "greet", "arguments": {"name": "Ada", "style": "fondly"}}),
            )
            .await;
        assert_eq!(result["description"], "Asks for a greeting", "{era:?}");
        assert_eq!(
            result["messages"],
            json!([
                {"role": "user", "content": {"type": "text", "text": "Greet Ada fondly."}},
                {"role": "assistant", "content": {"type": "text", "text": "Hello!"}},
            ]),
            "{era:?}"
        );
        // The optional argument may be left out.
        let result =
            era.ok(&client, "prompts/get", json!({"name": "greet", "arguments": {"name": "Bo"}})).await;
        assert_eq!(result["messages"][0]["content"]["text"], "Greet Bo warmly.", "{era:?}");
    }
}

#[tokio::test]
async fn prompt_06_a_missing_required_argument_is_invalid_params() {
    for era in ERAS {
        let client = era.connect(server()).await;
        for params in [
            json!({"name": "greet"}),
            json!({"name": "greet", "arguments": {}}),
            json!({"name": "greet", "arguments": {"style": "fondly"}}),
        ] {
            let error = era.err(&client, "prompts/get", params.clone()).await;
            assert_eq!(error.code.0, -32602, "{era:?} {params}: {}", error.message);
            assert!(error.message.contains("name"), "{era:?}: {}", error.message);
        }
    }
}

#[tokio::test]
async fn prompt_06_an_unknown_prompt_is_invalid_params() {
    for era in ERAS {
        let client = era.connect(server()).await;
        let error = era.err(&client, "prompts/get", json!({"name": "farewell"})).await;
        assert_eq!(error.code.0, -32602, "{era:?}: {}", error.message);
        assert!(error.message.contains("farewell"), "{era:?}: {}", error.message);
    }
}

#[tokio::test]
async fn prompt_06_handler_errors_are_invalid_params_or_internal() {
    for era in ERAS {
        let client = era.connect(server()).await;
        let error =
            era.err(&client, "prompts/get", json!({"name": "greet", "arguments": {"name": ""}})).await;
        assert_eq!(error.code.0, -32602, "{era:?}: {}", error.message);
        assert!(error.message.contains("name must not be empty"), "{era:?}: {}", error.message);
        let error = era.err(&client, "prompts/get", json!({"name": "broken"})).await;
        assert_eq!(error.code.0, -32603, "{era:?}: {}", error.message);
        assert!(error.message.contains("the template store is down"), "{era:?}: {}", error.message);
    }
}

#[tokio::test]
async fn comp_01_completes_a_prompt_argument_with_the_context_arguments() {
    for era in ERAS {
        let client = era.connect(server()).await;
        let result = era
            .ok(
                &client,
                "completion/complete",
                json!({"ref": prompt_ref("greet"), "argument": {"name": "style", "value": "f"},
                       "context": {"arguments": {"name": "Ada"}}}),
            )
            .await;
        assert_eq!(
            result["completion"],
            json!({"values": ["formally for Ada", "fondly for Ada"], "total": 2, "hasMore": false}),
            "{era:?}"
        );
        // Without context the completer hears of no other argument.
        let result = era
            .ok(
                &client,
                "completion/complete",
                json!({"ref": prompt_ref("greet"), "argument": {"name": "style", "value": "w"}}),
            )
            .await;
        assert_eq!(result["completion"]["values"], json!(["warmly for anyone"]), "{era:?}");
    }
}

#[tokio::test]
async fn comp_01_completes_a_template_variable() {
    for era in ERAS {
        let client = era.connect(server()).await;
        let result = era
            .ok(
                &client,
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": "test://items/{id}"},
                       "argument": {"name": "id", "value": "24"}}),
            )
            .await;
        assert_eq!(
            result["completion"],
            json!({"values": ["24", "240", "241", "242", "243", "244", "245", "246", "247", "248", "249"],
                   "total": 11, "hasMore": false}),
            "{era:?}"
        );
    }
}

#[tokio::test]
async fn comp_02_at_most_100_values_with_total_and_has_more() {
    for era in ERAS {
        let client = era.connect(server()).await;
        let result = era
            .ok(
                &client,
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": "test://items/{id}"},
                       "argument": {"name": "id", "value": ""}}),
            )
            .await;
        let completion = &result["completion"];
        let values = completion["values"].as_array().unwrap();
        assert_eq!(values.len(), 100, "{era:?}");
        assert_eq!(values[0], "0", "{era:?}: the first values are kept, in the completer's order");
        assert_eq!(values[99], "99", "{era:?}");
        assert_eq!(completion["total"], 250, "{era:?}");
        assert_eq!(completion["hasMore"], true, "{era:?}");
    }
}

#[tokio::test]
async fn comp_03_completion_errors() {
    for era in ERAS {
        let client = era.connect(server()).await;
        // An unknown prompt or template is invalid params.
        for reference in [prompt_ref("farewell"), json!({"type": "ref/resource", "uri": "test://other/{x}"})]
        {
            let error = era
                .err(
                    &client,
                    "completion/complete",
                    json!({"ref": reference, "argument": {"name": "x", "value": ""}}),
                )
                .await;
            assert_eq!(error.code.0, -32602, "{era:?} {reference}: {}", error.message);
        }
        // An argument without a completer has no suggestions.
        let result = era
            .ok(
                &client,
                "completion/complete",
                json!({"ref": prompt_ref("greet"), "argument": {"name": "name", "value": "A"}}),
            )
            .await;
        assert_eq!(result["completion"], json!({"values": [], "total": 0, "hasMore": false}), "{era:?}");
    }
    // A server without completers does not offer completion.
    let without = || {
        builder().prompt(PromptDef::new("p", |_: PromptRequest| async { Ok(Vec::new()) })).build().unwrap()
    };
    for era in ERAS {
        let client = era.connect(without()).await;
        let error = era
            .err(
                &client,
                "completion/complete",
                json!({"ref": prompt_ref("p"), "argument": {"name": "a", "value": ""}}),
            )
            .await;
        assert_eq!(error.code.0, -32601, "{era:?}: {}", error.message);
    }
}

#[tokio::test]
async fn comp_01_build_refuses_a_completer_for_an_undeclared_argument_or_variable() {
    let prompt = PromptDef::new("p", |_: PromptRequest| async { Ok(Vec::new()) })
        .argument("a", "an argument", false)
        .complete("b", |_: CompletionRequest| async { Vec::new() });
    assert!(builder().prompt(prompt).build().is_err());
    let template = ResourceTemplateDef::new("test://{x}", "t", |_: ResourceRequest| async { Ok(Vec::new()) })
        .complete("y", |_: CompletionRequest| async { Vec::new() });
    assert!(builder().resource_template(template).build().is_err());
}

/// Five of each kind, listed two per page.
fn paged_server() -> Server {
    let mut builder = builder().options(ServerOptions { page_size: 2, ..ServerOptions::default() });
    for i in [3, 0, 4, 1, 2] {
        builder = builder
            .tool(ToolDef::new(format!("tool{i}"), || async { "" }))
            .resource(ResourceDef::text(format!("test://r/{i}"), format!("r{i}"), "x"))
            .resource_template(ResourceTemplateDef::new(format!("test://t{i}/{{x}}"), format!("t{i}"), {
                |_: ResourceRequest| async { Ok(Vec::new()) }
            }))
            .prompt(PromptDef::new(format!("prompt{i}"), |_: PromptRequest| async { Ok(Vec::new()) }));
    }
    builder.build().unwrap()
}

/// Every list method, the member holding its items, and the key of an item.
const LISTS: [(&str, &str, &str); 4] = [
    ("tools/list", "tools", "name"),
    ("resources/list", "resources", "uri"),
    ("resources/templates/list", "resourceTemplates", "uriTemplate"),
    ("prompts/list", "prompts", "name"),
];

/// Walks `method` page by page, returning each page's keys.
async fn walk(era: Era, client: &TestClient, method: &str, member: &str, key: &str) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let page = era.ok(client, method, params).await;
        pages.push(
            page[member].as_array().unwrap().iter().map(|i| i[key].as_str().unwrap().to_owned()).collect(),
        );
        match page.get("nextCursor") {
            Some(Value::String(next)) => cursor = Some(next.clone()),
            None => return pages,
            Some(other) => panic!("{era:?} {method}: nextCursor {other}"),
        }
        assert!(pages.len() <= 5, "{era:?} {method}: the walk does not end");
    }
}

#[tokio::test]
async fn page_05_every_list_method_pages_through_every_item_once() {
    for era in ERAS {
        let client = era.connect(paged_server()).await;
        for (method, member, key) in LISTS {
            let pages = walk(era, &client, method, member, key).await;
            assert_eq!(
                pages.iter().map(Vec::len).collect::<Vec<_>>(),
                [2, 2, 1],
                "{era:?} {method}: {pages:?}"
            );
            let all: Vec<String> = pages.concat();
            let mut sorted = all.clone();
            sorted.sort();
            assert_eq!(all, sorted, "{era:?} {method}: pages follow the list order");
            assert_eq!(all.iter().collect::<BTreeSet<_>>().len(), 5, "{era:?} {method}: {all:?}");
        }
    }
}

#[tokio::test]
async fn page_05_an_invalid_cursor_is_invalid_params() {
    for era in ERAS {
        let client = era.connect(paged_server()).await;
        for (method, _, _) in LISTS {
            for cursor in ["not a cursor", "bm90LWEtY3Vyc29y", "YWZ0ZXI"] {
                let error = era.err(&client, method, json!({"cursor": cursor})).await;
                assert_eq!(error.code.0, -32602, "{era:?} {method} {cursor:?}: {}", error.message);
            }
        }
    }
}

#[tokio::test]
async fn page_05_a_cursor_stays_valid_when_the_list_changes() {
    let server = paged_server();
    for era in ERAS {
        let client = era.connect(server.clone()).await;
        let first = era.ok(&client, "tools/list", json!({})).await;
        let cursor = first["nextCursor"].as_str().unwrap().to_owned();
        // A tool that sorts before the cursor appears between the two requests.
        server.add_tool(ToolDef::new("tool00", || async { "" })).unwrap();
        let second = era.ok(&client, "tools/list", json!({"cursor": cursor})).await;
        let names: Vec<&str> =
            second["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["tool2", "tool3"], "{era:?}: the next page starts after the last item seen");
        assert!(server.remove_tool("tool00"));
    }
}
