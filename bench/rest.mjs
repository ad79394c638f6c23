// What the Node.js benchmarks (scale.mjs, vector.mjs, persistence.mjs) share: requests signed with
// the emulator's well-known master key, starting and stopping the emulator, its memory, and the
// median of a list.
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import fs from "node:fs";
import http from "node:http";

const KEY = Buffer.from(
  "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
  "base64",
);

export function auth(verb, type, link, date) {
  const sig = createHmac("sha256", KEY)
    .update(`${verb.toLowerCase()}\n${type}\n${link}\n${date.toLowerCase()}\n\n`)
    .digest("base64");
  return encodeURIComponent(`type=master&ver=1.0&sig=${sig}`);
}

// One signed request to 127.0.0.1:`port` over `agent`; resolves to its status, headers, body and
// time in milliseconds.
export function request(agent, port, verb, path, type, link, body, headers = {}) {
  const date = new Date().toUTCString();
  return new Promise((resolvePromise, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(
      {
        agent,
        host: "127.0.0.1",
        port,
        method: verb,
        path,
        headers: {
          "x-ms-date": date,
          "x-ms-version": "2020-07-15",
          authorization: auth(verb, type, link, date),
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () =>
          resolvePromise({
            status: res.statusCode,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
            ms: Number(process.hrtime.bigint() - t0) / 1e6,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// Starts `emulator` on a free loopback port (plain HTTP, two threads) with `args`; resolves once it
// prints "Started" to {child, port, startMs, log()}.
export function startEmulator(emulator, args) {
  return new Promise((resolvePromise, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(emulator, ["--host", "127.0.0.1", "--port", "0", "--protocol", "http", "--threads", "2", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let done = false;
    const onData = (d) => {
      out += d;
      if (done || !/^Started\r?$/m.test(out)) return;
      done = true;
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const port = Number(out.match(/Now listening on: http:\/\/[^:]+:(\d+)/)[1]);
      resolvePromise({ child, port, startMs: ms, log: () => out });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      if (!done) reject(new Error(`emulator exited with ${code} before starting:\n${out}`));
    });
  });
}

// Stops what startEmulator started (SIGTERM, SIGKILL after 10 s).
export function stop(e) {
  return new Promise((resolvePromise) => {
    if (e.child.exitCode !== null || e.child.signalCode !== null) return resolvePromise();
    e.child.once("exit", resolvePromise);
    e.child.kill("SIGTERM");
    setTimeout(() => e.child.kill("SIGKILL"), 10000).unref();
  });
}

// The resident memory of a process, in kB.
export function rssKb(pid) {
  const m = fs.readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m);
  return Number(m[1]);
}
