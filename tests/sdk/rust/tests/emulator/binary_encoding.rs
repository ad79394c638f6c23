//! The SDK's default wire encoding: with binary encoding on (the default), item bodies are sent as
//! Cosmos binary JSON (first byte 0x80) and point reads, writes and queries ask for binary answers
//! (`x-ms-cosmos-supported-serialization-formats: CosmosBinary`, or `JsonText, CosmosBinary` for
//! queries). The service accepts and answers it; these tests drive the emulator with that default
//! (HTTP/2 off only, see common::http11_client).

use crate::common::*;
use azure_data_cosmos::models::ContainerProperties;
use azure_data_cosmos::options::ItemWriteOptions;
use azure_data_cosmos::FeedScope;
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Doc {
    id: String,
    pk: String,
    n: i64,
    s: String,
}

async fn default_container(emu: &Emulator) -> azure_data_cosmos::clients::ContainerClient {
    let client = http11_client(&emu.http_endpoint(), true).await.unwrap();
    client.create_database("db", None).await.unwrap();
    let db = client.database_client("db");
    db.create_container(ContainerProperties::new("bin", "/pk".into()), None)
        .await
        .unwrap();
    db.container_client("bin", None).await.unwrap()
}

#[tokio::test]
async fn binary_create_and_read() {
    let emu = Emulator::start(&[]);
    let c = default_container(&emu).await;
    let doc = Doc {
        id: "b1".into(),
        pk: "p".into(),
        n: 7,
        s: "héllo".into(),
    };
    let r = c
        .create_item("p", "b1", &doc, None)
        .await
        .unwrap_or_else(|e| panic!("create with a binary-encoded body failed: {e:?}"));
    assert_eq!(code(r.status().status_code()), 201);
    let read = c
        .read_item("p", "b1", None)
        .await
        .unwrap_or_else(|e| panic!("read failed: {e:?}"));
    assert_eq!(code(read.status().status_code()), 200);
    assert_eq!(read.into_model::<Doc>().unwrap(), doc);
}

#[tokio::test]
async fn binary_replace_upsert_and_content_response() {
    let emu = Emulator::start(&[]);
    let c = default_container(&emu).await;
    let doc = Doc {
        id: "b2".into(),
        pk: "p".into(),
        n: 1,
        s: "x".into(),
    };
    let opts = || Some(ItemWriteOptions::default().with_operation_options(with_content()));
    let r = c
        .upsert_item("p", "b2", &doc, opts())
        .await
        .unwrap_or_else(|e| panic!("upsert failed: {e:?}"));
    assert_eq!(code(r.status().status_code()), 201);
    assert_eq!(r.into_model::<Doc>().unwrap(), doc);
    let doc2 = Doc {
        n: 2,
        ..doc.clone()
    };
    let r = c
        .replace_item("p", "b2", &doc2, opts())
        .await
        .unwrap_or_else(|e| panic!("replace failed: {e:?}"));
    assert_eq!(code(r.status().status_code()), 200);
    assert_eq!(r.into_model::<Doc>().unwrap(), doc2);
}

#[tokio::test]
async fn binary_query() {
    let emu = Emulator::start(&[]);
    let c = default_container(&emu).await;
    // Written with text JSON, so only the query's answer format is in play here.
    let text = text_client(&emu.http_endpoint()).await.unwrap();
    let tc = text
        .database_client("db")
        .container_client("bin", None)
        .await
        .unwrap();
    for i in 0..3 {
        let doc = Doc {
            id: format!("q{i}"),
            pk: "p".into(),
            n: i,
            s: "s".into(),
        };
        tc.create_item("p", &doc.id, &doc, None).await.unwrap();
    }
    let docs: Vec<Doc> = c
        .query_items::<Doc>(
            "SELECT * FROM c WHERE c.n >= 1",
            FeedScope::partition("p"),
            None,
        )
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap_or_else(|e| panic!("query failed: {e:?}"));
    let mut ns: Vec<i64> = docs.iter().map(|d| d.n).collect();
    ns.sort();
    assert_eq!(ns, [1, 2]);
}

/// Point read and patch with binary encoding on, of an item written as text: the request asks for a
/// `CosmosBinary` answer; the SDK takes the answer in either format.
#[tokio::test]
async fn binary_point_read_of_text_item() {
    let emu = Emulator::start(&[]);
    let c = default_container(&emu).await;
    let text = text_client(&emu.http_endpoint()).await.unwrap();
    let tc = text
        .database_client("db")
        .container_client("bin", None)
        .await
        .unwrap();
    let doc = Doc {
        id: "t1".into(),
        pk: "p".into(),
        n: 3,
        s: "ü".into(),
    };
    tc.create_item("p", "t1", &doc, None).await.unwrap();
    let r = c
        .read_item("p", "t1", None)
        .await
        .unwrap_or_else(|e| panic!("read failed: {e:?}"));
    assert_eq!(code(r.status().status_code()), 200);
    assert_eq!(r.into_model::<Doc>().unwrap(), doc);
    let r = c.delete_item("p", "t1", None).await.unwrap();
    assert_eq!(code(r.status().status_code()), 204);
}
