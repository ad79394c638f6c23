//! Harness shared by the test binaries: starts the emulator binary on a free port, builds SDK clients
//! for it, and a few assertion helpers.
//!
//! Every test starts its own emulator (`--port 0`; it starts in milliseconds), so tests are
//! independent and can run in parallel. The emulator is killed when the `Emulator` value is dropped,
//! also when the test panics; on a failure its last log lines are printed.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use azure_core::http::StatusCode;
use azure_data_cosmos::options::{
    BinaryEncodingOptions, ConnectionPoolOptions, ContentResponseOnWrite, OperationOptions,
    OperationOptionsBuilder,
};
use azure_data_cosmos::{
    AccountReference, CosmosClient, CosmosError, CosmosRuntime, RoutingStrategy,
};

/// The emulator's well-known master key (also the official emulators').
pub const KEY: &str =
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

/// The one location the emulator advertises in `GET /` (writableLocations/readableLocations).
pub const REGION: &str = "South Central US";

pub struct Emulator {
    child: Child,
    pub port: u16,
    log: Arc<Mutex<Vec<String>>>,
    /// Folder for this emulator's files (the exported certificate).
    pub dir: PathBuf,
}

fn repo_root() -> PathBuf {
    // tests/sdk/rust -> repository root
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

pub fn emulator_bin() -> PathBuf {
    match std::env::var_os("COSMOS_EMULATOR_BIN") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => repo_root().join("build/emulator/cosmos-emulator"),
    }
}

fn check_no_imds() {
    // The SDK asks the Azure instance metadata service (169.254.169.254) for a VM id unless this is
    // set; these tests must talk to 127.0.0.1 only. run.sh and .cargo/config.toml set it.
    assert!(
        std::env::var_os("COSMOS_DISABLE_IMDS").is_some(),
        "COSMOS_DISABLE_IMDS must be set (run the tests through tests/sdk/rust/run.sh or cargo from tests/sdk/rust)"
    );
}

impl Emulator {
    /// Starts the emulator with `--port 0` and the given extra flags.
    pub fn start(extra: &[&str]) -> Emulator {
        check_no_imds();
        let bin = emulator_bin();
        assert!(
            bin.exists(),
            "emulator binary not found at {} (build it, or set COSMOS_EMULATOR_BIN)",
            bin.display()
        );
        static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "cosmos-rust-sdk-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let mut cmd = Command::new(&bin);
        cmd.args(["--port", "0", "--host", "127.0.0.1"]).args(extra);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));

        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel::<String>();
        // Drain both pipes for the emulator's whole life (a full pipe would block its logging).
        fn drain<R: Read + Send + 'static>(
            r: R,
            log: Arc<Mutex<Vec<String>>>,
            tx: mpsc::Sender<String>,
        ) {
            std::thread::spawn(move || {
                for line in BufReader::new(r).lines() {
                    let Ok(line) = line else { break };
                    let _ = tx.send(line.clone());
                    let mut l = log.lock().unwrap();
                    l.push(line);
                    if l.len() > 2000 {
                        l.drain(0..1000);
                    }
                }
            });
        }
        drain(child.stdout.take().unwrap(), log.clone(), tx.clone());
        drain(child.stderr.take().unwrap(), log.clone(), tx);

        let deadline = Instant::now() + Duration::from_secs(30);
        let mut port = None;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    let line = line.trim_end();
                    if let Some(rest) = line.split("Now listening on: http://127.0.0.1:").nth(1) {
                        port = rest.trim().trim_end_matches('/').parse::<u16>().ok();
                    }
                    if line.trim() == "Started" || line.ends_with(" Started") {
                        break;
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "emulator did not print Started within 30 s; its output:\n{}",
                        log.lock().unwrap().join("\n")
                    );
                }
            }
        }
        let port = port.unwrap_or_else(|| {
            panic!(
                "no 'Now listening on: http://127.0.0.1:PORT' line before Started:\n{}",
                log.lock().unwrap().join("\n")
            )
        });
        Emulator {
            child,
            port,
            log,
            dir,
        }
    }

    pub fn http_endpoint(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    pub fn https_endpoint(&self, host: &str) -> String {
        format!("https://{host}:{}/", self.port)
    }

    pub fn log_text(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            let log = self.log.lock().unwrap();
            let start = log.len().saturating_sub(60);
            eprintln!(
                "---- emulator log (last {} lines) ----\n{}\n----",
                log.len() - start,
                log[start..].join("\n")
            );
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A client with every SDK default (binary encoding on, the HTTP/2 bootstrap probe, content
/// response on write off), as an application gets with `CosmosClient::builder().build(...)`.
pub async fn default_client(endpoint: &str) -> azure_data_cosmos::Result<CosmosClient> {
    let account = AccountReference::with_authentication_key(endpoint.parse()?, KEY);
    CosmosClient::builder()
        .build(account, RoutingStrategy::ProximityTo(REGION.into()))
        .await
}

/// A client with HTTP/2 off (`ConnectionPoolOptions::with_is_http2_allowed(false)`: the account is
/// read over HTTP/1.1 from the start) on a runtime of its own, and binary encoding on or off.
///
/// Why HTTP/2 is off here: the emulator speaks HTTP/1.1 only, and the SDK's default bootstrap probe
/// (HTTP/2 prior knowledge, falling back only on an explicit HTTP/2 protocol error) fails most of the
/// time on a multi-threaded runtime (tests/emulator/connection.rs pins that defect down). So that
/// every other test fails for its own feature only, they use this client.
pub async fn http11_client(
    endpoint: &str,
    binary: bool,
) -> azure_data_cosmos::Result<CosmosClient> {
    let pool = ConnectionPoolOptions::builder()
        .with_is_http2_allowed(false)
        .build()?;
    let runtime = CosmosRuntime::builder()
        .with_connection_pool(pool)
        .build()
        .await?;
    let account = AccountReference::with_authentication_key(endpoint.parse()?, KEY);
    CosmosClient::builder()
        .with_runtime(runtime)
        .with_binary_encoding_options(BinaryEncodingOptions::new().with_enabled(binary))
        .build(account, RoutingStrategy::ProximityTo(REGION.into()))
        .await
}

/// The client most tests use: HTTP/1.1 (see `http11_client`) and text JSON (binary encoding off:
/// the setting the SDK's README gives for the Linux emulators, because the emulator does not take
/// Cosmos binary JSON; tests/emulator/binary_encoding.rs checks the default encoding).
pub async fn text_client(endpoint: &str) -> azure_data_cosmos::Result<CosmosClient> {
    http11_client(endpoint, false).await
}

/// Starts an emulator and a text-JSON client for it.
pub async fn setup(extra: &[&str]) -> (Emulator, CosmosClient) {
    let emu = Emulator::start(extra);
    let client = text_client(&emu.http_endpoint())
        .await
        .unwrap_or_else(|e| panic!("building the client failed: {e:?}"));
    (emu, client)
}

/// Operation options asking for the written resource in write responses.
pub fn with_content() -> OperationOptions {
    OperationOptionsBuilder::new()
        .with_content_response_on_write(ContentResponseOnWrite::Enabled)
        .build()
}

/// HTTP status of an SDK error, as a number.
pub fn err_status(e: &CosmosError) -> u16 {
    u16::from(e.status().status_code())
}

pub fn err_substatus(e: &CosmosError) -> Option<u16> {
    e.status().sub_status().map(|s| s.value())
}

/// Asserts that `r` failed with the given HTTP status, and returns the error.
#[track_caller]
pub fn expect_status<T: std::fmt::Debug>(
    r: azure_data_cosmos::Result<T>,
    status: u16,
) -> CosmosError {
    match r {
        Ok(v) => panic!("expected HTTP {status}, got success: {v:?}"),
        Err(e) => {
            assert_eq!(err_status(&e), status, "unexpected status; error: {e:?}");
            e
        }
    }
}

pub fn code(s: StatusCode) -> u16 {
    u16::from(s)
}
