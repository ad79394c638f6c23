//! HTTPS with certificate validation on: the SDK (rustls through reqwest) against the emulator's
//! TLS on the same port.
//!
//! The SDK verifies certificates against the system roots as rustls-native-certs loads them, which
//! honours `SSL_CERT_FILE`; the emulator's self-signed certificate is exported with `--cert-export`
//! and named there. The variable must be set before any client exists, so this binary holds a
//! single test that sets it first thing (no other thread reads the environment then).

mod common;

use azure_data_cosmos::models::ContainerProperties;
use azure_data_cosmos::options::ChangeFeedStartFrom;
use azure_data_cosmos::options::{
    BinaryEncodingOptions, ConnectionPoolOptions, ServerCertificateValidation,
};
use azure_data_cosmos::{
    AccountReference, CosmosClient, CosmosRuntime, FeedScope, RoutingStrategy,
};
use common::*;
use futures::{StreamExt, TryStreamExt};
use serde_json::{json, Value};

/// A text-JSON client on HTTP/1.1 (see common::http11_client for why) with the given validation.
async fn client_with(
    endpoint: &str,
    validation: ServerCertificateValidation,
) -> azure_data_cosmos::Result<CosmosClient> {
    client_with_pool(
        endpoint,
        ConnectionPoolOptions::builder()
            .with_server_certificate_validation(validation)
            .with_is_http2_allowed(false),
    )
    .await
}

async fn client_with_pool(
    endpoint: &str,
    pool: azure_data_cosmos::options::ConnectionPoolOptionsBuilder,
) -> azure_data_cosmos::Result<CosmosClient> {
    let account = AccountReference::with_authentication_key(endpoint.parse()?, KEY);
    let runtime = CosmosRuntime::builder()
        .with_connection_pool(pool.build()?)
        .build()
        .await?;
    CosmosClient::builder()
        .with_binary_encoding_options(BinaryEncodingOptions::new().with_enabled(false))
        .with_runtime(runtime)
        .build(account, RoutingStrategy::ProximityTo(REGION.into()))
        .await
}

async fn exercise(client: &CosmosClient, db_id: &str) {
    let r = client.create_database(db_id, None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 201);
    let db = client.database_client(db_id);
    db.create_container(ContainerProperties::new("c", "/pk".into()), None)
        .await
        .unwrap();
    let c = db.container_client("c", None).await.unwrap();
    let r = c
        .create_item("p", "1", &json!({"id": "1", "pk": "p", "v": 1}), None)
        .await
        .unwrap();
    assert_eq!(code(r.status().status_code()), 201);
    let r = c
        .replace_item("p", "1", &json!({"id": "1", "pk": "p", "v": 2}), None)
        .await
        .unwrap();
    assert_eq!(code(r.status().status_code()), 200);
    let v: Value = c
        .read_item("p", "1", None)
        .await
        .unwrap()
        .into_model()
        .unwrap();
    assert_eq!(v["v"], 2);
    let rows: Vec<Value> = c
        .query_items::<Value>(
            "SELECT * FROM c WHERE c.v = 2",
            FeedScope::full_container(),
            None,
        )
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rows.len(), 1);
    let mut feed = c
        .query_change_feed::<Value>(
            FeedScope::full_container(),
            ChangeFeedStartFrom::Beginning,
            None,
        )
        .await
        .unwrap();
    let page = feed.next().await.unwrap().unwrap();
    assert_eq!(page.items().len(), 1);
    let r = c.delete_item("p", "1", None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 204);
}

#[test]
fn https_trusting_the_exported_certificate() {
    // Emulator A: its certificate is the only root the SDK trusts in this process.
    let dir = std::env::temp_dir().join(format!("cosmos-rust-sdk-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cert = dir.join("emulator.pem");
    let a = Emulator::start(&["--cert-export", cert.to_str().unwrap()]);
    let pem = std::fs::read_to_string(&cert).expect("--cert-export wrote the certificate");
    assert!(pem.contains("BEGIN CERTIFICATE"));
    std::env::set_var("SSL_CERT_FILE", &cert);
    std::env::remove_var("SSL_CERT_DIR");

    let b = Emulator::start(&[]); // another self-signed certificate, not trusted
                                  // (HTTPS with validation off, and the HTTP/2 probe over TLS: tests/emulator/tls.rs.)

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // Each check runs even when an earlier one failed; the test fails at the end listing them all.
    let mut failures: Vec<String> = Vec::new();
    rt.block_on(async {
        // Certificate validation on (the SDK's default), by IP address and by name.
        for (host, db) in [("127.0.0.1", "by-ip"), ("localhost", "by-name")] {
            match client_with(&a.https_endpoint(host), ServerCertificateValidation::Required).await {
                Ok(strict) => {
                    if let Err(e) = tokio::spawn(async move { exercise(&strict, db).await }).await {
                        failures.push(format!("validation on, {host}: operations failed: {e}"));
                    }
                }
                Err(e) => failures.push(format!(
                    "validation on, {host}: the client could not connect trusting the --cert-export certificate: {e:?}"
                )),
            }
        }

        // A certificate outside SSL_CERT_FILE is refused when validation is on.
        if client_with(&b.https_endpoint("127.0.0.1"), ServerCertificateValidation::Required).await.is_ok() {
            failures.push("validation on: a certificate outside SSL_CERT_FILE was accepted".into());
        }
    });
    assert!(
        failures.is_empty(),
        "HTTPS failures:\n{}",
        failures.join("\n\n")
    );
    drop(rt);
    let _ = std::fs::remove_dir_all(&dir);
}
