// What no client can do to the server (issue 19): run it out of file descriptors (it pauses
// accepting instead of spinning, and keeps serving the connections it has), send broken HTTP
// framing (400 with the service's error body, then the connection closes), hold a worker with a
// request that waits (probes, point reads and other connections still answer), and make it keep
// the memory of deleted containers.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import net from "node:net";
import tls from "node:tls";
import { LOCAL, newClient, rawRequest, rfc1123, signature, startEmulator, uid } from "./harness.mjs";

const skip = !LOCAL && "needs the local binary";

async function withEmulator(t, args = [], options = {}) {
  const e = await startEmulator(args, options);
  t.after(() => e.stop());
  return e;
}

function hostPort(endpoint) {
  const u = new URL(endpoint);
  return { host: u.hostname, port: Number(u.port) };
}

/** CPU time (user + system) the process has used, in clock ticks (1/100 s on Linux). */
function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);  // utime, stime (fields 14 and 15)
}

/** Resident memory of the process, in MiB. */
function rssMiB(pid) {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB$/m);
  return Number(m[1]) / 1024;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A connection that sends nothing until asked; `request(path)` resolves to the raw answer. */
function openConnection(endpoint) {
  const s = net.connect(hostPort(endpoint));
  s.on("error", () => {});
  let received = "";
  let waiter = null;
  s.on("data", (d) => {
    received += d;
    if (waiter && waiter.done(received)) {
      const w = waiter;
      waiter = null;
      w.resolve(received);
      received = "";
    }
  });
  const connected = new Promise((r) => s.once("connect", r));
  return {
    socket: s,
    connected,
    request(path, timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to ${path} in ${timeoutMs} ms`)), timeoutMs);
        waiter = {
          done: (text) => /\r\n\r\n\{[^]*\}$/.test(text),
          resolve: (text) => {
            clearTimeout(timer);
            resolve(text);
          },
        };
        s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      });
    },
  };
}

/** Sends raw bytes (plain or over TLS); resolves to what came back before the server closed. */
function sendRaw(endpoint, bytes, { secure = false, timeoutMs = 5000 } = {}) {
  return new Promise((resolve, reject) => {
    const s = secure
      ? tls.connect({ ...hostPort(endpoint), rejectUnauthorized: false }, () => s.write(bytes))
      : net.connect(hostPort(endpoint), () => s.write(bytes));
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`the server kept the connection open; got: ${got}`));
    }, timeoutMs);
    s.on("data", (d) => (got = Buffer.concat([got, d])));
    s.on("close", () => {
      clearTimeout(timer);
      resolve(got.toString());
    });
    s.on("error", () => {});
  });
}

describe("at the open-file limit", { skip }, () => {
  // With 64 descriptors and a cap above that, accept() fails with EMFILE while the backlog stays
  // readable: the server used to retry at once, spinning a core and starving the connections it
  // had. It now pauses accepting, says so once, and serves the open connections.
  for (const [name, args, cap] of [
    ["out of descriptors (cap above the limit)", ["--max-connections", "1000"], 1000],
    ["the default cap below the limit", [], 48],
  ]) {
    test(`${name}: open connections answer, no core spins, waiting clients are served later`, async (t) => {
      const e = await withEmulator(t, ["--handshake-timeout-ms", "60000", ...args], { nofile: 64 });
      assert.match(e.log(), new RegExp(`, \\d+ workers, up to ${cap} connections\\r?$`, "m"));
      const conns = [];
      for (let i = 0; i < 80; i++) conns.push(openConnection(e.endpoint));
      await Promise.all(conns.map((c) => c.connected));  // the kernel completes them all (backlog)
      await sleep(300);
      if (cap === 1000) {
        assert.match(e.log(), /^cosmos-emulator: accepting paused: Too many open files \(\d+ connections open\); open connections are still served$/m);
      }
      const before = cpuTicks(e.pid);
      await sleep(1000);
      const used = cpuTicks(e.pid) - before;
      assert.ok(used < 30, `the emulator used ${used} ticks of CPU in one idle second`);
      // The first connections were accepted: they answer at once.
      for (const c of conns.slice(0, 3)) {
        assert.match(await c.request("/_health", 2000), /^HTTP\/1\.1 200 OK\r\n[^]*\{"status":"ok"\}$/);
      }
      // The last is still in the backlog; once others close, it is accepted and served.
      const last = conns[79];
      const answered = last.request("/_health", 5000);
      for (const c of conns.slice(3, 43)) c.socket.destroy();
      assert.match(await answered, /^HTTP\/1\.1 200 OK\r\n/);
      for (const c of conns) c.socket.destroy();
    });
  }
});

describe("broken HTTP framing gets 400 and the connection closes", { skip }, () => {
  const head = "POST /dbs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
  const cases = [
    ["two different Content-Lengths", `${head}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
     "The request has more than one Content-Length."],
    ["a Content-Length list", `${head}Content-Length: 2, 3\r\n\r\n{}`,
     "The request has more than one Content-Length."],
    ["Content-Length, then Transfer-Encoding: chunked", `${head}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
     "The request's Transfer-Encoding is not valid, or comes with Content-Length."],
    ["Transfer-Encoding: chunked, then Content-Length", `${head}Transfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
     "The request's Content-Length is not a single decimal number, or comes with Transfer-Encoding."],
    ["a bare CR in a header value", `${head}X-A: a\rb\r\nContent-Length: 2\r\n\r\n{}`,
     "The request has a line that does not end in CRLF."],
    ["a bare CR ending a header line", `${head}X-A: a\rContent-Length: 2\r\n\r\n{}`,
     "The request has a line that does not end in CRLF."],
    ["a Transfer-Encoding that does not end in chunked", `${head}Transfer-Encoding: gzip\r\n\r\n{}`,
     "The request's Transfer-Encoding does not end in chunked."],
    ["a malformed chunk size", `${head}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
     "The request's chunked body is malformed."],
    ["a Content-Length that is not a number", `${head}Content-Length: 2x\r\n\r\n{}`,
     "The request's Content-Length is not a single decimal number, or comes with Transfer-Encoding."],
  ];

  function assertBadRequest(text, message, what) {
    const m = text.match(/^HTTP\/1\.1 400 Bad Request\r\n([^]*?)\r\n\r\n([^]*)$/);
    assert.ok(m, `${what}: ${JSON.stringify(text)}`);
    assert.match(m[1], /^Connection: close$/im, what);
    assert.match(m[1], /^Content-Type: application\/json$/im, what);
    const body = JSON.parse(m[2]);
    assert.deepEqual(Object.keys(body), ["code", "message"], what);
    assert.equal(body.code, "BadRequest", what);
    assert.match(body.message, /\r\nActivityId: [0-9a-f-]{36}$/, what);
    assert.equal(body.message.replace(/\r\nActivityId: .*$/, ""), message, what);
  }

  test("plain HTTP: each case answered, then closed; the server goes on serving", async (t) => {
    const e = await withEmulator(t);
    for (const [what, bytes, message] of cases) assertBadRequest(await sendRaw(e.endpoint, bytes), message, what);
    // Two equal Content-Lengths are one length: the request is read and answered (401: unsigned).
    const same = await sendRaw(e.endpoint, `${head}Content-Length: 2\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    assert.match(same, /^HTTP\/1\.1 401 Unauthorized\r\n/);
    assert.equal((await rawRequest(e, { path: "/_health", auth: false })).status, 200);
  });

  test("the same over TLS", async (t) => {
    const e = await withEmulator(t, [], { scheme: "https" });
    for (const [what, bytes, message] of cases.slice(0, 5)) {
      assertBadRequest(await sendRaw(e.endpoint, bytes, { secure: true }), message, what);
    }
  });
});

describe("a request that waits holds a worker, not an I/O thread", { skip }, () => {
  // A stored procedure holds its logical partition's transaction until --script-timeout-ms; writes
  // to that partition wait behind it. With --threads 2 these used to take both I/O threads, and
  // nothing else answered (not even /_health) until the script was stopped.
  test("/_health, point reads on other keys and new connections answer while a partition is held", async (t) => {
    const e = await withEmulator(t, ["--script-timeout-ms", "3000"]);
    const client = newClient(e);
    t.after(() => client.dispose());
    const { database: db } = await client.databases.create({ id: uid("db") });
    const { container } = await db.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
    await container.items.create({ id: "b1", pk: "b" });
    await container.scripts.storedProcedures.create({ id: "spin", body: "function spin() { while (true) {} }" });

    const started = Date.now();
    const held = container.scripts.storedProcedure("spin").execute("a", []).then(
      () => assert.fail("the script should have been stopped"),
      (err) => ({ status: err.code, ms: Date.now() - started }),
    );
    await sleep(300);
    // Three writes to the held partition: each waits (on a worker) for the script to end.
    const writes = [1, 2, 3].map((i) => container.items.create({ id: `a${i}`, pk: "a" }).then((r) => ({ status: r.statusCode, ms: Date.now() - started })));
    await sleep(300);

    const latencies = [];
    for (let i = 0; i < 5; i++) {
      const t0 = Date.now();
      const health = await rawRequest(e, { path: "/_health", auth: false });  // a new connection each time
      assert.equal(health.status, 200);
      const read = await container.item("b1", "b").read();
      assert.equal(read.statusCode, 200);
      const other = await rawRequest(e, { path: `/dbs/${db.id}` });
      assert.equal(other.status, 200);
      latencies.push(Date.now() - t0);
    }
    const stillHeld = Date.now() - started;
    assert.ok(stillHeld < 2500, `the checks ran after the script ended (${stillHeld} ms)`);
    assert.ok(Math.max(...latencies) < 500, `answers took ${latencies.join(", ")} ms while the partition was held`);

    const script = await held;
    assert.equal(script.status, 408);
    for (const w of await Promise.all(writes)) {
      assert.equal(w.status, 201);
      assert.ok(w.ms >= 2500, `a write to the held partition finished after ${w.ms} ms`);
    }
  });
});

describe("a client that goes away cancels its request", { skip }, () => {
  // The server watches the socket while a worker runs the request; a close sets the flag the
  // request sees, and a stored procedure stops at the next check instead of at its time limit,
  // freeing its logical partition for the writers waiting behind it.
  test("a stored procedure whose client disconnects stops, and the partition's writers go on", async (t) => {
    const e = await withEmulator(t, ["--script-timeout-ms", "5000"]);
    const client = newClient(e);
    t.after(() => client.dispose());
    const { database: db } = await client.databases.create({ id: uid("db") });
    const { container } = await db.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
    await container.scripts.storedProcedures.create({ id: "spin", body: "function spin() { while (true) {} }" });

    const link = `dbs/${db.id}/colls/c/sprocs/spin`;
    const date = rfc1123();
    const s = net.connect(hostPort(e.endpoint));
    s.on("error", () => {});
    let answered = "";
    s.on("data", (d) => (answered += d));
    await new Promise((r) => s.once("connect", r));
    s.write(
      `POST /${link} HTTP/1.1\r\nHost: x\r\nx-ms-date: ${date}\r\nx-ms-version: 2020-07-15\r\n` +
        `authorization: ${signature(e.key, "POST", "sprocs", link, date)}\r\n` +
        `x-ms-documentdb-partitionkey: ["a"]\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]`,
    );
    await sleep(500);
    assert.equal(answered, "", "the script should still be running");
    s.destroy();
    const started = Date.now();
    const res = await container.items.create({ id: "a1", pk: "a" });
    assert.equal(res.statusCode, 201);
    const waited = Date.now() - started;
    assert.ok(waited < 1500, `the write waited ${waited} ms (the script's limit is 5000 ms)`);
  });
});

// Under a sanitizer (tests/tsan.sh sets COSMOS_EMULATOR_SANITIZER) the allocator is the sanitizer's,
// which keeps freed memory for its own bookkeeping: resident memory says nothing about ours there.
const sanitized = process.env.COSMOS_EMULATOR_SANITIZER && `the binary runs under ${process.env.COSMOS_EMULATOR_SANITIZER}`;

describe("the memory of deleted containers goes back to the system", { skip: skip || sanitized }, () => {
  // glibc kept what the deleted items had used in its arenas: after a container of about 40 MB was
  // filled and deleted the resident set stayed over 120 MB above where it started (and the next
  // rounds reused it, so it stayed there). A delete now gives the free pages back.
  test("resident memory returns near its start after a filled container is deleted, round after round", async (t) => {
    const e = await withEmulator(t);
    const client = newClient(e);
    t.after(() => client.dispose());
    const { database: db } = await client.databases.create({ id: uid("db") });
    const blob = "x".repeat(10000);
    const start = rssMiB(e.pid);
    for (let round = 0; round < 2; round++) {
      const { container } = await db.containers.create({ id: `c${round}`, partitionKey: { paths: ["/pk"] } });
      // 40 batches of 100 items of 10 KB: 40 MB of items.
      await Promise.all(
        Array.from({ length: 40 }, (_, k) =>
          container.items.batch(
            Array.from({ length: 100 }, (_, j) => ({ operationType: "Create", resourceBody: { id: `i${j}`, pk: `p${k}`, blob } })),
            `p${k}`,
          ),
        ),
      );
      const filled = rssMiB(e.pid);
      // at least the 40 MB the items hold (how much more the allocator keeps varies: a clean
      // clone's run once measured 56 MiB)
      assert.ok(filled - start > 40, `round ${round}: filled to ${filled.toFixed(1)} MiB from ${start.toFixed(1)} MiB`);
      await container.delete();
      await sleep(300);
      const after = rssMiB(e.pid);
      assert.ok(
        after - start < 30,
        `round ${round}: ${after.toFixed(1)} MiB resident after the delete (${start.toFixed(1)} at the start, ${filled.toFixed(1)} filled)`,
      );
    }
  });
});
