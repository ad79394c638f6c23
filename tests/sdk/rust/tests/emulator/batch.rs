//! Transactional batch: all-or-nothing in one logical partition.

use crate::common::*;
use crate::items::container;
use azure_data_cosmos::TransactionalBatch;
use serde_json::{json, Value};

#[tokio::test]
async fn batch_commits_all_operations() {
    let (_emu, client) = setup(&[]).await;
    let c = container(&client, "/pk").await;
    c.create_item(
        "b",
        "existing",
        &json!({"id": "existing", "pk": "b", "v": 0}),
        None,
    )
    .await
    .unwrap();

    let batch = TransactionalBatch::new("b")
        .create_item(json!({"id": "n1", "pk": "b"}))
        .unwrap()
        .upsert_item(json!({"id": "n2", "pk": "b"}), None)
        .unwrap()
        .replace_item(
            "existing",
            json!({"id": "existing", "pk": "b", "v": 1}),
            None,
        )
        .unwrap()
        .read_item("existing", None)
        .delete_item("n1", None);
    let r = c.execute_transactional_batch(batch, None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 200);
    let results = r.into_model().unwrap();
    let statuses: Vec<u16> = results.results().iter().map(|r| r.status_code()).collect();
    assert_eq!(statuses, [201, 201, 200, 200, 204]);
    assert!(results.results()[2].etag().is_some());
    let read: Value = results.results()[3]
        .into_model()
        .unwrap()
        .expect("read returns the item");
    assert_eq!(read["v"], 1);

    expect_status(c.read_item("b", "n1", None).await, 404);
    c.read_item("b", "n2", None).await.unwrap();
}

#[tokio::test]
async fn failing_operation_rolls_back_the_batch() {
    let (_emu, client) = setup(&[]).await;
    let c = container(&client, "/pk").await;
    c.create_item("b", "dup", &json!({"id": "dup", "pk": "b"}), None)
        .await
        .unwrap();

    let batch = TransactionalBatch::new("b")
        .create_item(json!({"id": "first", "pk": "b"}))
        .unwrap()
        .create_item(json!({"id": "dup", "pk": "b"}))
        .unwrap()
        .create_item(json!({"id": "third", "pk": "b"}))
        .unwrap();
    let r = c.execute_transactional_batch(batch, None).await.unwrap();
    assert_eq!(
        code(r.status().status_code()),
        207,
        "a failed batch answers 207 Multi-Status"
    );
    let results = r.into_model().unwrap();
    let statuses: Vec<u16> = results.results().iter().map(|r| r.status_code()).collect();
    assert_eq!(statuses, [424, 409, 424]);
    expect_status(c.read_item("b", "first", None).await, 404);
    expect_status(c.read_item("b", "third", None).await, 404);
}
