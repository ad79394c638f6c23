// The README's two screenshots of the Data Explorer, made on demand (not part of the tests):
//   node tests/explorer/screenshots.mjs docs/images
// A fresh emulator, a blog's posts in four physical partitions, a query by author and a look at
// the partitions after some reads.
import { join } from "node:path";
import puppeteer from "puppeteer-core";
import { startEmulator, newClient, rawRequest } from "../sdk/js/harness.mjs";

const out = process.argv[2] || "artifacts";
const env = await startEmulator();
const client = newClient(env);
try {
  await client.databases.create({ id: "blog" });
  const made = await rawRequest(env, {
    method: "POST",
    path: "/dbs/blog/colls",
    body: { id: "posts", partitionKey: { paths: ["/authorId"], kind: "Hash", version: 2 } },
    headers: { "x-cosmos-emulator-partition-count": "4" },
  });
  if (made.status !== 201) throw new Error(made.text);
  const posts = client.database("blog").container("posts");
  const authors = ["ana", "ben", "chen", "dara", "eli", "fay"];
  for (let i = 0; i < 60; i++) {
    const authorId = i < 24 ? "ana" : authors[i % authors.length];
    await posts.items.create({ id: `p${i}`, authorId, title: `Post ${i}`, likes: (i * 37) % 100, tags: i % 2 ? ["cosmos"] : ["c++"] });
  }
  for (let i = 0; i < 30; i++) await posts.item("p1", "ana").read();
  await posts.items.query("SELECT * FROM c WHERE c.likes > 50").fetchAll();

  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 820 });
  await page.goto(`${env.endpoint}_explorer/#/db/blog/c/posts/query`, { waitUntil: "networkidle0" });
  await page.waitForSelector("#query-editor");
  await page.click("#query-editor");
  await page.evaluate(() => document.execCommand("selectAll"));
  await page.keyboard.sendCharacter("SELECT TOP 5 c.id, c.title, c.likes FROM c WHERE c.likes >= @min ORDER BY c.likes DESC");
  await page.$eval("#query-params", (e) => (e.value = ""));
  await page.type("#query-params", '[{"name": "@min", "value": 40}]');
  await page.click("#query-run");
  await page.waitForSelector("#query-charge");
  await page.screenshot({ path: join(out, "explorer-query.png") });
  await page.goto(`${env.endpoint}_explorer/#/db/blog/c/posts/partitions`, { waitUntil: "networkidle0" });
  await page.waitForFunction(() => document.querySelectorAll("#partitions-table tbody tr").length === 4);
  await page.screenshot({ path: join(out, "explorer-partitions.png") });
  await browser.close();
} finally {
  await env.stop();
}
