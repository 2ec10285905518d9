//! Interceptors (experimental; SEP-2624 at `915f1b95`): hosted by a server, listed and invoked
//! over the wire, and run as a chain around a server's requests — in process. Each test is
//! named after the draft's rule it proves (docs/extensions.md).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use modelctx::protocol::interceptors::{
    EXTENSION_ID, Hook, INVOKE, LIST, Mode, Phase, PriorityHint, Severity, ValidationResult,
};
use modelctx::protocol::jsonrpc::ErrorObject;
use modelctx::server::interceptors::{
    Chain, ChainEntry, ChainStatus, Direction, InterceptorDef, InterceptorLayer, Invocation, Overrides,
};
use modelctx::server::{Args, Server, ToolDef};
use serde_json::{Value, json};

use crate::common::client::{connect, options};
use crate::common::within;

/// `echo`'s arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    message: String,
}

fn on(events: &[&str], phase: Phase) -> Vec<Hook> {
    vec![Hook { events: events.iter().map(|e| (*e).to_owned()).collect(), phase }]
}

/// A mutator that appends `suffix` to every `message` it finds at `params.arguments.message`
/// (requests) or in the first text block (results), counting its runs in `runs`.
fn appender(name: &str, suffix: &'static str, phase: Phase) -> InterceptorDef {
    InterceptorDef::mutator(name, on(&["tools/call"], phase), move |invocation: Invocation| async move {
        let mut payload = invocation.payload;
        let text = match invocation.phase {
            Phase::Request => &mut payload["params"]["arguments"]["message"],
            Phase::Response => &mut payload["result"]["content"][0]["text"],
        };
        let Some(before) = text.as_str() else { return Ok(None) };
        *text = Value::String(format!("{before}{suffix}"));
        Ok(Some(payload))
    })
}

/// A validator of requests that refuses (with `severity`) a message containing `word`.
fn refusing(name: &str, word: &'static str, severity: Severity) -> InterceptorDef {
    InterceptorDef::validator(
        name,
        on(&["tools/call"], Phase::Request),
        move |invocation: Invocation| async move {
            let message =
                invocation.payload["params"]["arguments"]["message"].as_str().unwrap_or_default().to_owned();
            Ok(if message.contains(word) {
                ValidationResult::finding(
                    severity,
                    format!("{word:?} is not welcome"),
                    Some("params.arguments.message".into()),
                )
            } else {
                ValidationResult::pass()
            })
        },
    )
}

/// An interceptor that fails (an error of its own) on every invocation.
fn failing(name: &str) -> InterceptorDef {
    InterceptorDef::validator(name, on(&["tools/call"], Phase::Request), |_| async {
        Err::<ValidationResult, _>(ErrorObject::internal("the scanner is down"))
    })
}

/// A server of `echo` behind `chain`, counting the tool's runs.
fn served_behind(chain: Chain, runs: Arc<AtomicUsize>) -> Server {
    Server::builder("intercepted", "1")
        .tool(ToolDef::new("echo", move |Args(args): Args<EchoArgs>| {
            runs.fetch_add(1, Ordering::SeqCst);
            async move { args.message }
        }))
        .layer(InterceptorLayer::new(chain))
        .build()
        .unwrap()
}

fn text(result: &modelctx::protocol::model::CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"].as_str().unwrap_or_default().to_owned()
}

async fn echo(chain: Chain, message: &str) -> (Result<String, modelctx::client::ClientError>, usize) {
    let runs = Arc::new(AtomicUsize::new(0));
    let client = connect(served_behind(chain, runs.clone()), options()).await.unwrap();
    let answered = within(client.call_tool("echo", json!({"message": message}))).await.map(|r| text(&r));
    (answered, runs.load(Ordering::SeqCst))
}

fn local(entries: Vec<InterceptorDef>) -> Chain {
    Chain::new(entries.into_iter().map(ChainEntry::local).collect())
}

/// The guard server of the tests: a validator and a mutator, hosted.
fn hosting() -> Server {
    Server::builder("guard", "1")
        .interceptors([
            refusing("no-secrets", "secret", Severity::Error).description("Refuses secrets"),
            appender("signer", " (signed)", Phase::Response).priority(PriorityHint::Both(10)),
        ])
        .build()
        .unwrap()
}

/// "Interceptors are discoverable … `interceptors/list` … Optional filter by event", and the
/// server "declare[s] interceptor support … supportedEvents": the hosted interceptors are
/// listed with their hooks and suggested policy, filtered by event, and declared.
#[tokio::test]
async fn hosted_interceptors_are_listed_filtered_by_event_and_declared() {
    let client = connect(hosting(), options()).await.unwrap();
    let declared = client.server().capabilities.extensions.as_ref().unwrap();
    assert_eq!(declared[EXTENSION_ID]["supportedEvents"], json!(["tools/call"]));
    let listed = client.request(LIST, json!({})).await.unwrap();
    let names: Vec<&str> =
        listed["interceptors"].as_array().unwrap().iter().map(|i| i["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["no-secrets", "signer"]);
    assert_eq!(listed["interceptors"][0]["type"], "validation");
    assert_eq!(listed["interceptors"][1]["priorityHint"], 10);
    let none = client.request(LIST, json!({"event": "prompts/get"})).await.unwrap();
    assert_eq!(none["interceptors"], json!([]));
}

/// "When invoked a validator … MUST return a `ValidationResult`"; "a mutator … MUST return a
/// `MutationResult`" (`modified`, the payload); an unknown name is `-32602` (as the extension's
/// SDKs answer).
#[tokio::test]
async fn invoke_answers_validation_and_mutation_results_and_refuses_unknown_names() {
    let client = connect(hosting(), options()).await.unwrap();
    let payload =
        json!({"method": "tools/call", "params": {"name": "echo", "arguments": {"message": "my secret"}}});
    let judged = client
        .request(
            INVOKE,
            json!({"name": "no-secrets", "event": "tools/call", "phase": "request", "payload": payload}),
        )
        .await
        .unwrap();
    assert_eq!(
        (judged["valid"].clone(), judged["severity"].clone(), judged["type"].clone()),
        (json!(false), json!("error"), json!("validation"))
    );
    assert_eq!(judged["interceptor"], "no-secrets");
    assert_eq!(judged["messages"][0]["path"], "params.arguments.message");
    let result = json!({"method": "tools/call", "result": {"content": [{"type": "text", "text": "hi"}]}});
    let mutated = client
        .request(
            INVOKE,
            json!({"name": "signer", "event": "tools/call", "phase": "response", "payload": result}),
        )
        .await
        .unwrap();
    assert_eq!(mutated["modified"], true);
    assert_eq!(mutated["payload"]["result"]["content"][0]["text"], "hi (signed)");
    let unknown = client
        .request(INVOKE, json!({"name": "nobody", "event": "tools/call", "phase": "request", "payload": {}}))
        .await
        .unwrap_err();
    let unknown = unknown.rpc_error().unwrap();
    assert_eq!((unknown.code.0, unknown.message.as_str()), (-32602, "Interceptor 'nobody' not found"));
}

/// "The interceptor execution MUST be cancelled if it exceeds the timeout … A timeout error
/// MUST be returned with code -32000 (Server error)" with the interceptor, `timeoutMs` and the
/// phase in `data`.
#[tokio::test]
async fn an_invocation_past_its_timeout_is_cancelled_with_the_drafts_error() {
    let slow = InterceptorDef::validator("slow", on(&["tools/call"], Phase::Request), |_| async {
        tokio::time::sleep(Duration::from_secs(30)).await;
        Ok(ValidationResult::pass())
    });
    let server = Server::builder("guard", "1").interceptors([slow]).build().unwrap();
    let client = connect(server, options()).await.unwrap();
    let params =
        json!({"name": "slow", "event": "tools/call", "phase": "request", "payload": {}, "timeoutMs": 50});
    let timed_out = within(client.request(INVOKE, params)).await.unwrap_err();
    let timed_out = timed_out.rpc_error().unwrap();
    assert_eq!(timed_out.code.0, modelctx::protocol::interceptors::TIMEOUT_CODE);
    assert_eq!(timed_out.data, Some(json!({"interceptor": "slow", "timeoutMs": 50, "phase": "request"})));
}

/// "Receiving: Validate → Mutate … Validations MUST run first as a security barrier": a
/// request the server receives is judged as the client sent it (the validator does not see the
/// mutator's work), and "Sending: Mutate → Validate": a result it sends is judged as rewritten.
#[tokio::test]
async fn receiving_validates_then_mutates_and_sending_mutates_then_validates() {
    // The validator refuses the mutator's mark: on receiving it never sees it.
    let mark = appender("marker", " [marked]", Phase::Request);
    let refuses_mark = refusing("no-marks", "[marked]", Severity::Error);
    let (answered, _) = echo(local(vec![mark, refuses_mark]), "hi").await;
    assert_eq!(answered.unwrap(), "hi [marked]", "validated before the mutation");

    let chain = local(vec![appender("marker", " [marked]", Phase::Response)]);
    let validator = InterceptorDef::validator(
        "sees-marks",
        on(&["tools/call"], Phase::Response),
        |invocation: Invocation| async move {
            let text =
                invocation.payload["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
            Ok(if text.ends_with("[marked]") {
                ValidationResult::pass()
            } else {
                ValidationResult::finding(Severity::Error, "unmarked", None)
            })
        },
    );
    let chain = Chain::new(chain.entries().iter().cloned().chain([ChainEntry::local(validator)]).collect());
    let (answered, _) = echo(chain, "hi").await;
    assert_eq!(answered.unwrap(), "hi [marked]", "validated after the mutation when sending");
}

/// "Mutations: Sequential by priorityHint (alphabetical tie-break)": lower first, then by name;
/// each mutator receives the last one's payload.
#[tokio::test]
async fn mutators_run_in_priority_order_then_by_name_each_on_the_last_ones_payload() {
    let chain = local(vec![
        appender("c", "-c", Phase::Request).priority(PriorityHint::Both(5)),
        appender("b", "-b", Phase::Request),
        appender("a", "-a", Phase::Request),
        appender("z", "-z", Phase::Request)
            .priority(PriorityHint::PerPhase { request: Some(-5), response: None }),
    ]);
    let (answered, _) = echo(chain, "x").await;
    assert_eq!(answered.unwrap(), "x-z-a-b-c");
}

/// "Validations: Parallel": two validators that each wait for the other to have started both
/// pass (run one after the other, the first would wait forever and time out).
#[tokio::test]
async fn validators_run_at_once() {
    let barrier = Arc::new(tokio::sync::Barrier::new(2));
    let waiting = |name: &str| {
        let barrier = Arc::clone(&barrier);
        InterceptorDef::validator(name, on(&["tools/call"], Phase::Request), move |_| {
            let barrier = Arc::clone(&barrier);
            async move {
                barrier.wait().await;
                Ok(ValidationResult::pass())
            }
        })
    };
    let entries = [waiting("one"), waiting("two")].map(|def| {
        ChainEntry::local(def)
            .overrides(Overrides { timeout_ms: Some(2000), ..Overrides::default() })
            .unwrap()
    });
    let (answered, runs) = echo(Chain::new(entries.into()), "hi").await;
    assert_eq!((answered.unwrap().as_str(), runs), ("hi", 1));
}

/// "Only validations with severity: error MUST block execution … warn or info MUST NOT block":
/// an error refuses the call with `-32602` naming the interceptor, before the tool runs; a
/// warning lets it through.
#[tokio::test]
async fn only_an_error_blocks_and_the_refusal_names_the_interceptor() {
    let (refused, runs) =
        echo(local(vec![refusing("no-secrets", "secret", Severity::Error)]), "a secret").await;
    let refused = refused.unwrap_err();
    let error = refused.rpc_error().unwrap();
    assert_eq!(error.code.0, -32602);
    assert_eq!(error.data.as_ref().unwrap()["validationErrors"][0]["interceptor"], "no-secrets");
    assert_eq!(runs, 0, "the tool never ran");
    let (warned, runs) = echo(local(vec![refusing("careful", "secret", Severity::Warn)]), "a secret").await;
    assert_eq!((warned.unwrap().as_str(), runs), ("a secret", 1));
}

/// "Interceptors in audit mode MUST NOT block execution regardless of results … For mutators:
/// computes transformations without applying them (shadow mutations)": an auditing validator's
/// error and an auditing mutator's rewrite both leave the call as it was.
#[tokio::test]
async fn audit_mode_never_blocks_and_shadows_mutations() {
    let audit = Overrides { mode: Some(Mode::Audit), ..Overrides::default() };
    let entries = vec![
        ChainEntry::local(refusing("no-secrets", "secret", Severity::Error))
            .overrides(audit.clone())
            .unwrap(),
        ChainEntry::local(appender("marker", " [marked]", Phase::Request)).overrides(audit).unwrap(),
    ];
    let (answered, runs) = echo(Chain::new(entries), "a secret").await;
    assert_eq!((answered.unwrap().as_str(), runs), ("a secret", 1));
}

/// "failOpen: false (default): If an interceptor fails, the message MUST be blocked";
/// "failOpen: true: … the message MUST be allowed to proceed" — for an error and for a timeout.
#[tokio::test]
async fn a_failing_interceptor_blocks_unless_it_fails_open() {
    let (blocked, runs) = echo(local(vec![failing("scanner")]), "hi").await;
    let blocked = blocked.unwrap_err();
    assert!(blocked.to_string().contains("the scanner is down"), "{blocked}");
    assert_eq!(runs, 0);
    let open = Overrides { fail_open: Some(true), ..Overrides::default() };
    let entry = ChainEntry::local(failing("scanner")).overrides(open).unwrap();
    let (passed, runs) = echo(Chain::new(vec![entry]), "hi").await;
    assert_eq!((passed.unwrap().as_str(), runs), ("hi", 1));

    let slow = InterceptorDef::mutator("slow", on(&["tools/call"], Phase::Request), |_| async {
        tokio::time::sleep(Duration::from_secs(30)).await;
        Ok(None)
    });
    let fast_limit = Overrides { timeout_ms: Some(50), ..Overrides::default() };
    let entry = ChainEntry::local(slow.clone()).overrides(fast_limit.clone()).unwrap();
    let (timed_out, runs) = echo(Chain::new(vec![entry]), "hi").await;
    let timed_out = timed_out.unwrap_err();
    assert_eq!(timed_out.rpc_error().unwrap().code.0, modelctx::protocol::interceptors::TIMEOUT_CODE);
    assert_eq!(runs, 0);
    let entry = ChainEntry::local(slow).overrides(Overrides { fail_open: Some(true), ..fast_limit }).unwrap();
    let (passed, _) = echo(Chain::new(vec![entry]), "hi").await;
    assert_eq!(passed.unwrap(), "hi");
}

/// "Mutations MUST be atomic — the entire chain succeeds or none apply … A mutation error MUST
/// halt the chain": the first mutator's rewrite is dropped when the second fails, and the
/// chain's outcome says where it stopped.
#[tokio::test]
async fn mutations_are_all_or_none() {
    let broken = InterceptorDef::mutator("broken", on(&["tools/call"], Phase::Request), |_| async {
        Err::<Option<Value>, _>(ErrorObject::internal("out of order"))
    })
    .priority(PriorityHint::Both(1));
    let chain = local(vec![appender("first", "-first", Phase::Request), broken]);
    let payload = json!({"method": "tools/call", "params": {"arguments": {"message": "x"}}});
    let outcome = chain.execute("tools/call", Phase::Request, Direction::Receiving, payload, None).await;
    assert_eq!(outcome.status, ChainStatus::MutationFailed);
    assert!(outcome.final_payload.is_none(), "no mutation applies");
    assert_eq!(outcome.aborted_at.as_ref().unwrap().interceptor, "broken");
    assert_eq!(outcome.results.len(), 2, "{:?}", outcome.results);
    let refused = outcome.into_payload().unwrap_err();
    assert_eq!(refused.data.unwrap()["failedInterceptor"], "broken");
}

/// "Hook overrides can only narrow … Implementations MUST reject override hooks that reference
/// events not present in the interceptor's declared hooks"; a narrowed interceptor does not run
/// on the events left out.
#[tokio::test]
async fn overrides_may_narrow_hooks_never_widen_them() {
    let widened = Overrides { hooks: Some(on(&["prompts/get"], Phase::Request)), ..Overrides::default() };
    let refused =
        ChainEntry::local(refusing("no-secrets", "secret", Severity::Error)).overrides(widened).unwrap_err();
    assert!(refused.contains("prompts/get") && refused.contains("only narrow"), "{refused}");
    let star = InterceptorDef::validator("everywhere", on(&["*"], Phase::Request), |_| async {
        Ok(ValidationResult::finding(Severity::Error, "no", None))
    });
    let narrowed = Overrides { hooks: Some(on(&["prompts/get"], Phase::Request)), ..Overrides::default() };
    let entry = ChainEntry::local(star).overrides(narrowed).unwrap();
    let (answered, _) = echo(Chain::new(vec![entry]), "hi").await;
    assert_eq!(answered.unwrap(), "hi", "narrowed to prompts/get, it leaves tools/call alone");
}

/// The interceptors of another server, run through a client (`interceptor/invoke` over the
/// wire): a chain of a remote validator and mutator around a server's calls.
#[tokio::test]
async fn a_chain_runs_the_interceptors_of_another_server_through_a_client() {
    let guard = Arc::new(connect(hosting(), options()).await.unwrap());
    let listed = guard.request(LIST, json!({})).await.unwrap();
    let listed: Vec<modelctx::protocol::interceptors::Interceptor> =
        serde_json::from_value(listed["interceptors"].clone()).unwrap();
    let entries = listed.into_iter().map(|interceptor| ChainEntry::new(interceptor, guard.clone())).collect();
    let chain = Chain::new(entries);
    let (signed, _) = echo(chain.clone(), "hello").await;
    assert_eq!(signed.unwrap(), "hello (signed)");
    let (refused, runs) = echo(chain, "my secret").await;
    assert!(refused.unwrap_err().to_string().contains("no-secrets"));
    assert_eq!(runs, 0);
}
