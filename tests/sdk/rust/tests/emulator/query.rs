//! Queries: single partition and cross-partition, parameters, ORDER BY / aggregates / DISTINCT /
//! GROUP BY / OFFSET LIMIT through the SDK's query pipeline, paging. The emulator runs with three
//! physical partitions so cross-partition queries fan out over three ranges.

use crate::common::*;
use azure_data_cosmos::clients::ContainerClient;
use azure_data_cosmos::models::ContainerProperties;
use azure_data_cosmos::options::{MaxItemCountHint, QueryOptions, QueryPlanMode};
use azure_data_cosmos::{CosmosClient, FeedScope, Query};
use futures::{StreamExt, TryStreamExt};
use serde_json::{json, Value};
use std::num::NonZeroU32;

const ARGS: &[&str] = &["--partition-count", "3"];

/// 12 items: pk0..pk3, n = 0..11 (item i has pk "pk{i%4}").
async fn seeded(client: &CosmosClient) -> ContainerClient {
    client.create_database("db", None).await.unwrap();
    let db = client.database_client("db");
    db.create_container(ContainerProperties::new("q", "/pk".into()), None)
        .await
        .unwrap();
    let c = db.container_client("q", None).await.unwrap();
    for i in 0..12i64 {
        let pk = format!("pk{}", i % 4);
        let id = format!("i{i:02}");
        c.create_item(
            pk.clone(),
            &id,
            &json!({"id": id, "pk": pk, "n": i, "even": i % 2 == 0}),
            None,
        )
        .await
        .unwrap();
    }
    c
}

async fn run<T: serde::de::DeserializeOwned + Send + 'static>(
    c: &ContainerClient,
    q: impl Into<Query>,
    scope: FeedScope,
    options: Option<QueryOptions>,
) -> Vec<T> {
    c.query_items::<T>(q, scope, options)
        .await
        .unwrap_or_else(|e| panic!("query planning failed: {e:?}"))
        .try_collect()
        .await
        .unwrap_or_else(|e| panic!("query failed: {e:?}"))
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[tokio::test]
async fn single_partition_with_parameters() {
    let (_emu, client) = setup(ARGS).await;
    let c = seeded(&client).await;
    let q = Query::from("SELECT * FROM c WHERE c.n >= @min AND c.pk = @pk")
        .with_parameter("@min", 4)
        .unwrap()
        .with_parameter("@pk", "pk1")
        .unwrap();
    let rows: Vec<Value> = run(&c, q, FeedScope::partition("pk1"), None).await;
    let ids = sorted(
        rows.iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect(),
    );
    assert_eq!(ids, ["i05", "i09"]);
    assert!(
        rows[0]["_rid"].is_string(),
        "SELECT * returns system properties"
    );

    // The scope alone restricts to the partition.
    let ids: Vec<String> = run(
        &c,
        "SELECT VALUE c.id FROM c",
        FeedScope::partition("pk2"),
        None,
    )
    .await;
    assert_eq!(sorted(ids), ["i02", "i06", "i10"]);

    // An array parameter.
    let q = Query::from("SELECT VALUE c.n FROM c WHERE ARRAY_CONTAINS(@ids, c.id)")
        .with_parameter("@ids", ["i03", "i07", "i99"])
        .unwrap();
    let mut ns: Vec<i64> = run(&c, q, FeedScope::partition("pk3"), None).await;
    ns.sort();
    assert_eq!(ns, [3, 7]);
}

#[tokio::test]
async fn cross_partition_filter_and_projection() {
    let (_emu, client) = setup(ARGS).await;
    let c = seeded(&client).await;
    let q = Query::from("SELECT c.id, c.n FROM c WHERE c.even = @even")
        .with_parameter("@even", true)
        .unwrap();
    let rows: Vec<Value> = run(&c, q, FeedScope::full_container(), None).await;
    assert_eq!(rows.len(), 6);
    let ids = sorted(
        rows.iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect(),
    );
    assert_eq!(ids, ["i00", "i02", "i04", "i06", "i08", "i10"]);
    assert!(
        rows.iter().all(|r| r.as_object().unwrap().len() == 2),
        "projection keeps only id and n: {rows:?}"
    );
    let all: Vec<Value> = run(&c, "SELECT * FROM c", FeedScope::full_container(), None).await;
    assert_eq!(all.len(), 12);
}

/// ORDER BY, TOP, OFFSET/LIMIT and DISTINCT across the three ranges. (This SDK version refuses
/// cross-partition aggregates and GROUP BY itself, 400/20113 ClientUnsupportedQueryFeature from its
/// planner before any request is sent; `aggregates_in_one_partition` covers those.)
async fn order_by_checks(plan: QueryPlanMode) {
    let (_emu, client) = setup(ARGS).await;
    let c = seeded(&client).await;
    let opts = || Some(QueryOptions::default().with_query_plan_mode(plan));

    let ns: Vec<i64> = run(
        &c,
        "SELECT VALUE c.n FROM c ORDER BY c.n DESC",
        FeedScope::full_container(),
        opts(),
    )
    .await;
    assert_eq!(ns, (0..12).rev().collect::<Vec<i64>>());

    let rows: Vec<Value> = run(
        &c,
        "SELECT c.id FROM c ORDER BY c.n",
        FeedScope::full_container(),
        opts(),
    )
    .await;
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, (0..12).map(|i| format!("i{i:02}")).collect::<Vec<_>>());

    let q = Query::from("SELECT VALUE c.id FROM c WHERE c.n < @max ORDER BY c.id DESC")
        .with_parameter("@max", 5)
        .unwrap();
    let ids: Vec<String> = run(&c, q, FeedScope::full_container(), opts()).await;
    assert_eq!(ids, ["i04", "i03", "i02", "i01", "i00"]);

    let ns: Vec<i64> = run(
        &c,
        "SELECT TOP 3 VALUE c.n FROM c ORDER BY c.n DESC",
        FeedScope::full_container(),
        opts(),
    )
    .await;
    assert_eq!(ns, [11, 10, 9]);

    let ns: Vec<i64> = run(
        &c,
        "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 2 LIMIT 3",
        FeedScope::full_container(),
        opts(),
    )
    .await;
    assert_eq!(ns, [2, 3, 4]);

    let top: Vec<Value> = run(
        &c,
        "SELECT TOP 5 c.id FROM c",
        FeedScope::full_container(),
        opts(),
    )
    .await;
    assert_eq!(top.len(), 5);

    // (Unordered DISTINCT across partitions needs a finite TOP/LIMIT in this SDK: 400/20125.)
    let pks: Vec<String> = run(
        &c,
        "SELECT DISTINCT TOP 10 VALUE c.pk FROM c",
        FeedScope::full_container(),
        opts(),
    )
    .await;
    assert_eq!(sorted(pks), ["pk0", "pk1", "pk2", "pk3"]);
    let pks: Vec<String> = run(
        &c,
        "SELECT DISTINCT VALUE c.pk FROM c ORDER BY c.pk DESC",
        FeedScope::full_container(),
        opts(),
    )
    .await;
    assert_eq!(pks, ["pk3", "pk2", "pk1", "pk0"]);
}

/// Aggregates and GROUP BY scoped to one partition key (one range: no client-side merge).
#[tokio::test]
async fn aggregates_in_one_partition() {
    let (_emu, client) = setup(ARGS).await;
    let c = seeded(&client).await;
    let p1 = || FeedScope::partition("pk1"); // n = 1, 5, 9
    let count: Vec<i64> = run(&c, "SELECT VALUE COUNT(1) FROM c", p1(), None).await;
    assert_eq!(count, [3]);
    let sum: Vec<i64> = run(&c, "SELECT VALUE SUM(c.n) FROM c", p1(), None).await;
    assert_eq!(sum, [15]);
    let max: Vec<i64> = run(&c, "SELECT VALUE MAX(c.n) FROM c WHERE c.n < 9", p1(), None).await;
    assert_eq!(max, [5]);
    let avg: Vec<f64> = run(&c, "SELECT VALUE AVG(c.n) FROM c", p1(), None).await;
    assert_eq!(avg, [5.0]);
    let groups: Vec<Value> = run(
        &c,
        "SELECT c.even, COUNT(1) AS cnt FROM c GROUP BY c.even",
        p1(),
        None,
    )
    .await;
    assert_eq!(groups, [json!({"even": false, "cnt": 3})]);
    let ordered: Vec<i64> = run(&c, "SELECT VALUE c.n FROM c ORDER BY c.n DESC", p1(), None).await;
    assert_eq!(ordered, [9, 5, 1]);
}

/// The SDK's own (local) query planner.
#[tokio::test]
async fn cross_partition_pipeline_local_plan() {
    order_by_checks(QueryPlanMode::LocalPreferred).await;
}

/// Query plans fetched from the gateway (`x-ms-cosmos-is-query-plan-request`).
#[tokio::test]
async fn cross_partition_pipeline_gateway_plan() {
    order_by_checks(QueryPlanMode::GatewayOnly).await;
}

#[tokio::test]
async fn paging_with_max_item_count() {
    let (_emu, client) = setup(ARGS).await;
    let c = seeded(&client).await;
    let opts = QueryOptions::default()
        .with_max_item_count(MaxItemCountHint::Limit(NonZeroU32::new(2).unwrap()));
    let mut pages = c
        .query_items::<Value>("SELECT * FROM c", FeedScope::partition("pk0"), Some(opts))
        .await
        .unwrap()
        .into_pages();
    let mut sizes = Vec::new();
    let mut ids = Vec::new();
    while let Some(page) = pages.next().await {
        let page = page.unwrap();
        sizes.push(page.items().len());
        ids.extend(
            page.items()
                .iter()
                .map(|v| v["id"].as_str().unwrap().to_string()),
        );
    }
    // pk0 holds i00, i04, i08: pages of at most 2.
    assert!(sizes.iter().all(|s| *s <= 2), "{sizes:?}");
    assert_eq!(sorted(ids), ["i00", "i04", "i08"]);
    assert!(sizes.len() >= 2, "{sizes:?}");
}

#[tokio::test]
async fn invalid_query_is_bad_request() {
    let (_emu, client) = setup(ARGS).await;
    let c = seeded(&client).await;
    let r = match c
        .query_items::<Value>("SELECT * FROM c WHERE", FeedScope::partition("pk0"), None)
        .await
    {
        Err(e) => Err(e),
        Ok(it) => it.try_collect::<Vec<_>>().await,
    };
    expect_status(r, 400);
}
