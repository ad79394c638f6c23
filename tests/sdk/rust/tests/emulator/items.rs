//! Items: create, read, replace, upsert, delete, with exact statuses, ETags and preconditions.

use crate::common::*;
use azure_core::http::Etag;
use azure_data_cosmos::clients::ContainerClient;
use azure_data_cosmos::models::ContainerProperties;
use azure_data_cosmos::options::{ItemReadOptions, ItemWriteOptions, Precondition};
use azure_data_cosmos::CosmosClient;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Doc {
    id: String,
    pk: String,
    n: i64,
}

pub async fn container(client: &CosmosClient, pk_path: &str) -> ContainerClient {
    client.create_database("db", None).await.unwrap();
    let db = client.database_client("db");
    db.create_container(
        ContainerProperties::new("items", pk_path.to_string().into()),
        None,
    )
    .await
    .unwrap();
    db.container_client("items", None).await.unwrap()
}

fn write_with_content() -> ItemWriteOptions {
    ItemWriteOptions::default().with_operation_options(with_content())
}

fn if_match(etag: &Etag) -> ItemWriteOptions {
    ItemWriteOptions::default().with_precondition(Precondition::if_match(etag.clone()))
}

#[tokio::test]
async fn create_read_replace_delete_with_etags() {
    let (_emu, client) = setup(&[]).await;
    let c = container(&client, "/pk").await;
    let doc = Doc {
        id: "a".into(),
        pk: "p".into(),
        n: 1,
    };

    // Create (asking for the body back).
    let r = c
        .create_item("p", "a", &doc, Some(write_with_content()))
        .await
        .unwrap();
    assert_eq!(code(r.status().status_code()), 201);
    let etag1 = r
        .headers()
        .etag()
        .cloned()
        .expect("create answers an ETag header");
    assert!(r.headers().session_token().is_some(), "x-ms-session-token");
    assert!(
        r.headers().request_charge().is_some(),
        "x-ms-request-charge"
    );
    let body: Value = r.into_model().unwrap();
    assert_eq!(body["id"], "a");
    assert_eq!(body["n"], 1);
    assert_eq!(body["_etag"], etag1.to_string(), "body _etag = ETag header");
    let rid = body["_rid"].as_str().expect("_rid").to_string();
    assert!(body["_ts"].is_i64());
    assert!(
        body["_self"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/docs/{rid}/")),
        "{}",
        body["_self"]
    );

    // Read.
    let r = c.read_item("p", "a", None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 200);
    assert_eq!(r.headers().etag(), Some(&etag1));
    let read: Doc = r.into_model().unwrap();
    assert_eq!(read, doc);

    // Replace, conditional on the current ETag.
    let doc2 = Doc {
        n: 2,
        ..doc.clone()
    };
    let r = c
        .replace_item(
            "p",
            "a",
            &doc2,
            Some(if_match(&etag1).with_operation_options(with_content())),
        )
        .await
        .unwrap();
    assert_eq!(code(r.status().status_code()), 200);
    let etag2 = r
        .headers()
        .etag()
        .cloned()
        .expect("replace answers an ETag header");
    assert_ne!(etag2, etag1);
    let body: Value = r.into_model().unwrap();
    assert_eq!(body["n"], 2);
    assert_eq!(body["_rid"], rid.as_str(), "a replace keeps _rid");

    // The old ETag no longer matches.
    expect_status(
        c.replace_item("p", "a", &doc, Some(if_match(&etag1))).await,
        412,
    );
    expect_status(c.delete_item("p", "a", Some(if_match(&etag1))).await, 412);

    // Read with If-None-Match on the current ETag: 304 Not Modified.
    let r = c
        .read_item(
            "p",
            "a",
            Some(
                ItemReadOptions::default()
                    .with_precondition(Precondition::if_none_match(etag2.clone())),
            ),
        )
        .await;
    match r {
        Ok(resp) => assert_eq!(code(resp.status().status_code()), 304),
        Err(e) => assert_eq!(err_status(&e), 304, "{e:?}"),
    }
    // ... and 200 with the body on an older ETag.
    let r = c
        .read_item(
            "p",
            "a",
            Some(
                ItemReadOptions::default()
                    .with_precondition(Precondition::if_none_match(etag1.clone())),
            ),
        )
        .await
        .unwrap();
    assert_eq!(code(r.status().status_code()), 200);
    assert_eq!(r.into_model::<Doc>().unwrap().n, 2);

    // Delete on the current ETag.
    let r = c
        .delete_item("p", "a", Some(if_match(&etag2)))
        .await
        .unwrap();
    assert_eq!(code(r.status().status_code()), 204);
    assert!(r.into_body().is_empty(), "a delete has no body");

    expect_status(c.read_item("p", "a", None).await, 404);
    expect_status(c.delete_item("p", "a", None).await, 404);
    expect_status(c.replace_item("p", "a", &doc, None).await, 404);
}

#[tokio::test]
async fn create_twice_conflicts() {
    let (_emu, client) = setup(&[]).await;
    let c = container(&client, "/pk").await;
    let doc = Doc {
        id: "x".into(),
        pk: "p".into(),
        n: 1,
    };
    c.create_item("p", "x", &doc, None).await.unwrap();
    expect_status(c.create_item("p", "x", &doc, None).await, 409);
    // The same id under another partition key is another item.
    let other = Doc {
        pk: "q".into(),
        ..doc
    };
    let r = c.create_item("q", "x", &other, None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 201);
}

#[tokio::test]
async fn upsert_creates_then_replaces() {
    let (_emu, client) = setup(&[]).await;
    let c = container(&client, "/pk").await;
    let doc = Doc {
        id: "u".into(),
        pk: "p".into(),
        n: 1,
    };
    let r = c
        .upsert_item("p", "u", &doc, Some(write_with_content()))
        .await
        .unwrap();
    assert_eq!(
        code(r.status().status_code()),
        201,
        "upsert of a new item creates it"
    );
    let etag1 = r.headers().etag().cloned().unwrap();
    let r = c
        .upsert_item(
            "p",
            "u",
            &Doc {
                n: 5,
                ..doc.clone()
            },
            Some(write_with_content()),
        )
        .await
        .unwrap();
    assert_eq!(
        code(r.status().status_code()),
        200,
        "upsert of an existing item replaces it"
    );
    let etag2 = r.headers().etag().cloned().unwrap();
    assert_ne!(etag1, etag2);
    assert_eq!(r.into_model::<Doc>().unwrap().n, 5);
    // Conditional upsert with a stale ETag.
    expect_status(
        c.upsert_item("p", "u", &doc, Some(if_match(&etag1))).await,
        412,
    );
    let read: Doc = c
        .read_item("p", "u", None)
        .await
        .unwrap()
        .into_model()
        .unwrap();
    assert_eq!(read.n, 5);
}

/// Without `ContentResponseOnWrite::Enabled` the SDK sends `Prefer: return=minimal` on create,
/// replace and upsert, and the service answers without a body (status and headers only).
#[tokio::test]
async fn writes_without_content_response_have_no_body() {
    let (_emu, client) = setup(&[]).await;
    let c = container(&client, "/pk").await;
    let doc = Doc {
        id: "m".into(),
        pk: "p".into(),
        n: 1,
    };
    let r = c.create_item("p", "m", &doc, None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 201);
    assert!(
        r.headers().etag().is_some(),
        "the ETag header is still sent"
    );
    let body = r.into_body();
    let mut bodies = Vec::new();
    if !body.is_empty() {
        bodies.push(format!(
            "create: {}",
            String::from_utf8_lossy(&body.single().unwrap_or_default())
        ));
    }

    let r = c
        .replace_item(
            "p",
            "m",
            &Doc {
                n: 2,
                ..doc.clone()
            },
            None,
        )
        .await
        .unwrap();
    assert_eq!(code(r.status().status_code()), 200);
    if !r.into_body().is_empty() {
        bodies.push("replace".into());
    }

    let r = c
        .upsert_item(
            "p",
            "m",
            &Doc {
                n: 3,
                ..doc.clone()
            },
            None,
        )
        .await
        .unwrap();
    assert_eq!(code(r.status().status_code()), 200);
    if !r.into_body().is_empty() {
        bodies.push("upsert".into());
    }

    // (patch_item sends no Prefer header in this SDK version: not checked here.)
    assert!(
        bodies.is_empty(),
        "writes sent with Prefer: return=minimal answered a body: {bodies:?}"
    );
}

/// The partition key in the body must match the one the request names: 400, substatus 1001.
#[tokio::test]
async fn partition_key_mismatch_is_bad_request() {
    let (_emu, client) = setup(&[]).await;
    let c = container(&client, "/pk").await;
    let doc = Doc {
        id: "k".into(),
        pk: "body-key".into(),
        n: 1,
    };
    let e = expect_status(c.create_item("header-key", "k", &doc, None).await, 400);
    assert_eq!(err_substatus(&e), Some(1001), "{e:?}");
    // Reading under the wrong key finds nothing.
    c.create_item("body-key", "k", &doc, None).await.unwrap();
    expect_status(c.read_item("other", "k", None).await, 404);
}

/// Ids with characters that need escaping in the URL, and non-string partition keys.
#[tokio::test]
async fn unusual_ids_and_key_types() {
    let (_emu, client) = setup(&[]).await;
    let c = container(&client, "/k").await;
    let id = "a b+c=d;é€";
    let item = json!({"id": id, "k": 42, "v": "num"});
    let r = c.create_item(42i64, id, &item, None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 201);
    let read: Value = c
        .read_item(42i64, id, None)
        .await
        .unwrap()
        .into_model()
        .unwrap();
    assert_eq!(read["id"], id);
    assert_eq!(read["v"], "num");

    let item = json!({"id": "b", "k": true});
    c.create_item(true, "b", &item, None).await.unwrap();
    let read: Value = c
        .read_item(true, "b", None)
        .await
        .unwrap()
        .into_model()
        .unwrap();
    assert_eq!(read["k"], true);
    expect_status(c.read_item(false, "b", None).await, 404);

    let r = c.delete_item(42i64, id, None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 204);
}
