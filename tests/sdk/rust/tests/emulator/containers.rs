//! Containers: create, read, query, replace, delete, throughput, feed ranges.

use crate::common::*;
use azure_data_cosmos::models::{
    ContainerProperties, PartitionKeyKind, ThroughputProperties, TimeToLive,
};
use azure_data_cosmos::options::CreateContainerOptions;
use azure_data_cosmos::Query;
use futures::TryStreamExt;

#[tokio::test]
async fn create_read_replace_delete() {
    let (emu, client) = setup(&[]).await;
    client.create_database("db", None).await.unwrap();
    let db = client.database_client("db");

    let r = db
        .create_container(ContainerProperties::new("c1", "/pk".into()), None)
        .await
        .unwrap();
    assert_eq!(code(r.status().status_code()), 201);
    let etag1 = r.headers().etag().cloned().expect("ETag header");
    let created: ContainerProperties = r.into_model().unwrap();
    assert_eq!(created.id, "c1");
    assert_eq!(created.partition_key.paths(), ["/pk"]);
    assert_eq!(created.partition_key.kind(), PartitionKeyKind::Hash);
    assert_eq!(created.system_properties.etag.as_ref(), Some(&etag1));
    assert!(created.system_properties.resource_id.is_some());
    assert!(
        created.indexing_policy.is_some(),
        "the service returns the default indexing policy"
    );

    let c1 = db.container_client("c1", None).await.unwrap();
    let r = c1.read(None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 200);
    assert_eq!(r.headers().etag(), Some(&etag1));
    let read: ContainerProperties = r.into_model().unwrap();
    assert_eq!(
        read.system_properties.resource_id,
        created.system_properties.resource_id
    );

    // Replace: add a default TTL.
    let mut props = read.clone();
    props.default_ttl = TimeToLive::Seconds(3600);
    let r = c1.replace(props, None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 200);
    let etag2 = r.headers().etag().cloned().expect("ETag header");
    assert_ne!(etag2, etag1, "a replace changes the ETag");
    let replaced: ContainerProperties = r.into_model().unwrap();
    assert_eq!(replaced.default_ttl, TimeToLive::Seconds(3600));
    let again: ContainerProperties = c1.read(None).await.unwrap().into_model().unwrap();
    assert_eq!(again.default_ttl, TimeToLive::Seconds(3600));
    assert_eq!(again.system_properties.etag.as_ref(), Some(&etag2));

    let r = c1.delete(None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 204);
    expect_status(c1.read(None).await, 404);
    // A new client (each test client has a runtime of its own; clients sharing a runtime share its
    // cache of container metadata) cannot resolve it.
    let fresh = text_client(&emu.http_endpoint()).await.unwrap();
    expect_status(
        fresh
            .database_client("db")
            .container_client("c1", None)
            .await
            .map(|_| ()),
        404,
    );
}

#[tokio::test]
async fn duplicate_container_conflicts_and_missing_is_not_found() {
    let (_emu, client) = setup(&[]).await;
    client.create_database("db", None).await.unwrap();
    let db = client.database_client("db");
    db.create_container(ContainerProperties::new("c", "/pk".into()), None)
        .await
        .unwrap();
    expect_status(
        db.create_container(ContainerProperties::new("c", "/pk".into()), None)
            .await,
        409,
    );
    expect_status(db.container_client("missing", None).await.map(|_| ()), 404);
    expect_status(
        client
            .database_client("nodb")
            .create_container(ContainerProperties::new("c", "/pk".into()), None)
            .await,
        404,
    );
}

#[tokio::test]
async fn query_containers_with_parameter() {
    let (_emu, client) = setup(&[]).await;
    client.create_database("db", None).await.unwrap();
    let db = client.database_client("db");
    for id in ["a", "b", "c"] {
        db.create_container(ContainerProperties::new(id, "/pk".into()), None)
            .await
            .unwrap();
    }
    let q = Query::from("SELECT * FROM root r WHERE r.id = @id")
        .with_parameter("@id", "b")
        .unwrap();
    let found: Vec<ContainerProperties> = db
        .query_containers(q, None)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].id, "b");
    assert_eq!(found[0].partition_key.paths(), ["/pk"]);
}

#[tokio::test]
async fn hierarchical_partition_key_container() {
    let (_emu, client) = setup(&[]).await;
    client.create_database("db", None).await.unwrap();
    let db = client.database_client("db");
    let pk = azure_data_cosmos::models::PartitionKeyDefinition::from(("/tenant", "/user"));
    let r = db
        .create_container(ContainerProperties::new("h", pk), None)
        .await
        .unwrap();
    let created: ContainerProperties = r.into_model().unwrap();
    assert_eq!(created.partition_key.paths(), ["/tenant", "/user"]);
    assert_eq!(created.partition_key.kind(), PartitionKeyKind::MultiHash);

    let c = db.container_client("h", None).await.unwrap();
    let item = serde_json::json!({"id": "1", "tenant": "t1", "user": "u1"});
    let r = c.create_item(("t1", "u1"), "1", &item, None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 201);
    let read: serde_json::Value = c
        .read_item(("t1", "u1"), "1", None)
        .await
        .unwrap()
        .into_model()
        .unwrap();
    assert_eq!(read["user"], "u1");
    expect_status(c.read_item(("t1", "u2"), "1", None).await, 404);
}

#[tokio::test]
async fn container_throughput_read_and_replace() {
    let (_emu, client) = setup(&[]).await;
    client.create_database("db", None).await.unwrap();
    let db = client.database_client("db");
    db.create_container(
        ContainerProperties::new("t", "/pk".into()),
        Some(CreateContainerOptions::default().with_throughput(ThroughputProperties::manual(400))),
    )
    .await
    .unwrap();
    let c = db.container_client("t", None).await.unwrap();
    let t = c
        .read_throughput(None)
        .await
        .unwrap()
        .expect("the container has an offer");
    assert_eq!(t.throughput(), Some(400));

    let r = c
        .begin_replace_throughput(ThroughputProperties::manual(1000), None)
        .await
        .unwrap()
        .await
        .unwrap();
    assert_eq!(code(r.status().status_code()), 200);
    let t = c.read_throughput(None).await.unwrap().expect("offer");
    assert_eq!(t.throughput(), Some(1000));
}

/// `--partition-count 3`: the SDK sees three feed ranges covering the hash space.
#[tokio::test]
async fn feed_ranges_follow_physical_partitions() {
    let (_emu, client) = setup(&["--partition-count", "3"]).await;
    client.create_database("db", None).await.unwrap();
    let db = client.database_client("db");
    db.create_container(ContainerProperties::new("p", "/pk".into()), None)
        .await
        .unwrap();
    let c = db.container_client("p", None).await.unwrap();
    let ranges = c.read_feed_ranges(None).await.unwrap();
    assert_eq!(ranges.len(), 3, "{ranges:?}");
    let for_key = c
        .feed_range_from_partition_key("some-key", None)
        .await
        .unwrap();
    assert_eq!(for_key.len(), 1);
}
