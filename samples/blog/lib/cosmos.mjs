// What every design uses: the client, containers, bulk loading with progress, request-charge meters,
// change-feed workers. Only the public @azure/cosmos API: the same code runs against the emulator
// and against a Cosmos DB account.
import { ChangeFeedStartFrom, CosmosClient } from "@azure/cosmos";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The key every Cosmos DB emulator accepts; a real account's key comes from COSMOS_KEY. */
export const WELL_KNOWN_KEY =
  "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

export function connect({ endpoint, key } = {}) {
  return new CosmosClient({
    endpoint: endpoint || process.env.COSMOS_ENDPOINT || "http://127.0.0.1:8081/",
    key: key || process.env.COSMOS_KEY || WELL_KNOWN_KEY,
  });
}

const scriptsDir = join(dirname(fileURLToPath(import.meta.url)), "..", "scripts");
/** A server-side script's source, exactly as stored in scripts/. */
export const script = (name) => readFileSync(join(scriptsDir, `${name}.js`), "utf8");

/** Sums the request charges of a unit of work, call by call. */
export class Meter {
  constructor() {
    this.total = 0;
    this.calls = 0;
  }

  /** Records one response (item, feed, query, script or bulk result) and returns it. */
  add(response) {
    const charge = Number(response?.requestCharge ?? response?.headers?.["x-ms-request-charge"] ?? 0);
    this.total += charge;
    this.calls++;
    return response;
  }

  get ru() {
    return Math.round(this.total * 100) / 100;
  }
}

/** Creates a database afresh (a previous run's database of the same name is deleted first). */
export async function freshDatabase(client, id) {
  try {
    await client.database(id).delete();
  } catch (e) {
    if (e.code !== 404) throw e;
  }
  const { database } = await client.databases.create({ id });
  return database;
}

export async function createContainer(database, id, partitionKeyPath, throughput) {
  const { container } = await database.containers.create(
    { id, partitionKey: { paths: [partitionKeyPath] } },
    throughput ? { offerThroughput: throughput } : {},
  );
  return container;
}

/** Physical partitions of a container: what a cross-partition query fans out to. */
export async function physicalPartitions(container) {
  const { resources } = await container.readPartitionKeyRanges().fetchAll();
  return resources.length;
}

/** Runs a query to its end; the meter gets the charge of every page. */
export async function queryAll(container, meter, query, parameters = [], options = {}) {
  const response = await container.items.query({ query, parameters }, options).fetchAll();
  meter.add(response);
  return response.resources;
}

/** Progress on stderr: a rewritten line on a terminal, a line per 10% otherwise. */
export class Progress {
  constructor(label, total, { quiet = false } = {}) {
    this.label = label;
    this.total = total;
    this.done = 0;
    this.started = Date.now();
    this.quiet = quiet;
    this.lastDecile = -1;
  }

  step(n) {
    this.done += n;
    if (this.quiet) return;
    const rate = Math.round(this.done / Math.max(0.001, (Date.now() - this.started) / 1000));
    const line = `  ${this.label}: ${this.done.toLocaleString("en-US")}/${this.total.toLocaleString("en-US")} (${rate.toLocaleString("en-US")}/s)`;
    if (process.stderr.isTTY) {
      process.stderr.write(`\r${line}`);
      if (this.done >= this.total) process.stderr.write("\n");
    } else {
      const decile = Math.floor((10 * this.done) / Math.max(1, this.total));
      if (decile !== this.lastDecile) {
        this.lastDecile = decile;
        process.stderr.write(`${line}\n`);
      }
    }
  }
}

/**
 * Creates items through bulk (container.items.executeBulkOperations) in chunks, showing progress.
 * `items` is an iterable of [partitionKey, body]; every create must succeed.
 */
export async function bulkCreate(container, label, total, items, meter, { quiet = false, chunk = 50_000 } = {}) {
  const progress = new Progress(label, total, { quiet });
  let ops = [];
  const flush = async () => {
    const results = await container.items.executeBulkOperations(ops);
    results.forEach((r, i) => {
      if (r.error || r.response?.statusCode >= 300) {
        const e = r.error;
        throw new Error(`${label}: bulk create of ${ops[i].resourceBody.id} failed: ${e?.code ?? r.response?.statusCode} ${e?.message ?? ""}`);
      }
      meter.add(r.response);
    });
    progress.step(ops.length);
    ops = [];
  };
  for (const [partitionKey, resourceBody] of items) {
    ops.push({ operationType: "Create", partitionKey, resourceBody });
    if (ops.length >= chunk) await flush();
  }
  if (ops.length) await flush();
}

/**
 * Reads a container's change feed (latest version, every partition) and hands each page to a
 * handler: what a change feed processor does, run here step by step (drain()) so that the sample
 * can wait for the copies to converge.
 */
export class ChangeFeedWorker {
  constructor(name, container, handler, { maxItemCount = 1000 } = {}) {
    this.name = name;
    this.container = container;
    this.handler = handler;
    this.maxItemCount = maxItemCount;
    this.meter = new Meter();
    this.processed = 0;
  }

  /** Starts from now: changes made before this call are not read. */
  async startFromNow() {
    this.iterator = this.container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Now(),
      maxItemCount: this.maxItemCount,
    });
    await this.drain();
  }

  /** Reads every change not read yet; resolves to how many changes it read. */
  async drain() {
    let n = 0;
    for (;;) {
      const page = this.meter.add(await this.iterator.readNext());
      if (page.statusCode === 304) break;
      if (page.result.length) await this.handler(page.result, this.meter);
      n += page.result.length;
    }
    this.processed += n;
    return n;
  }
}

/** Drains every worker until none of them finds a change (copies made by one worker feed another). */
export async function settle(workers) {
  for (let round = 0; round < 20; round++) {
    let n = 0;
    for (const w of workers) n += await w.drain();
    if (n === 0) return;
  }
  throw new Error("the change-feed workers did not settle in 20 rounds");
}

export const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
