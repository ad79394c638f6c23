//! Building a client: the account read (`GET /`), the HTTP version probe, master-key signing.

use crate::common::*;
use azure_data_cosmos::options::{BinaryEncodingOptions, ConnectionPoolOptions};
use azure_data_cosmos::{AccountReference, CosmosClient, CosmosRuntime, RoutingStrategy};

/// Builds `n` clients with every SDK default against the emulator; returns the errors.
async fn build_default_clients(endpoint: &str, n: usize) -> Vec<String> {
    let mut errors = Vec::new();
    for _ in 0..n {
        match default_client(endpoint).await {
            Ok(client) => drop(client),
            Err(e) => errors.push(
                format!("{e:?}")
                    .lines()
                    .take(4)
                    .collect::<Vec<_>>()
                    .join(" | "),
            ),
        }
    }
    errors
}

/// With every default the SDK first reads the account (`GET /`) with HTTP/2 prior knowledge and
/// falls back to HTTP/1.1 only when the failure carries an HTTP/2 protocol error
/// (HTTP_1_1_REQUIRED, PROTOCOL_ERROR, FRAME_SIZE_ERROR). Against the service (HTTP/2) the probe
/// succeeds. Against the emulator (HTTP/1.1 only) it depends on timing: on a multi-threaded tokio
/// runtime (what `#[tokio::main]` gives) most builds fail with "connection closed".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_client_builds_every_time_multi_thread() {
    let emu = Emulator::start(&[]);
    let errors = build_default_clients(&emu.http_endpoint(), 20).await;
    assert!(
        errors.is_empty(),
        "{} of 20 client builds with the SDK defaults failed; first: {}",
        errors.len(),
        errors[0]
    );
}

/// The same on a current-thread runtime, then one request.
#[tokio::test]
async fn default_client_builds_every_time_current_thread() {
    let emu = Emulator::start(&[]);
    let errors = build_default_clients(&emu.http_endpoint(), 20).await;
    assert!(
        errors.is_empty(),
        "{} of 20 client builds with the SDK defaults failed; first: {}",
        errors.len(),
        errors[0]
    );
    let client = default_client(&emu.http_endpoint()).await.unwrap();
    assert_eq!(client.endpoint().as_str(), emu.http_endpoint());
    let r = client.create_database("conn", None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 201);
}

/// HTTP/2 disabled: the account is read over HTTP/1.1 directly (what the other tests use).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http11_only_client_works() {
    let emu = Emulator::start(&[]);
    for _ in 0..20 {
        text_client(&emu.http_endpoint()).await.unwrap();
    }
    let client = text_client(&emu.http_endpoint()).await.unwrap();
    let r = client.create_database("h1", None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 201);
    let r = client.database_client("h1").read(None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 200);
}

/// A request signed with another key is refused with 401 (the account read at build time).
#[tokio::test]
async fn wrong_key_is_unauthorized() {
    let emu = Emulator::start(&[]);
    // A valid base64 key that is not the emulator's.
    let wrong = "dGhpcyBpcyBub3QgdGhlIGVtdWxhdG9yJ3Mga2V5IGF0IGFsbCwgbm90IGF0IGFsbCEhIQ==";
    let pool = ConnectionPoolOptions::builder()
        .with_is_http2_allowed(false)
        .build()
        .unwrap();
    let runtime = CosmosRuntime::builder()
        .with_connection_pool(pool)
        .build()
        .await
        .unwrap();
    let account =
        AccountReference::with_authentication_key(emu.http_endpoint().parse().unwrap(), wrong);
    let r = CosmosClient::builder()
        .with_runtime(runtime)
        .with_binary_encoding_options(BinaryEncodingOptions::new().with_enabled(false))
        .build(account, RoutingStrategy::ProximityTo(REGION.into()))
        .await;
    match r {
        Ok(client) => {
            // Should the account be read lazily, the first request must fail the same way.
            expect_status(client.create_database("x", None).await, 401);
        }
        Err(e) => assert_eq!(err_status(&e), 401, "unexpected error: {e:?}"),
    }
}
