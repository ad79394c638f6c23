//! Patch (`unstable_patch` feature): the server-side JSON-patch operations.

use crate::common::*;
use crate::items::container;
use azure_data_cosmos::models::{PatchInstructions, PatchOperation};
use azure_data_cosmos::options::{PatchItemOptions, PatchStrategy, Precondition};
use serde_json::{json, Value};

fn server_side() -> PatchItemOptions {
    PatchItemOptions::default()
        .with_strategy(PatchStrategy::ServerSide)
        .with_operation_options(with_content())
}

#[tokio::test]
async fn all_operations_server_side() {
    let (_emu, client) = setup(&[]).await;
    let c = container(&client, "/pk").await;
    let item = json!({"id": "p1", "pk": "a", "count": 1, "name": "old", "tags": ["x"], "gone": 1, "from": "moved"});
    let r = c.create_item("a", "p1", &item, None).await.unwrap();
    let etag0 = r.headers().etag().cloned().unwrap();

    let patch = PatchInstructions::from(vec![
        PatchOperation::set("/name", json!("new")),
        PatchOperation::replace("/count", json!(10)),
        PatchOperation::increment("/count", 5i64),
        PatchOperation::add("/tags/-", json!("y")),
        PatchOperation::add("/extra", json!({"k": 1})),
        PatchOperation::remove("/gone"),
        PatchOperation::move_value("/from", "/to"),
    ]);
    let r = c
        .patch_item("a", "p1", patch, Some(server_side()))
        .await
        .unwrap();
    assert_eq!(code(r.status().status_code()), 200);
    let etag1 = r.headers().etag().cloned().unwrap();
    assert_ne!(etag1, etag0);
    let body: Value = r.into_model().unwrap();
    assert_eq!(body["name"], "new");
    assert_eq!(body["count"], 15);
    assert_eq!(body["tags"], json!(["x", "y"]));
    assert_eq!(body["extra"], json!({"k": 1}));
    assert!(body.get("gone").is_none());
    assert!(body.get("from").is_none());
    assert_eq!(body["to"], "moved");
    assert_eq!(body["_etag"], etag1.to_string());

    let read: Value = c
        .read_item("a", "p1", None)
        .await
        .unwrap()
        .into_model()
        .unwrap();
    assert_eq!(read["count"], 15);

    // Conditional patch on a stale ETag.
    let opts = server_side().with_precondition(Precondition::if_match(etag0));
    expect_status(
        c.patch_item(
            "a",
            "p1",
            PatchInstructions::from(vec![PatchOperation::set("/name", json!("z"))]),
            Some(opts),
        )
        .await,
        412,
    );
    // Conditional patch on the current ETag.
    let opts = server_side().with_precondition(Precondition::if_match(etag1));
    let r = c
        .patch_item(
            "a",
            "p1",
            PatchInstructions::from(vec![PatchOperation::set("/name", json!("z"))]),
            Some(opts),
        )
        .await
        .unwrap();
    assert_eq!(code(r.status().status_code()), 200);
}

#[tokio::test]
async fn default_strategy_patch() {
    let (_emu, client) = setup(&[]).await;
    let c = container(&client, "/pk").await;
    c.create_item("a", "d", &json!({"id": "d", "pk": "a", "v": 1}), None)
        .await
        .unwrap();
    let r = c
        .patch_item(
            "a",
            "d",
            PatchInstructions::from(vec![PatchOperation::set("/v", json!(2))]),
            None,
        )
        .await
        .unwrap();
    assert_eq!(code(r.status().status_code()), 200);
    let read: Value = c
        .read_item("a", "d", None)
        .await
        .unwrap()
        .into_model()
        .unwrap();
    assert_eq!(read["v"], 2);
}

#[tokio::test]
async fn patch_errors() {
    let (_emu, client) = setup(&[]).await;
    let c = container(&client, "/pk").await;
    c.create_item("a", "e", &json!({"id": "e", "pk": "a", "s": "text"}), None)
        .await
        .unwrap();
    let one = || PatchInstructions::from(vec![PatchOperation::set("/v", json!(1))]);

    // Missing item.
    expect_status(
        c.patch_item("a", "nope", one(), Some(server_side())).await,
        404,
    );
    // More than 10 operations, server side: 400.
    let many: Vec<_> = (0..11)
        .map(|i| PatchOperation::set(format!("/f{i}"), json!(i)))
        .collect();
    expect_status(
        c.patch_item("a", "e", PatchInstructions::from(many), Some(server_side()))
            .await,
        400,
    );
    // Increment of a string: 400.
    expect_status(
        c.patch_item(
            "a",
            "e",
            PatchInstructions::from(vec![PatchOperation::increment("/s", 1i64)]),
            Some(server_side()),
        )
        .await,
        400,
    );
    // Remove of a missing path: 400.
    expect_status(
        c.patch_item(
            "a",
            "e",
            PatchInstructions::from(vec![PatchOperation::remove("/missing")]),
            Some(server_side()),
        )
        .await,
        400,
    );
    // The item is unchanged after the failures.
    let read: Value = c
        .read_item("a", "e", None)
        .await
        .unwrap()
        .into_model()
        .unwrap();
    assert!(read.get("v").is_none());
    assert!(read.get("f0").is_none());
}
