//! Databases: create, read, query, delete, with statuses and ETags.

use crate::common::*;
use azure_data_cosmos::models::DatabaseProperties;
use azure_data_cosmos::Query;
use futures::TryStreamExt;

#[tokio::test]
async fn create_read_delete() {
    let (_emu, client) = setup(&[]).await;

    let r = client.create_database("db1", None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 201);
    let header_etag = r
        .headers()
        .etag()
        .cloned()
        .expect("create returns an ETag header");
    let created: DatabaseProperties = r.into_model().unwrap();
    assert_eq!(created.id.as_deref(), Some("db1"));
    let sys = &created.system_properties;
    assert_eq!(
        sys.etag.as_ref(),
        Some(&header_etag),
        "header ETag = body _etag"
    );
    let rid = sys.resource_id.clone().expect("_rid");
    assert_eq!(
        sys.self_link.as_deref(),
        Some(format!("dbs/{rid}/").as_str())
    );
    assert!(sys.last_modified.is_some(), "_ts");

    let db = client.database_client("db1");
    let r = db.read(None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 200);
    assert_eq!(r.headers().etag(), Some(&header_etag));
    let read: DatabaseProperties = r.into_model().unwrap();
    assert_eq!(read, created);

    let r = db.delete(None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 204);

    expect_status(db.read(None).await, 404);
    expect_status(db.delete(None).await, 404);
}

#[tokio::test]
async fn duplicate_create_conflicts() {
    let (_emu, client) = setup(&[]).await;
    client.create_database("dup", None).await.unwrap();
    expect_status(client.create_database("dup", None).await, 409);
}

#[tokio::test]
async fn query_databases_with_parameter() {
    let (_emu, client) = setup(&[]).await;
    for id in ["alpha", "beta", "gamma"] {
        client.create_database(id, None).await.unwrap();
    }
    let q = Query::from("SELECT * FROM root r WHERE r.id = @id")
        .with_parameter("@id", "beta")
        .unwrap();
    let found: Vec<DatabaseProperties> = client
        .query_databases(q, None)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].id.as_deref(), Some("beta"));

    let all: Vec<DatabaseProperties> = client
        .query_databases("SELECT * FROM root r", None)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let mut ids: Vec<_> = all.iter().filter_map(|d| d.id.clone()).collect();
    ids.sort();
    assert_eq!(ids, ["alpha", "beta", "gamma"]);
}

/// A database without shared throughput has no offer.
#[tokio::test]
async fn database_without_throughput_has_no_offer() {
    let (_emu, client) = setup(&[]).await;
    client.create_database("plain", None).await.unwrap();
    let t = client
        .database_client("plain")
        .read_throughput(None)
        .await
        .unwrap();
    assert!(t.is_none(), "unexpected offer {t:?}");
}
