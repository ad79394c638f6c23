// The official emulator images' contract, against the binary: the log lines each Testcontainers
// module and Aspire wait for, the probes, the certificate download, the settings by their
// official names (each with its effect), and bad input on the TLS port (docs/settings.md,
// docs/https.md). tests/docker/run.sh checks the same contract against the container image.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import net from "node:net";
import tls from "node:tls";
import https from "node:https";
import { CosmosClient } from "@azure/cosmos";
import { EMULATOR_BIN, LOCAL, WELL_KNOWN_KEY, rawRequest, startEmulator, uid } from "./harness.mjs";
import { insecureGet } from "./https.test.mjs";

const skip = !LOCAL && "needs the local binary";
const dir = mkdtempSync(join(tmpdir(), "contract-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Starts the emulator with these flags and variables; stops it after the test. */
async function withEmulator(t, args = [], { env = {}, scheme = "http", port } = {}) {
  const e = await startEmulator(args, { env, scheme, port });
  t.after(() => e.stop());
  return e;
}

/** Runs the binary expecting it to stop by itself (a refused setting). */
function runToExit(args, env = {}) {
  return spawnSync(EMULATOR_BIN, ["--host", "127.0.0.1", "--port", "0", ...args], {
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 10000,
  });
}

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function hostPort(endpoint) {
  const u = new URL(endpoint);
  return { host: u.hostname, port: Number(u.port) };
}

/** Opens a TLS connection; resolves to the socket once the handshake is done. */
function tlsConnect(endpoint, options = {}) {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ ...hostPort(endpoint), rejectUnauthorized: false, ...options }, () => resolve(s));
    s.on("error", reject);
  });
}

/** Sends raw bytes; resolves to what came back before the server closed the connection. */
function sendRaw(endpoint, bytes, timeoutMs = 5000) {
  return new Promise((resolve, reject) => {
    const s = net.connect(hostPort(endpoint), () => s.write(bytes));
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error("the server kept the connection open"));
    }, timeoutMs);
    s.on("data", (d) => (got = Buffer.concat([got, d])));
    s.on("close", () => {
      clearTimeout(timer);
      resolve(got);
    });
    s.on("error", () => {});
  });
}

function listening(log, scheme) {
  return [...log.matchAll(new RegExp(`^Now listening on: (${scheme}://\\S+)$`, "gm"))].map((m) => m[1]);
}

function httpsGet(url, ca) {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
      })
      .on("error", reject);
  });
}

// Runs `file args` until the emulator in it prints "Started", stops it (SIGTERM) and returns what it printed.
async function untilStarted(file, args, env = process.env) {
  const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], env });
  let out = "";
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start:\n${out}`)), 15000);
    const on = (c) => {
      out += c;
      if (/^Started\r?$/m.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", on);
    child.stderr.on("data", on);
    child.on("exit", (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
  child.removeAllListeners("exit");
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
  return out;
}

describe("readiness as each harness waits for it", { skip }, () => {
  test("the log lines of the Java, .NET, Go, Python and Node modules", async (t) => {
    const e = await withEmulator(t);
    const log = e.log();
    // Java: a log frame matching .*Started\r\n$
    assert.ok(log.split(/(?<=\n)/).some((line) => /^.*Started\r\n$/.test(line)), log);
    // Python: Started\s*$ over the whole output: "Started" is the last line printed at start.
    assert.match(log, /Started\s*$/);
    assert.ok(log.endsWith("Started\r\n"));
    // Go and .NET: "Started" anywhere; Node: "Now listening on: ".
    assert.ok(log.includes("Started"));
    assert.ok(log.includes("Now listening on: "));
    assert.equal(listening(log, "https").length, 1);
    assert.deepEqual(listening(log, "http"), [e.endpoint.replace(/\/$/, "")]);
  });

  test("/ready, /alive and /status on the gateway port and the health port, as vNext answers them", async (t) => {
    const e = await withEmulator(t, ["--health-port", "0"]);
    const health = e.log().match(/^Health probes on: (http:\/\/\S+)\/ready$/m)[1];
    const expected = {
      alive: true,
      checks: { explorer: "healthy", gateway: "healthy", postgres: "healthy", store: "healthy" },
      overall: true,
      protocol: "both",
      ready: true,
      status: "healthy",
      emulator: "cosmos-emulator",
    };
    for (const base of [e.endpoint.replace(/\/$/, ""), health]) {
      for (const path of ["/ready", "/alive", "/status"]) {
        const res = await fetch(base + path);
        assert.equal(res.status, 200, base + path);
        assert.equal(res.headers.get("content-type"), "application/json");
        assert.deepEqual(await res.json(), expected);
      }
    }
    const other = await fetch(health + "/dbs");
    assert.equal(other.status, 404);
    assert.deepEqual(await other.json(), { code: "NotFound", message: "This port serves /ready, /alive and /status." });
  });

  test("--health-check probes /ready over HTTPS, plain HTTP or the health port; exit 1 when nothing answers", async (t) => {
    const probe = (args) =>
      spawnSync(EMULATOR_BIN, ["--health-check", ...args], { encoding: "utf8", timeout: 10000 });
    const tls = await withEmulator(t, ["--protocol", "https"], { scheme: "https" });
    const tlsPort = new URL(tls.endpoint).port;
    assert.equal(probe(["--protocol", "https", "--port", tlsPort]).status, 0);
    const plain = await withEmulator(t, ["--protocol", "http", "--health-port", "0"]);
    const plainPort = new URL(plain.endpoint).port;
    const healthPort = new URL(plain.log().match(/^Health probes on: (http:\/\/\S+)\/ready$/m)[1]).port;
    assert.equal(probe(["--protocol", "http", "--port", plainPort]).status, 0);
    assert.equal(probe(["--health-port", healthPort, "--port", "1"]).status, 0);
    // HTTPS against the plain port, and a port where nothing listens.
    const wrong = probe(["--protocol", "https", "--port", plainPort]);
    assert.equal(wrong.status, 1);
    assert.match(wrong.stderr, /^cosmos-emulator: health check failed: /);
    await plain.stop();
    assert.equal(probe(["--protocol", "http", "--port", plainPort]).status, 1);
  });

  test("/_explorer/index.html over HTTPS is the emulator's page; ENABLE_EXPLORER=false turns it off", async (t) => {
    const e = await withEmulator(t, [], { scheme: "https" });
    const page = await insecureGet(e.endpoint + "_explorer/index.html");
    assert.equal(page.status, 200);
    assert.equal(page.headers["content-type"], "text/html; charset=utf-8");
    assert.ok(page.body.includes(`<code id="endpoint">${e.endpoint}</code>`), page.body);
    assert.ok(page.body.includes(`<code id="key">${WELL_KNOWN_KEY}</code>`));
    assert.ok(page.body.includes('<a href="/_explorer/emulator.pem">'));
    const off = await withEmulator(t, [], { scheme: "https", env: { ENABLE_EXPLORER: "false" } });
    const gone = await insecureGet(off.endpoint + "_explorer/index.html");
    assert.equal(gone.status, 404);
    assert.deepEqual(JSON.parse(gone.body), {
      code: "NotFound",
      message: "The emulator's page is disabled (ENABLE_EXPLORER=false).",
    });
    // The certificate is not the explorer: still served.
    assert.equal((await insecureGet(off.endpoint + "_explorer/emulator.pem")).status, 200);
  });

  test("EXPLORER_PORT serves the page on a port of its own, naming the gateway", async (t) => {
    const port = await freePort();
    const e = await withEmulator(t, [], { env: { EXPLORER_PORT: String(port), EXPLORER_PROTOCOL: "http" } });
    const res = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(res.status, 200);
    const body = await res.text();
    const gatewayPort = new URL(e.endpoint).port;
    assert.ok(body.includes(`<code id="endpoint">https://127.0.0.1:${gatewayPort}/</code>`) ||
      body.includes(`<code id="endpoint">http://127.0.0.1:${gatewayPort}/</code>`), body);
  });

  test("the Go module's `--enable-explorer false` starts the emulator", async (t) => {
    const e = await withEmulator(t, ["--enable-explorer", "false"]);
    assert.equal((await fetch(e.endpoint + "_explorer/index.html")).status, 404);
    assert.equal((await fetch(e.endpoint + "ready")).status, 200);
  });
});

describe("settings by their official names", { skip }, () => {
  test("PORT picks the gateway port (as the Node module sets it)", async (t) => {
    const port = await freePort();
    const e = await withEmulator(t, [], { port: null, env: { PORT: String(port), PROTOCOL: "http" } });
    assert.equal(e.endpoint, `http://127.0.0.1:${port}/`);
    assert.deepEqual(listening(e.log(), "https"), []);
  });

  test("PROTOCOL=https closes plain HTTP connections and keeps serving HTTPS", async (t) => {
    const e = await withEmulator(t, ["--log-level", "trace"], { scheme: "https", env: { PROTOCOL: "https" } });
    assert.deepEqual(listening(e.log(), "http"), []);
    const got = await sendRaw(e.endpoint, "GET /ready HTTP/1.1\r\nHost: x\r\n\r\n");
    assert.equal(got.length, 0);
    assert.equal((await insecureGet(e.endpoint + "ready")).status, 200);
    await new Promise((r) => setTimeout(r, 100));
    assert.match(e.log(), /^cosmos-emulator: connection 127\.0\.0\.1 refused: plain HTTP on a port that serves HTTPS only$/m);
  });

  test("PROTOCOL=http serves no TLS and has no certificate", async (t) => {
    const e = await withEmulator(t, [], { env: { PROTOCOL: "http" } });
    await assert.rejects(tlsConnect(e.endpoint));
    const res = await fetch(e.endpoint + "_explorer/emulator.pem");
    assert.equal(res.status, 404);
    assert.equal((await fetch(e.endpoint + "ready")).status, 200);
  });

  test("AZURE_COSMOS_EMULATOR_KEY and KEY_FILE set the account key", async (t) => {
    const key = Buffer.from("a key of our own for this test").toString("base64");
    const keyFile = join(dir, "key.txt");
    writeFileSync(keyFile, key + "\n");
    for (const env of [{ AZURE_COSMOS_EMULATOR_KEY: key }, { KEY_FILE: keyFile }]) {
      const e = await withEmulator(t, [], { env });
      const client = new CosmosClient({ endpoint: e.endpoint, key });
      t.after(() => client.dispose());
      const { resource } = await client.databases.create({ id: uid("db") });
      assert.ok(resource._rid);
      const wrong = await rawRequest({ ...e, key: WELL_KNOWN_KEY }, { path: "/dbs" });
      assert.equal(wrong.status, 401);
    }
  });

  test("AZURE_COSMOS_EMULATOR_PARTITION_COUNT sets the partitions of new containers; 'None' keeps the default", async (t) => {
    for (const [value, expected] of [["3", 3], ["None", 1]]) {
      const e = await withEmulator(t, [], { env: { AZURE_COSMOS_EMULATOR_PARTITION_COUNT: value } });
      const client = new CosmosClient({ endpoint: e.endpoint, key: e.key });
      t.after(() => client.dispose());
      const { database } = await client.databases.create({ id: uid("db") });
      const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
      const { resources } = await container.readPartitionKeyRanges().fetchAll();
      assert.equal(resources.length, expected, value);
    }
  });

  test("AZURE_COSMOS_EMULATOR_IP_ADDRESS_OVERRIDE is in the certificate and the account's locations", async (t) => {
    const e = await withEmulator(t, [], {
      scheme: "https",
      env: { AZURE_COSMOS_EMULATOR_IP_ADDRESS_OVERRIDE: "10.9.8.7", AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE: "0" },
    });
    const s = await tlsConnect(e.endpoint);
    const san = s.getPeerCertificate().subjectaltname;
    s.destroy();
    assert.ok(san.split(", ").includes("IP Address:10.9.8.7"), san);
    assert.ok(san.split(", ").includes("DNS:localhost"), san);
    const account = await rawRequest(e, { path: "/" }).catch(() => null);
    assert.equal(account, null, "plain fetch refuses the self-signed certificate");
    const doc = await insecureGet(e.endpoint);
    assert.equal(doc.status, 401, "the account needs a signature");
    const httpEndpoint = e.endpoint.replace("https://", "http://");
    const signed = await rawRequest({ ...e, endpoint: httpEndpoint }, { path: "/" });
    const port = new URL(e.endpoint).port;
    assert.equal(signed.json.writableLocations[0].databaseAccountEndpoint, `http://10.9.8.7:${port}/`);
  });

  test("GATEWAY_PUBLIC_ENDPOINT is where the account sends clients", async (t) => {
    const e = await withEmulator(t, [], { env: { GATEWAY_PUBLIC_ENDPOINT: "https://cosmos.test:9443" } });
    const doc = await rawRequest(e, { path: "/" });
    assert.deepEqual(
      [...doc.json.writableLocations, ...doc.json.readableLocations].map((l) => l.databaseAccountEndpoint),
      ["https://cosmos.test:9443/", "https://cosmos.test:9443/"],
    );
    const host = await withEmulator(t, [], { env: { GATEWAY_PUBLIC_ENDPOINT: "cosmos" } });
    const port = new URL(host.endpoint).port;
    const doc2 = await rawRequest(host, { path: "/" });
    assert.equal(doc2.json.writableLocations[0].databaseAccountEndpoint, `http://cosmos:${port}/`);
  });

  test("MongoDB or a data directory that cannot be made refuses to start with one line and exit code 2", () => {
    for (const [env, message] of [
      [
        { AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE: "true", DATA_PATH: "/proc/no-such-dir" },
        "cosmos-emulator: cannot create the data directory /proc/no-such-dir: No such file or directory\n",
      ],
      [
        { AZURE_COSMOS_EMULATOR_ENABLE_MONGODB_ENDPOINT: "4.0" },
        "cosmos-emulator: AZURE_COSMOS_EMULATOR_ENABLE_MONGODB_ENDPOINT: this emulator serves the API for NoSQL " +
          "only, not MongoDB; unset it (see --help)\n",
      ],
    ]) {
      const r = runToExit([], env);
      assert.equal(r.status, 2);
      assert.equal(r.stdout, "");
      assert.equal(r.stderr, message);
    }
  });

  test("DATA_PATH keeps the made certificate and the next start reuses it", async (t) => {
    const data = join(dir, "data");
    const first = await startEmulator([], { scheme: "https", env: { DATA_PATH: data } });
    const pem1 = (await insecureGet(first.endpoint + "_explorer/emulator.pem")).body;
    assert.match(first.log(), new RegExp(`^cosmos-emulator: made a self-signed certificate, kept in ${data} \\(`, "m"));
    await first.stop();
    // the kept chain: the server certificate, then the root that the emulator.pem file holds
    const kept = readFileSync(join(data, "emulator-cert.pem"), "utf8");
    assert.equal(kept.match(/-----BEGIN CERTIFICATE-----/g).length, 2);
    assert.ok(kept.endsWith(pem1), "the kept chain ends with the served root");
    assert.ok(existsSync(join(data, "emulator-key.pem")));
    const second = await withEmulator(t, [], { scheme: "https", env: { DATA_PATH: data } });
    assert.match(second.log(), new RegExp(`^cosmos-emulator: reusing the certificate kept in ${data} \\(`, "m"));
    assert.equal((await insecureGet(second.endpoint + "_explorer/emulator.pem")).body, pem1);
  });

  test("--data-dir-if-mounted keeps the data in the first of its directories that is a mount point (a volume)", async () => {
    const base = join(dir, "mounts");
    const [data, appdata] = [join(base, "data"), join(base, "appdata")];
    execFileSync("mkdir", ["-p", data, appdata]);
    // A private mount namespace (root) with a file system mounted on the second directory only.
    const run = (mounted) =>
      untilStarted("unshare", ["--mount", "--propagation", "private", "sh", "-c",
        `${mounted ? `mount -t tmpfs vol ${appdata} && ` : ""}exec "$@"`, "sh", EMULATOR_BIN,
        "--host", "127.0.0.1", "--port", "0", "--protocol", "http"],
      { ...process.env, COSMOS_EMULATOR_DATA_DIR_IF_MOUNTED: `${data},${appdata}` });
    assert.match(await run(true), new RegExp(`^cosmos-emulator: data kept in ${appdata} \\(durability fsync\\)`, "m"));
    assert.doesNotMatch(await run(false), /data kept in/);
  });

  test("a kept certificate survives a new host name (a container re-created on its volume) until a configured name is missing", async (t) => {
    const data = join(dir, "data-renamed");
    // The first start on another host name, as a container has: its own UTS namespace (root).
    const out = await untilStarted("unshare", ["--uts", "sh", "-c", 'hostname emulator-old-host && exec "$@"', "sh",
      EMULATOR_BIN, "--host", "127.0.0.1", "--port", "0", "--protocol", "https", "--data-dir", data]);
    assert.match(out, /made a self-signed certificate, kept in .*emulator-old-host/);
    const kept = readFileSync(join(data, "emulator-cert.pem"), "utf8");
    // Here the host name is another one: the certificate still names what clients connect by.
    const second = await withEmulator(t, [], { scheme: "https", env: { DATA_PATH: data } });
    assert.match(second.log(), new RegExp(`^cosmos-emulator: reusing the certificate kept in ${data} \\(.*emulator-old-host`, "m"));
    assert.equal(readFileSync(join(data, "emulator-cert.pem"), "utf8"), kept);
    await second.stop();
    // A name the settings ask for that it lacks: a new one, for every name.
    const third = await withEmulator(t, ["--cert-san", "cosmos.test"], { scheme: "https", env: { DATA_PATH: data } });
    assert.match(third.log(), new RegExp(`^cosmos-emulator: made a self-signed certificate, kept in ${data} \\(.*cosmos\\.test`, "m"));
    assert.notEqual(readFileSync(join(data, "emulator-cert.pem"), "utf8"), kept);
  });

  test("CERT_PATH with CERT_SECRET (a PFX) and --cert with --cert-key (PEM) are served", async (t) => {
    const key = join(dir, "own.key"), cert = join(dir, "own.pem"), pfx = join(dir, "own.pfx");
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
      "-keyout", key, "-out", cert, "-subj", "/CN=own-cert", "-days", "2", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
    execFileSync("openssl", ["pkcs12", "-export", "-in", cert, "-inkey", key, "-out", pfx, "-passout", "pass:s3cret"], { stdio: "ignore" });
    const pem = readFileSync(cert, "utf8");
    const viaPfx = await withEmulator(t, [], { scheme: "https", env: { CERT_PATH: pfx, CERT_SECRET: "s3cret" } });
    assert.equal((await insecureGet(viaPfx.endpoint + "_explorer/emulator.pem")).body, pem);
    const viaPem = await withEmulator(t, ["--cert", cert, "--cert-key", key], { scheme: "https" });
    // Trusting exactly that certificate works.
    const ready = await httpsGet(viaPem.endpoint + "ready", pem);
    assert.equal(ready.status, 200);
  });

  test("a broken certificate or key stops the start with one line and exit code 2", () => {
    const junk = join(dir, "junk.pem");
    writeFileSync(junk, "not a certificate\n");
    let r = runToExit(["--cert", junk, "--cert-key", junk]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, new RegExp(`^cosmos-emulator: ${junk}: not a PEM certificate \\([^\\n]*\\)\\n$`));
    r = runToExit([], { CERT_PATH: join(dir, "missing.pfx"), CERT_SECRET: "x" });
    assert.equal(r.status, 2);
    assert.equal(r.stderr, `cosmos-emulator: cannot read the certificate ${join(dir, "missing.pfx")}: No such file or directory\n`);
  });

  test("LOG_LEVEL: quiet prints nothing, debug one line per request", async (t) => {
    const port = await freePort();
    const child = spawn(EMULATOR_BIN, ["--host", "127.0.0.1"], { env: { ...process.env, PORT: String(port), LOG_LEVEL: "quiet" } });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const exited = new Promise((r) => child.once("exit", r));
    t.after(() => child.kill("SIGKILL"));
    let ready = 0;
    for (let i = 0; i < 50 && ready !== 200; i++) {
      ready = await fetch(`http://127.0.0.1:${port}/ready`).then((r) => r.status, () => 0);
      if (ready !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(ready, 200);
    child.kill("SIGTERM");
    await exited;
    assert.equal(output, "");
    const debug = await withEmulator(t, [], { env: { LOG_LEVEL: "debug" } });
    await fetch(debug.endpoint + "ready");
    await rawRequest(debug, { path: "/" });
    await new Promise((res) => setTimeout(res, 100));
    assert.match(debug.log(), /^cosmos-emulator: http GET \/ 200 0 RU \d+\.\d{3} ms$/m);
  });

  test("ENABLE_TELEMETRY=true is accepted and says nothing is sent", async (t) => {
    const e = await withEmulator(t, [], { env: { ENABLE_TELEMETRY: "true", ENABLE_OTLP_EXPORTER: "false" } });
    assert.match(e.log(), /^cosmos-emulator: ENABLE_TELEMETRY=true: accepted; this emulator never sends or exports telemetry$/m);
    assert.doesNotMatch(e.log(), /ENABLE_OTLP_EXPORTER/);
  });
});

describe("bad input on the TLS port closes that connection only", { skip }, () => {
  test("old protocol versions, no SNI, garbage and clients that stop mid-handshake", async (t) => {
    const e = await withEmulator(t, ["--handshake-timeout-ms", "500"], { scheme: "https" });
    // TLS 1.0 and 1.1 are refused; 1.2 and 1.3 are served.
    for (const v of ["TLSv1", "TLSv1.1"]) {
      await assert.rejects(tlsConnect(e.endpoint, { minVersion: v, maxVersion: v }));
    }
    for (const v of ["TLSv1.2", "TLSv1.3"]) {
      const s = await tlsConnect(e.endpoint, { minVersion: v, maxVersion: v });
      assert.equal(s.getProtocol(), v);
      s.destroy();
    }
    // No SNI (an IP address and no servername): served.
    const noSni = await tlsConnect(e.endpoint, { servername: "" });
    noSni.destroy();
    // Twenty clients that start a handshake and stop: the server goes on serving others at once,
    // and closes each stalled connection when the handshake timeout fires.
    const stalled = [];
    for (let i = 0; i < 20; i++) {
      stalled.push(
        new Promise((resolve) => {
          const s = net.connect(hostPort(e.endpoint), () => s.write(Buffer.from([0x16, 0x03, 0x01, 0x00])));
          s.on("close", resolve);
          s.on("error", () => {});
        }),
      );
    }
    const started = Date.now();
    for (let i = 0; i < 5; i++) assert.equal((await insecureGet(e.endpoint + "ready")).status, 200);
    assert.ok(Date.now() - started < 2000, "served while handshakes stall");
    await Promise.all(stalled);
    // A record header followed by garbage, and bytes that are not HTTP at all.
    await sendRaw(e.endpoint, Buffer.from([0x16, 0x03, 0x03, 0x00, 0x05, 1, 2, 3, 4, 5]));  // closed
    const notHttp = await sendRaw(e.endpoint, "\x01\x02\x03 nonsense\r\n\r\n");
    assert.match(notHttp.toString(), /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.equal((await insecureGet(e.endpoint + "ready")).status, 200);
  });
});

describe("keep-alive, limits and timeouts are the same over TLS", { skip }, () => {
  /** Collects what a socket receives until `done(text)` or the server closes it. */
  function receive(s, done = () => false, timeoutMs = 5000) {
    return new Promise((resolve, reject) => {
      let text = "";
      const timer = setTimeout(() => reject(new Error(`no answer: ${text}`)), timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        resolve({ text, closed: s.destroyed || s.readableEnded });
      };
      s.on("data", (d) => {
        text += d;
        if (done(text)) finish();
      });
      s.on("close", finish);
      s.on("end", finish);
    });
  }

  test("two requests on one TLS connection, 413 over the body limit, idle connections closed", async (t) => {
    const e = await withEmulator(t, ["--max-body-bytes", "1000", "--header-timeout-ms", "700"], { scheme: "https" });
    const s = await tlsConnect(e.endpoint);
    s.write("GET /ready HTTP/1.1\r\nHost: x\r\n\r\nGET /alive HTTP/1.1\r\nHost: x\r\n\r\n");
    const both = await receive(s, (text) => (text.match(/HTTP\/1\.1 200 OK\r\n/g) || []).length === 2);
    assert.equal((both.text.match(/"status":"healthy"/g) || []).length, 2);
    // The same connection then idles past --header-timeout-ms: the server closes it.
    const started = Date.now();
    const idle = await receive(s);
    assert.equal(idle.text, "");
    assert.ok(Date.now() - started >= 500 && Date.now() - started < 3000, `closed after ${Date.now() - started} ms`);
    const big = await tlsConnect(e.endpoint);
    big.write(`POST /dbs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n${"x".repeat(5000)}`);
    const refused = await receive(big, (text) => text.includes("\r\n\r\n{"));
    assert.match(refused.text, /^HTTP\/1\.1 413 Payload Too Large\r\n/);
    assert.match(refused.text, /\{"code":"RequestEntityTooLarge","message":"Request size is too large\./);
    big.destroy();
  });
});
