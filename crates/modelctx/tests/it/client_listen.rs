//! The client's subscriptions (`Client::listen`) against our server in process: the changes a
//! filter asks for, in both eras, and each subscription's own notifications (SUB-05).

use modelctx_protocol::Method;
use std::time::Duration;

use crate::common::client::{connect, options};
use modelctx::protocol::ProtocolVersion;
use modelctx::protocol::era::ServerVersions;
use modelctx::server::{Server, ToolDef};

#[tokio::test]
async fn listen_streams_the_changes_asked_for_in_both_eras() {
    use futures::StreamExt;
    use modelctx::protocol::v2026::SubscriptionFilter;
    use modelctx::server::{ResourceDef, ResourceRequest, text_contents};

    for versions in [ServerVersions::default(), ServerVersions::new([ProtocolVersion::V2025_11_25])] {
        let served = Server::builder("listen-test", "1")
            .versions(versions)
            .tool(ToolDef::new("hello", || async { "hello" }))
            .resource(ResourceDef::new("test://note", "note", |request: ResourceRequest| async move {
                Ok(vec![text_contents(request.uri, None, "v1")])
            }))
            .build()
            .unwrap();
        let client = connect(served.clone(), options()).await.unwrap();
        let filter = SubscriptionFilter {
            tools_list_changed: Some(true),
            resource_subscriptions: Some(vec!["test://note".into()]),
            ..SubscriptionFilter::default()
        };
        let changes = client.listen(filter).await.unwrap();
        futures::pin_mut!(changes);
        served.add_tool(ToolDef::new("added", || async { "new" })).unwrap();
        let next = tokio::time::timeout(Duration::from_secs(5), changes.next()).await.unwrap().unwrap();
        assert_eq!(next.method, Method::ToolListChanged, "{:?}", client.era());
        served.resource_updated("test://elsewhere");
        served.resource_updated("test://note");
        let next = tokio::time::timeout(Duration::from_secs(5), changes.next()).await.unwrap().unwrap();
        assert_eq!(next.method, Method::ResourceUpdated);
        assert_eq!(next.params.unwrap()["uri"], "test://note", "only the subscribed URI");
    }
}

/// SUB-05: on stdio every subscription's notifications share one stream; the client sorts
/// them by the `subscriptionId` each carries, so two subscriptions to the same change each
/// hear it once, not twice.
#[tokio::test]
async fn sub_05_each_subscription_hears_only_its_own_notifications() {
    use futures::StreamExt;
    use modelctx::protocol::v2026::SubscriptionFilter;

    let served = Server::builder("listen-test", "1")
        .tool(ToolDef::new("hello", || async { "hello" }))
        .build()
        .unwrap();
    let client = connect(served.clone(), options()).await.unwrap();
    let tools = || SubscriptionFilter { tools_list_changed: Some(true), ..SubscriptionFilter::default() };
    let (first, second) = tokio::join!(client.listen(tools()), client.listen(tools()));
    let (first, second) = (first.unwrap(), second.unwrap());
    futures::pin_mut!(first, second);
    served.add_tool(ToolDef::new("added", || async { "new" })).unwrap();
    for changes in [&mut first, &mut second] {
        let next = tokio::time::timeout(Duration::from_secs(5), changes.next()).await.unwrap().unwrap();
        assert_eq!(next.method, Method::ToolListChanged);
        let again = tokio::time::timeout(Duration::from_millis(300), changes.next()).await;
        assert!(again.is_err(), "the other subscription's copy reached this one too: {again:?}");
    }
}
