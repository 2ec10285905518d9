//! The trigger fixtures and who hears of their changes: a legacy session subscribed to the
//! watched resource (resources-subscribe, resources-unsubscribe) or told of list changes, and
//! modern `subscriptions/listen` streams that hear only what they asked for, tagged with their
//! subscription (server-stateless). `docs/conformance.md` maps scenarios to tests.

use crate::support::Exchange;
use crate::support::conformance::{Client, Era, first_text, names};
use serde_json::{Value, json};

/// The request id of every `subscriptions/listen` here.
const LISTEN_ID: i64 = 100;

/// Opens a `subscriptions/listen` stream for `notifications`; returns its acknowledgement.
fn listen(client: &mut Client, notifications: Value) -> Value {
    let params = client.params(json!({"notifications": notifications}));
    client.server.send_request(LISTEN_ID, "subscriptions/listen", params);
    let first = client.server.next();
    assert_eq!(
        first["method"], "notifications/subscriptions/acknowledged",
        "the acknowledgement comes first"
    );
    first
}

fn stop_listening(client: &mut Client) {
    client.server.send_json(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": LISTEN_ID}}),
    );
}

/// Whether `message` is tagged as belonging to the listen stream.
fn tagged(message: &Value) -> bool {
    message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == LISTEN_ID
}

/// `seen`, followed (unless a notification of `method` is among it already) by the messages
/// that come next, up to and including the first of `method`.
fn through(client: &Client, mut seen: Vec<Value>, method: &str) -> Vec<Value> {
    if !seen.iter().any(|m| m["method"] == method) {
        let (arrived, before) = client.server.wait_for(|m| m["method"] == method);
        seen.extend(before);
        seen.push(arrived);
    }
    seen
}

/// The first notification of `method`, during `exchange` or after it.
fn heard(client: &Client, exchange: &Exchange, method: &str) -> Value {
    let seen = through(client, exchange.notifications.clone(), method);
    seen.into_iter().find(|m| m["method"] == method).expect("heard")
}

// ---------------------------------------------------------------------------------------------
// The watched resource: resources-subscribe, resources-unsubscribe, and a modern listener

#[test]
fn resources_subscribe_and_unsubscribe() {
    let mut client = Client::start(Era::Legacy);
    let watched = json!({"uri": "test://watched-resource"});
    assert_eq!(
        client.result("resources/read", watched.clone())["contents"][0]["text"],
        "Watched resource content"
    );
    assert_eq!(client.result("resources/subscribe", watched.clone()), json!({}), "resources-subscribe");

    let update = client.call("test_trigger_resource_update");
    update.result();
    let updated = heard(&client, &update, "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "test://watched-resource");
    let read = client.result("resources/read", watched.clone());
    assert_eq!(read["contents"][0]["text"], "Watched resource content (revision 1)");

    assert_eq!(client.result("resources/unsubscribe", watched), json!({}), "resources-unsubscribe");
    // Two changes in a row: the resource's (now unsubscribed) and the tool list's. The server
    // forwards its changes in order, so once the tool-list notification is here, an update
    // notification would have come before it.
    let update = client.call("test_trigger_resource_update");
    let tools = client.call("test_trigger_tool_change");
    let seen = update.notifications.into_iter().chain(tools.notifications).collect();
    let seen = through(&client, seen, "notifications/tools/list_changed");
    assert!(
        seen.iter().all(|m| m["method"] != "notifications/resources/updated"),
        "no updates after unsubscribing: {seen:?}"
    );
}

#[test]
fn modern_listeners_hear_of_watched_resource_and_tool_list_changes() {
    let mut client = Client::start(Era::Modern);
    let ack = listen(
        &mut client,
        json!({"resourceSubscriptions": ["test://watched-resource"], "toolsListChanged": true}),
    );
    assert!(tagged(&ack));

    for (tool, expected) in [
        ("test_trigger_resource_update", "notifications/resources/updated"),
        ("test_trigger_tool_change", "notifications/tools/list_changed"),
    ] {
        let call = client.call(tool);
        call.result();
        let heard = heard(&client, &call, expected);
        assert!(tagged(&heard), "{heard}");
    }
    // The dynamic tool came with the change.
    let tools = client.result("tools/list", Value::Null);
    assert!(names(&tools, "tools").contains(&"test_dynamic_tool".to_owned()));
    stop_listening(&mut client);
}

#[test]
fn a_listener_hears_only_what_it_asked_for() {
    let mut client = Client::start(Era::Modern);
    listen(
        &mut client,
        json!({"promptsListChanged": true, "resourceSubscriptions": ["test://watched-resource"]}),
    );
    // A tool-list change, then a resource change: the listener gets changes in order, so by
    // the resource update any tool-list notification would have come.
    client.call("test_trigger_tool_change").result();
    let update = client.call("test_trigger_resource_update");
    let seen = through(&client, update.notifications, "notifications/resources/updated");
    assert!(seen.iter().all(|m| m["method"] != "notifications/tools/list_changed"), "filtered out: {seen:?}");
}

// ---------------------------------------------------------------------------------------------
// List changes: test_trigger_tool_change and test_trigger_prompt_change

/// A list a trigger tool changes.
struct ListTrigger {
    /// The trigger tool.
    tool: &'static str,
    /// The notification it causes.
    notification: &'static str,
    /// The list method, and the member of its result.
    list: &'static str,
    member: &'static str,
    /// The definition it adds and removes, in turn.
    dynamic: &'static str,
}

const TOOLS_TRIGGER: ListTrigger = ListTrigger {
    tool: "test_trigger_tool_change",
    notification: "notifications/tools/list_changed",
    list: "tools/list",
    member: "tools",
    dynamic: "test_dynamic_tool",
};

const PROMPTS_TRIGGER: ListTrigger = ListTrigger {
    tool: "test_trigger_prompt_change",
    notification: "notifications/prompts/list_changed",
    list: "prompts/list",
    member: "prompts",
    dynamic: "test_dynamic_prompt",
};

/// A trigger's two calls: what it answers, and whether its definition is listed after.
const TOGGLES: [(&str, bool); 2] = [("Added", true), ("Removed", false)];

/// Calls `trigger`, which must answer `{verb} {dynamic}` and then list (`listed`) or not its
/// definition; returns the notification it caused.
fn toggle(client: &mut Client, trigger: &ListTrigger, verb: &str, listed: bool) -> Value {
    let call = client.call(trigger.tool);
    assert_eq!(first_text(call.result()), format!("{verb} {}", trigger.dynamic));
    let heard = heard(client, &call, trigger.notification);
    let names = names(&client.result(trigger.list, Value::Null), trigger.member);
    assert_eq!(
        names.contains(&trigger.dynamic.to_owned()),
        listed,
        "{} toggles {}",
        trigger.tool,
        trigger.dynamic
    );
    heard
}

#[test]
fn legacy_sessions_hear_of_tool_and_prompt_list_changes() {
    let mut client = Client::start(Era::Legacy);
    for trigger in [TOOLS_TRIGGER, PROMPTS_TRIGGER] {
        for (verb, listed) in TOGGLES {
            toggle(&mut client, &trigger, verb, listed);
            if listed && trigger.member == "prompts" {
                let prompt = client.result("prompts/get", json!({"name": trigger.dynamic}));
                assert_eq!(prompt["messages"][0]["role"], "user");
            }
        }
    }
}

#[test]
fn modern_listeners_hear_of_prompt_list_changes() {
    // sep-2575-server-sends-prompts-list-changed-on-subscription: a server that declares
    // prompts.listChanged is asked to change its prompts through test_trigger_prompt_change.
    let mut client = Client::start(Era::Modern);
    let discover = client.result("server/discover", Value::Null);
    assert_eq!(discover["capabilities"]["prompts"]["listChanged"], true, "{discover}");
    listen(&mut client, json!({"promptsListChanged": true}));
    for (verb, listed) in TOGGLES {
        let heard = toggle(&mut client, &PROMPTS_TRIGGER, verb, listed);
        assert!(tagged(&heard), "{heard}");
        if listed {
            let prompt = client.result("prompts/get", json!({"name": "test_dynamic_prompt"}));
            assert_eq!(
                prompt["messages"][0]["content"]["text"],
                "This prompt comes and goes with test_trigger_prompt_change."
            );
        }
    }
    stop_listening(&mut client);
}
