//! The emulator through the Rust SDK `azure_data_cosmos` over plain HTTP (the HTTPS path is in
//! tests/https.rs). One test binary, so the SDK is linked once; each test starts its own emulator.

#[path = "../common/mod.rs"]
mod common;

mod batch;
mod binary_encoding;
mod change_feed;
mod connection;
mod containers;
mod databases;
mod items;
mod patch;
mod query;
mod tls;
