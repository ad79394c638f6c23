//! The change feed: latest-version mode from the beginning, from now, per partition key, resumed
//! from a continuation token; all-versions-and-deletes mode on a container with a change feed
//! policy. Three physical partitions, so the full-container feed merges three ranges.

use crate::common::*;
use azure_data_cosmos::clients::ContainerClient;
use azure_data_cosmos::feed::ChangeFeedPageIterator;
use azure_data_cosmos::models::{
    ChangeFeedItem, ChangeFeedOperationType, ChangeFeedPolicy, ContainerProperties,
};
use azure_data_cosmos::options::{ChangeFeedMode, ChangeFeedOptions, ChangeFeedStartFrom};
use azure_data_cosmos::{CosmosClient, FeedScope};
use futures::StreamExt;
use serde_json::{json, Value};
use std::time::Duration;

const ARGS: &[&str] = &["--partition-count", "3"];

async fn container(client: &CosmosClient, props: ContainerProperties) -> ContainerClient {
    client.create_database("db", None).await.unwrap();
    let db = client.database_client("db");
    let id = props.id.to_string();
    db.create_container(props, None).await.unwrap();
    db.container_client(id.as_str(), None).await.unwrap()
}

/// Reads pages until six empty pages in a row (the feed has caught up on every range) or 60 pages.
async fn drain(
    it: &mut ChangeFeedPageIterator<ChangeFeedItem<Value>>,
) -> Vec<ChangeFeedItem<Value>> {
    let mut out = Vec::new();
    let mut empty = 0;
    for _ in 0..60 {
        let page = it
            .next()
            .await
            .expect("the change feed never ends")
            .unwrap_or_else(|e| panic!("change feed page failed: {e:?}"));
        if page.items().is_empty() {
            empty += 1;
            if empty >= 6 {
                break;
            }
        } else {
            empty = 0;
            out.extend(page.into_items());
        }
    }
    out
}

fn current_ids(items: &[ChangeFeedItem<Value>]) -> Vec<String> {
    let mut ids: Vec<String> = items
        .iter()
        .map(|i| {
            i.current()
                .expect("a latest-version change carries the document")["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn latest_version_from_beginning() {
    let (_emu, client) = setup(ARGS).await;
    let c = container(&client, ContainerProperties::new("cf", "/pk".into())).await;
    for i in 0..6 {
        c.create_item(
            format!("p{}", i % 3),
            &format!("d{i}"),
            &json!({"id": format!("d{i}"), "pk": format!("p{}", i % 3), "v": 0}),
            None,
        )
        .await
        .unwrap();
    }
    // Two replaces of d1: the feed shows it once, at its latest version.
    for v in 1..=2 {
        c.replace_item("p1", "d1", &json!({"id": "d1", "pk": "p1", "v": v}), None)
            .await
            .unwrap();
    }
    let mut it = c
        .query_change_feed::<Value>(
            FeedScope::full_container(),
            ChangeFeedStartFrom::Beginning,
            None,
        )
        .await
        .unwrap();
    let items = drain(&mut it).await;
    assert_eq!(
        current_ids(&items),
        ["d0", "d1", "d2", "d3", "d4", "d5"],
        "each changed item once"
    );
    let d1 = items
        .iter()
        .find(|i| i.current().unwrap()["id"] == "d1")
        .unwrap();
    assert_eq!(d1.current().unwrap()["v"], 2, "latest version");
    assert!(
        d1.current().unwrap()["_lsn"].is_number(),
        "changes carry _lsn"
    );

    // Nothing new: further polls are empty.
    assert!(drain(&mut it).await.is_empty());
    // A new write shows up on the same iterator.
    c.create_item("p2", "d9", &json!({"id": "d9", "pk": "p2"}), None)
        .await
        .unwrap();
    assert_eq!(current_ids(&drain(&mut it).await), ["d9"]);
}

#[tokio::test]
async fn latest_version_from_now_and_per_partition() {
    let (_emu, client) = setup(ARGS).await;
    let c = container(&client, ContainerProperties::new("cf", "/pk".into())).await;
    c.create_item("a", "old", &json!({"id": "old", "pk": "a"}), None)
        .await
        .unwrap();

    let mut all = c
        .query_change_feed::<Value>(FeedScope::full_container(), ChangeFeedStartFrom::Now, None)
        .await
        .unwrap();
    let mut only_a = c
        .query_change_feed::<Value>(FeedScope::partition("a"), ChangeFeedStartFrom::Now, None)
        .await
        .unwrap();
    assert!(
        drain(&mut all).await.is_empty(),
        "Now excludes earlier changes"
    );
    assert!(drain(&mut only_a).await.is_empty());

    for (pk, id) in [("a", "n1"), ("b", "n2"), ("a", "n3"), ("c", "n4")] {
        c.create_item(pk, id, &json!({"id": id, "pk": pk}), None)
            .await
            .unwrap();
    }
    assert_eq!(
        current_ids(&drain(&mut all).await),
        ["n1", "n2", "n3", "n4"]
    );
    assert_eq!(current_ids(&drain(&mut only_a).await), ["n1", "n3"]);

    // From the beginning, scoped to one partition key.
    let mut b = c
        .query_change_feed::<Value>(
            FeedScope::partition("a"),
            ChangeFeedStartFrom::Beginning,
            None,
        )
        .await
        .unwrap();
    assert_eq!(current_ids(&drain(&mut b).await), ["n1", "n3", "old"]);
}

#[tokio::test]
async fn resume_from_continuation_token() {
    let (_emu, client) = setup(ARGS).await;
    let c = container(&client, ContainerProperties::new("cf", "/pk".into())).await;
    for i in 0..4 {
        c.create_item(
            format!("p{i}"),
            &format!("x{i}"),
            &json!({"id": format!("x{i}"), "pk": format!("p{i}")}),
            None,
        )
        .await
        .unwrap();
    }
    let mut it = c
        .query_change_feed::<Value>(
            FeedScope::full_container(),
            ChangeFeedStartFrom::Beginning,
            None,
        )
        .await
        .unwrap();
    assert_eq!(drain(&mut it).await.len(), 4);
    let token = it.to_continuation_token().unwrap();
    drop(it);

    c.create_item("p9", "y1", &json!({"id": "y1", "pk": "p9"}), None)
        .await
        .unwrap();
    c.replace_item(
        "p0",
        "x0",
        &json!({"id": "x0", "pk": "p0", "changed": true}),
        None,
    )
    .await
    .unwrap();

    let opts = ChangeFeedOptions::default().with_continuation_token(token);
    let mut resumed = c
        .query_change_feed::<Value>(
            FeedScope::full_container(),
            ChangeFeedStartFrom::Beginning,
            Some(opts),
        )
        .await
        .unwrap();
    let items = drain(&mut resumed).await;
    assert_eq!(
        current_ids(&items),
        ["x0", "y1"],
        "only the changes after the token"
    );
}

#[tokio::test]
async fn all_versions_and_deletes() {
    let (_emu, client) = setup(ARGS).await;
    let props = ContainerProperties::new("av", "/pk".into()).with_change_feed_policy(
        ChangeFeedPolicy::default().with_retention_duration(Duration::from_secs(600)),
    );
    let c = container(&client, props).await;
    let opts =
        || Some(ChangeFeedOptions::default().with_mode(ChangeFeedMode::AllVersionsAndDeletes));
    let mut it = c
        .query_change_feed::<Value>(
            FeedScope::full_container(),
            ChangeFeedStartFrom::Now,
            opts(),
        )
        .await
        .unwrap();
    assert!(drain(&mut it).await.is_empty());

    c.create_item("k", "z", &json!({"id": "z", "pk": "k", "v": 1}), None)
        .await
        .unwrap();
    c.replace_item("k", "z", &json!({"id": "z", "pk": "k", "v": 2}), None)
        .await
        .unwrap();
    c.delete_item("k", "z", None).await.unwrap();

    let items = drain(&mut it).await;
    let kinds: Vec<Option<ChangeFeedOperationType>> =
        items.iter().map(|i| i.operation_type()).collect();
    assert_eq!(
        kinds,
        [
            Some(ChangeFeedOperationType::Create),
            Some(ChangeFeedOperationType::Replace),
            Some(ChangeFeedOperationType::Delete)
        ],
        "{items:?}"
    );
    assert_eq!(items[0].current().unwrap()["v"], 1);
    assert_eq!(items[1].current().unwrap()["v"], 2);
    let lsns: Vec<_> = items
        .iter()
        .map(|i| i.metadata().and_then(|m| m.lsn()).expect("metadata.lsn"))
        .collect();
    assert!(lsns[0] < lsns[1] && lsns[1] < lsns[2], "{lsns:?}");
    assert_eq!(items[2].metadata().unwrap().id(), Some("z"));

    // Reading all versions from the beginning is refused by the service (400).
    let r = match c
        .query_change_feed::<Value>(
            FeedScope::full_container(),
            ChangeFeedStartFrom::Beginning,
            opts(),
        )
        .await
    {
        Err(e) => Err(e),
        Ok(mut it) => match it.next().await {
            Some(Err(e)) => Err(e),
            Some(Ok(p)) => Ok(p.into_items()),
            None => Ok(vec![]),
        },
    };
    expect_status(r, 400);
}
