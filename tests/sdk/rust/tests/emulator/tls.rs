//! HTTPS with the SDK's emulator option `ServerCertificateValidation::RequiredUnlessEmulator`
//! (certificate validation off for localhost / 127.0.0.1). Validation on: tests/https.rs.

use crate::common::*;
use azure_data_cosmos::models::ContainerProperties;
use azure_data_cosmos::options::{
    BinaryEncodingOptions, ChangeFeedStartFrom, ConnectionPoolOptions,
    ConnectionPoolOptionsBuilder, ServerCertificateValidation,
};
use azure_data_cosmos::{
    AccountReference, CosmosClient, CosmosRuntime, FeedScope, RoutingStrategy,
};
use futures::{StreamExt, TryStreamExt};
use serde_json::{json, Value};

fn lax() -> ConnectionPoolOptionsBuilder {
    ConnectionPoolOptions::builder()
        .with_server_certificate_validation(ServerCertificateValidation::RequiredUnlessEmulator)
}

async fn client(
    endpoint: &str,
    pool: ConnectionPoolOptionsBuilder,
) -> azure_data_cosmos::Result<CosmosClient> {
    let account = AccountReference::with_authentication_key(endpoint.parse()?, KEY);
    let runtime = CosmosRuntime::builder()
        .with_connection_pool(pool.build()?)
        .build()
        .await?;
    CosmosClient::builder()
        .with_runtime(runtime)
        .with_binary_encoding_options(BinaryEncodingOptions::new().with_enabled(false))
        .build(account, RoutingStrategy::ProximityTo(REGION.into()))
        .await
}

/// Over HTTPS (HTTP/1.1, see common::http11_client): databases, containers, items, a
/// cross-partition query and the change feed.
#[tokio::test]
async fn https_without_validation_http11() {
    let emu = Emulator::start(&["--partition-count", "2"]);
    let client = client(
        &emu.https_endpoint("127.0.0.1"),
        lax().with_is_http2_allowed(false),
    )
    .await
    .unwrap_or_else(|e| panic!("HTTPS client could not connect: {e:?}"));
    assert!(client.endpoint().as_str().starts_with("https://"));
    let r = client.create_database("tls", None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 201);
    let db = client.database_client("tls");
    db.create_container(ContainerProperties::new("c", "/pk".into()), None)
        .await
        .unwrap();
    let c = db.container_client("c", None).await.unwrap();
    for i in 0..4 {
        let r = c
            .create_item(
                format!("p{i}"),
                &format!("{i}"),
                &json!({"id": format!("{i}"), "pk": format!("p{i}")}),
                None,
            )
            .await
            .unwrap();
        assert_eq!(code(r.status().status_code()), 201);
    }
    let r = c
        .replace_item("p1", "1", &json!({"id": "1", "pk": "p1", "v": 2}), None)
        .await
        .unwrap();
    assert_eq!(code(r.status().status_code()), 200);
    let v: Value = c
        .read_item("p1", "1", None)
        .await
        .unwrap()
        .into_model()
        .unwrap();
    assert_eq!(v["v"], 2);
    let rows: Vec<Value> = c
        .query_items::<Value>(
            "SELECT VALUE c.id FROM c ORDER BY c.id",
            FeedScope::full_container(),
            None,
        )
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rows, [json!("0"), json!("1"), json!("2"), json!("3")]);
    let mut feed = c
        .query_change_feed::<Value>(
            FeedScope::partition("p2"),
            ChangeFeedStartFrom::Beginning,
            None,
        )
        .await
        .unwrap();
    let page = feed.next().await.unwrap().unwrap();
    assert_eq!(page.items().len(), 1);
    let r = c.delete_item("p1", "1", None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 204);
}

/// The SDK's default transport over TLS: the HTTP/2 bootstrap probe (see connection.rs). Against
/// the service every build succeeds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_default_http2_probe_builds_every_time() {
    let emu = Emulator::start(&[]);
    let mut errors = Vec::new();
    for _ in 0..20 {
        if let Err(e) = client(&emu.https_endpoint("127.0.0.1"), lax()).await {
            errors.push(
                format!("{e:?}")
                    .lines()
                    .take(4)
                    .collect::<Vec<_>>()
                    .join(" | "),
            );
        }
    }
    assert!(
        errors.is_empty(),
        "{} of 20 HTTPS client builds with the HTTP/2 probe failed; first: {}",
        errors.len(),
        errors[0]
    );
}
