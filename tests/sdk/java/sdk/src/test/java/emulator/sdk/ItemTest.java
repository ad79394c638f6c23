package emulator.sdk;

import static emulator.harness.Charges.REJECTED_WRITE;
import static emulator.harness.Charges.assertCharge;
import static emulator.harness.Charges.countTerms;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import emulator.harness.Charges;
import emulator.harness.Emulator;
import emulator.harness.Raw;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Items: create, read, replace, upsert, delete; conditions; partition key values; session tokens; charges. */
class ItemTest extends TestBase {
    private static final List<String> SYSTEM = List.of("_rid", "_self", "_etag", "_attachments", "_ts");
    private CosmosContainer container;
    private String collRid;
    private String collSelf;

    @Override
    protected void setUp() {
        CosmosContainerProperties p = db.createContainer(new CosmosContainerProperties("items", "/pk")).getProperties();
        container = db.getContainer("items");
        collRid = p.getResourceId();
        collSelf = "dbs/" + db.read().getProperties().getResourceId() + "/colls/" + collRid + "/";
    }

    private static JsonNode item(CosmosItemResponse<JsonNode> r) {
        return r.getItem();
    }

    private CosmosItemResponse<JsonNode> create(ObjectNode doc) {
        return container.createItem((JsonNode) doc);
    }

    private CosmosItemResponse<JsonNode> read(String id, Object pk) {
        return container.readItem(id, new PartitionKey(pk), JsonNode.class);
    }

    private void assertSystemProperties(JsonNode doc, List<String> userKeys) {
        List<String> expected = new ArrayList<>(userKeys);
        expected.addAll(SYSTEM);
        assertEquals(expected, keys(doc));
        byte[] rid = Base64.getDecoder().decode(doc.get("_rid").asText().replace('-', '/'));
        assertEquals(16, rid.length, "item _rid is 16 bytes");
        byte[] coll = Base64.getDecoder().decode(collRid.replace('-', '/'));
        for (int i = 0; i < 8; i++) assertEquals(coll[i], rid[i], "the item _rid starts with the container's");
        assertEquals(collSelf + "docs/" + doc.get("_rid").asText() + "/", doc.get("_self").asText());
        assertTrue(doc.get("_etag").asText().matches("^\"[^\"]+\"$"));
        assertEquals("attachments/", doc.get("_attachments").asText());
        assertTrue(doc.get("_ts").isIntegralNumber());
        assertTrue(Math.abs(doc.get("_ts").asLong() - System.currentTimeMillis() / 1000) < 120);
    }

    static long lsnOf(String sessionToken) {
        assertTrue(sessionToken.matches("^0:-1#\\d+$"), "session token " + sessionToken);
        return Long.parseLong(sessionToken.substring(sessionToken.indexOf('#') + 1));
    }

    @Test
    void createAnswers201WithTheStoredItemSystemPropertiesHeadersAndCharge() {
        ObjectNode body = obj("id", uid("i"), "pk", "a", "name", "widget", "tags", List.of("x", "y"),
            "nested", parse("{\"n\":1,\"ok\":true,\"none\":null}"));
        CosmosItemResponse<JsonNode> res = create(body);
        assertEquals(201, res.getStatusCode());
        assertSystemProperties(item(res), List.of("id", "pk", "name", "tags", "nested"));
        assertEquals(body, strip(item(res)));
        assertEquals(item(res).get("_etag").asText(), res.getETag());
        lsnOf(res.getSessionToken());
        if (Emulator.LOCAL) {
            assertEquals(collRid, header(res.getResponseHeaders(), "x-ms-content-path"));
            assertEquals("dbs/" + dbId + "/colls/items", header(res.getResponseHeaders(), "x-ms-alt-content-path"));
        }
        assertEquals(9, countTerms(item(res)));
        assertCharge(res.getRequestCharge(), Charges.create(item(res)));
    }

    @Test
    void aMinimalItemCostsTheCreateFormulaWithThreeTerms() {
        CosmosItemResponse<JsonNode> res = create(obj("id", uid("min"), "pk", "m"));
        assertCharge(res.getRequestCharge(), Charges.round2(4.6 + 0.6 * Charges.kbOf(item(res)) + 0.38 * 3));
    }

    @Test
    void clientSuppliedSystemPropertiesAreReplaced() {
        CosmosItemResponse<JsonNode> res = create(obj("id", uid("i"), "pk", "a", "_rid", "bogus", "_self", "bogus",
            "_etag", "bogus", "_ts", 5, "_attachments", "bogus", "v", 1));
        assertSystemProperties(item(res), List.of("id", "pk", "v"));
    }

    @Test
    void aDuplicateIdInTheSameLogicalPartitionAnswers409() {
        String id = uid("dup");
        create(obj("id", id, "pk", "a"));
        CosmosException e = expectError(409, () -> create(obj("id", id, "pk", "a")));
        assertCharge(e.getRequestCharge(), REJECTED_WRITE);
    }

    @Test
    void theSameIdInTwoLogicalPartitionsIsTwoItems() {
        String id = uid("same");
        CosmosItemResponse<JsonNode> a = create(obj("id", id, "pk", "a", "which", "a"));
        CosmosItemResponse<JsonNode> b = create(obj("id", id, "pk", "b", "which", "b"));
        assertNotEquals(item(a).get("_rid"), item(b).get("_rid"));
        assertEquals("a", item(read(id, "a")).get("which").asText());
        assertEquals("b", item(read(id, "b")).get("which").asText());
        container.deleteItem(id, new PartitionKey("a"), null);
        expectError(404, () -> read(id, "a"));
        assertEquals("b", item(read(id, "b")).get("which").asText());
    }

    @Test
    void partitionKeyValuesOfEveryType() {
        String id = uid("types");
        Object[][] cases = {{"s", "s"}, {5, 5}, {1.5, 1.5}, {true, true}, {false, false}};
        for (Object[] c : cases) {
            assertEquals(201, create(obj("id", id, "pk", c[1], "t", c[0].getClass().getSimpleName())).getStatusCode());
            CosmosItemResponse<JsonNode> r = container.readItem(id, pkOf(c[0]), JsonNode.class);
            assertEquals(200, r.getStatusCode());
            assertEquals(JSON.valueToTree(c[1]), r.getItem().get("pk"));
        }
        // null
        ObjectNode withNull = obj("id", id, "t", "null");
        withNull.putNull("pk");
        assertEquals(201, create(withNull).getStatusCode());
        CosmosItemResponse<JsonNode> rn = container.readItem(id, new PartitionKey(null), JsonNode.class);
        assertTrue(rn.getItem().get("pk").isNull());
        // absent: PartitionKey.NONE
        assertEquals(201, container.createItem((JsonNode) obj("id", id, "t", "none"), PartitionKey.NONE, null).getStatusCode());
        CosmosItemResponse<JsonNode> r = container.readItem(id, PartitionKey.NONE, JsonNode.class);
        assertEquals("none", r.getItem().get("t").asText());
        assertFalse(r.getItem().has("pk"));
    }

    private static PartitionKey pkOf(Object v) {
        return new PartitionKey(v);
    }

    @Test
    void createInAnUnknownContainerOrDatabaseAnswers404() {
        CosmosException e = expectError(404, () -> db.getContainer(uid("none")).createItem(obj("id", "x", "pk", "a")));
        expectError(404, () -> client.getDatabase(uid("none")).getContainer("c").createItem(obj("id", "x", "pk", "a")));
    }

    @Test
    void readAnswers200WithTheStoredItemAnd1Ru() {
        CosmosItemResponse<JsonNode> created = create(obj("id", uid("r"), "pk", "a", "v", List.of(1, 2)));
        CosmosItemResponse<JsonNode> res = read(item(created).get("id").asText(), "a");
        assertEquals(200, res.getStatusCode());
        assertEquals(item(created), item(res));
        assertEquals(item(created).get("_etag").asText(), res.getETag());
        lsnOf(res.getSessionToken());
        assertCharge(res.getRequestCharge(), 1);
    }

    @Test
    void a100KbItemCostsTheReadFormula() {
        CosmosItemResponse<JsonNode> created = create(obj("id", uid("big"), "pk", "a", "blob", "x".repeat(100 * 1024)));
        CosmosItemResponse<JsonNode> res = read(item(created).get("id").asText(), "a");
        double kb = Charges.kbOf(item(res));
        assertTrue(kb > 100);
        assertCharge(res.getRequestCharge(), Charges.round2(Math.max(1, 1 + 0.1 * (kb - 1))));
        assertCharge(created.getRequestCharge(), Charges.create(item(created)));
    }

    @Test
    void anUnknownItemAnswers404AndCosts1Ru() {
        CosmosException e = expectError(404, () -> read(uid("missing"), "a"));
        assertCharge(e.getRequestCharge(), 1);
    }

    @Test
    void anItemIsOnlyFoundInItsOwnLogicalPartition() {
        String id = uid("p");
        create(obj("id", id, "pk", "a"));
        expectError(404, () -> read(id, "b"));
        expectError(404, () -> read(id, 0));
    }

    @Test
    void ifNoneMatchWithTheCurrentEtagAnswers304() {
        CosmosItemResponse<JsonNode> created = create(obj("id", uid("inm"), "pk", "a"));
        String id = item(created).get("id").asText();
        CosmosItemResponse<JsonNode> notModified = container.readItem(id, new PartitionKey("a"),
            new CosmosItemRequestOptions().setIfNoneMatchETag(created.getETag()), JsonNode.class);
        assertEquals(304, notModified.getStatusCode());
        assertNull(notModified.getItem());
        assertEquals(created.getETag(), notModified.getETag());
        assertCharge(notModified.getRequestCharge(), 1);
        CosmosItemResponse<JsonNode> modified = container.readItem(id, new PartitionKey("a"),
            new CosmosItemRequestOptions().setIfNoneMatchETag("\"other\""), JsonNode.class);
        assertEquals(200, modified.getStatusCode());
        assertEquals(item(created), item(modified));
    }

    @Test
    void replaceAnswers200WithTheNewImageANewEtagAndTheReplaceCharge() {
        CosmosItemResponse<JsonNode> created = create(obj("id", uid("rep"), "pk", "a", "v", 1));
        String id = item(created).get("id").asText();
        CosmosItemResponse<JsonNode> res = container.replaceItem((JsonNode) obj("id", id, "pk", "a", "v", 2, "w", List.of(1)), id,
            new PartitionKey("a"), null);
        assertEquals(200, res.getStatusCode());
        assertSystemProperties(item(res), List.of("id", "pk", "v", "w"));
        assertEquals(item(created).get("_rid"), item(res).get("_rid"));
        assertNotEquals(item(created).get("_etag"), item(res).get("_etag"));
        assertEquals(item(res).get("_etag").asText(), res.getETag());
        assertCharge(res.getRequestCharge(), Charges.replace(item(res)));
        assertEquals(item(res), item(read(id, "a")));
    }

    @Test
    void theReplacedImageKeepsTheNewPropertyOrder() {
        String id = uid("order");
        create(obj("id", id, "pk", "a", "first", 1, "second", 2));
        CosmosItemResponse<JsonNode> res = container.replaceItem((JsonNode) obj("second", 2, "first", 1, "pk", "a", "id", id), id,
            new PartitionKey("a"), null);
        assertEquals(List.of("second", "first", "pk", "id"), keys(item(res)).subList(0, 4));
    }

    @Test
    void replaceOfAnUnknownItemAnswers404() {
        String id = uid("none");
        CosmosException e = expectError(404, () -> container.replaceItem(obj("id", id, "pk", "a"), id, new PartitionKey("a"), null));
        assertCharge(e.getRequestCharge(), REJECTED_WRITE);
    }

    @Test
    void ifMatchWithAStaleEtagAnswers412WithTheCurrentEtag200() {
        CosmosItemResponse<JsonNode> created = create(obj("id", uid("im"), "pk", "a", "v", 1));
        String id = item(created).get("id").asText();
        CosmosItemResponse<JsonNode> updated = container.replaceItem((JsonNode) obj("id", id, "pk", "a", "v", 2), id, new PartitionKey("a"), null);
        CosmosException e = expectError(412, () -> container.replaceItem(obj("id", id, "pk", "a", "v", 3), id, new PartitionKey("a"),
            new CosmosItemRequestOptions().setIfMatchETag(created.getETag())));
        assertTrue(e.getMessage().contains("Operation cannot be performed because one of the specified precondition is not met."), e.getMessage());
        assertCharge(e.getRequestCharge(), REJECTED_WRITE);
        assertEquals(2, item(read(id, "a")).get("v").asInt());
        CosmosItemResponse<JsonNode> ok = container.replaceItem((JsonNode) obj("id", id, "pk", "a", "v", 3), id, new PartitionKey("a"),
            new CosmosItemRequestOptions().setIfMatchETag(updated.getETag()));
        assertEquals(200, ok.getStatusCode());
        assertEquals(3, item(ok).get("v").asInt());
    }

    @Test
    void aBodyWithAnotherIdRenamesTheItemAndThePartitionKeyCannotMove() {
        String id = uid("idm");
        create(obj("id", id, "pk", "a"));
        String path = "/dbs/" + dbId + "/colls/items/docs/" + id;
        // The service renames (Microsoft's Python SDK tests rename items by replace); the rid stays.
        String other = uid("other");
        Raw.Response r = Raw.request(emu, "PUT", path, "{\"id\":\"" + other + "\",\"pk\":\"a\"}",
            Map.of("x-ms-documentdb-partitionkey", "[\"a\"]"), null);
        assertEquals(200, r.status, r.body);
        assertEquals(other, parse(r.body).get("id").asText());
        Raw.Response back = Raw.request(emu, "PUT", "/dbs/" + dbId + "/colls/items/docs/" + other,
            "{\"id\":\"" + id + "\",\"pk\":\"a\"}", Map.of("x-ms-documentdb-partitionkey", "[\"a\"]"), null);
        assertEquals(200, back.status, back.body);
        Raw.Response m = Raw.request(emu, "PUT", path, "{\"id\":\"" + id + "\",\"pk\":\"b\"}",
            Map.of("x-ms-documentdb-partitionkey", "[\"a\"]"), null);
        assertEquals(400, m.status, m.body);
        assertEquals("1001", m.header("x-ms-substatus"));
    }

    @Test
    void upsertAnswers201ThenReplaceCharge200() {
        String id = uid("up");
        CosmosItemResponse<JsonNode> first = container.upsertItem((JsonNode) obj("id", id, "pk", "a", "v", 1));
        assertEquals(201, first.getStatusCode());
        assertSystemProperties(item(first), List.of("id", "pk", "v"));
        assertCharge(first.getRequestCharge(), Charges.create(item(first)));
        CosmosItemResponse<JsonNode> second = container.upsertItem((JsonNode) obj("id", id, "pk", "a", "v", 2, "extra", "yes"));
        assertEquals(200, second.getStatusCode());
        assertEquals(2, item(second).get("v").asInt());
        assertEquals(item(first).get("_rid"), item(second).get("_rid"));
        assertNotEquals(item(first).get("_etag"), item(second).get("_etag"));
        assertCharge(second.getRequestCharge(), Charges.replace(item(second)));
        expectError(412, () -> container.upsertItem(obj("id", id, "pk", "a", "v", 3),
            new CosmosItemRequestOptions().setIfMatchETag(first.getETag())));
    }

    @Test
    void deleteAnswers204CostsTheCreateFormulaOnTheStoredImageThen404() {
        CosmosItemResponse<JsonNode> created = create(obj("id", uid("del"), "pk", "a", "list", List.of(1, 2, 3)));
        String id = item(created).get("id").asText();
        CosmosItemResponse<Object> res = container.deleteItem(id, new PartitionKey("a"), null);
        assertEquals(204, res.getStatusCode());
        assertNull(res.getItem());
        lsnOf(res.getSessionToken());
        assertCharge(res.getRequestCharge(), Charges.delete(item(created)));
        expectError(404, () -> read(id, "a"));
        CosmosException e = expectError(404, () -> container.deleteItem(id, new PartitionKey("a"), null));
        assertCharge(e.getRequestCharge(), REJECTED_WRITE);
    }

    @Test
    void deleteWithAStaleIfMatchAnswers412AndKeepsTheItem() {
        CosmosItemResponse<JsonNode> created = create(obj("id", uid("delim"), "pk", "a"));
        String id = item(created).get("id").asText();
        container.replaceItem((JsonNode) obj("id", id, "pk", "a", "v", 2), id, new PartitionKey("a"), null);
        expectError(412, () -> container.deleteItem(id, new PartitionKey("a"), new CosmosItemRequestOptions().setIfMatchETag(created.getETag())));
        assertEquals(200, read(id, "a").getStatusCode());
    }

    @Test
    void sessionTokensAre0Minus1LsnGrowingByOnePerWrite() {
        String cid = uid("sess");
        CosmosContainer c = createContainer(cid, "/pk");
        CosmosItemResponse<JsonNode> a = c.createItem((JsonNode) obj("id", "a", "pk", "x"));
        long lsn1 = lsnOf(a.getSessionToken());
        assertEquals(lsn1 + 1, lsnOf(c.createItem((JsonNode) obj("id", "b", "pk", "y")).getSessionToken()));
        assertEquals(lsn1 + 1, lsnOf(c.readItem("a", new PartitionKey("x"), JsonNode.class).getSessionToken()));
        assertEquals(lsn1 + 2, lsnOf(c.replaceItem((JsonNode) obj("id", "a", "pk", "x", "v", 1), "a", new PartitionKey("x"), null).getSessionToken()));
        assertEquals(lsn1 + 3, lsnOf(c.deleteItem("b", new PartitionKey("y"), null).getSessionToken()));
        if (Emulator.LOCAL) assertEquals(1, lsn1);
    }

    @Test
    void aReadWithASessionTokenFromTheFutureIsRefusedWithReadSessionNotAvailable() {
        String cid = uid("sess");
        CosmosContainer c = createContainer(cid, "/pk");
        CosmosItemResponse<JsonNode> a = c.createItem((JsonNode) obj("id", "a", "pk", "x"));
        long lsn = lsnOf(a.getSessionToken());
        // a token the container has reached reads; one from the future answers 404/1002, which the SDK retries then
        // raises (the emulator accepts a token ahead of the range but within what it issued anywhere: docs/protocol.md §10)
        assertEquals(200, c.readItem("a", new PartitionKey("x"),
            new CosmosItemRequestOptions().setSessionToken("0:-1#" + lsn), JsonNode.class).getStatusCode());
        expectError(404, 1002, () -> c.readItem("a", new PartitionKey("x"),
            new CosmosItemRequestOptions().setSessionToken("0:-1#" + (lsn + 1_000_000_000L)), JsonNode.class));
    }

    @Test
    void twentyConcurrentCreatesOfOneIdExactlyOneWins() throws Exception {
        String id = uid("race");
        ExecutorService pool = Executors.newFixedThreadPool(20);
        try {
            List<Future<Integer>> fs = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                final int n = i;
                fs.add(pool.submit(() -> {
                    try {
                        create(obj("id", id, "pk", "race", "i", n));
                        return 201;
                    } catch (CosmosException e) {
                        return e.getStatusCode();
                    }
                }));
            }
            int ok = 0;
            int conflicts = 0;
            for (Future<Integer> f : fs) {
                int s = f.get();
                if (s == 201) ok++;
                if (s == 409) conflicts++;
            }
            assertEquals(1, ok);
            assertEquals(19, conflicts);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrentReplacesWithTheSameIfMatchExactlyOneWins() throws Exception {
        CosmosItemResponse<JsonNode> created = create(obj("id", uid("occ"), "pk", "occ", "v", 0));
        String id = item(created).get("id").asText();
        ExecutorService pool = Executors.newFixedThreadPool(10);
        try {
            List<Future<Integer>> fs = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                final int n = i;
                fs.add(pool.submit(() -> {
                    try {
                        container.replaceItem(obj("id", id, "pk", "occ", "v", n + 1), id, new PartitionKey("occ"),
                            new CosmosItemRequestOptions().setIfMatchETag(created.getETag()));
                        return 200;
                    } catch (CosmosException e) {
                        return e.getStatusCode();
                    }
                }));
            }
            int ok = 0;
            int failed = 0;
            for (Future<Integer> f : fs) {
                int s = f.get();
                if (s == 200) ok++;
                if (s == 412) failed++;
            }
            assertEquals(1, ok);
            assertEquals(9, failed);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void readManyReadsItemsOfSeveralPartitionsAndSkipsMissingOnes() {
        String a = uid("rm");
        String b = uid("rm");
        create(obj("id", a, "pk", "p1", "v", 1));
        create(obj("id", b, "pk", "p2", "v", 2));
        List<com.azure.cosmos.models.CosmosItemIdentity> ids = List.of(
            new com.azure.cosmos.models.CosmosItemIdentity(new PartitionKey("p1"), a),
            new com.azure.cosmos.models.CosmosItemIdentity(new PartitionKey("p2"), b),
            new com.azure.cosmos.models.CosmosItemIdentity(new PartitionKey("p2"), "missing"));
        List<JsonNode> got = new ArrayList<>(container.readMany(ids, JsonNode.class).getResults());
        got.sort((x, y) -> x.get("v").asInt() - y.get("v").asInt());
        assertEquals(2, got.size());
        assertEquals(a, got.get(0).get("id").asText());
        assertEquals(b, got.get(1).get("id").asText());
    }

    @Test
    void itemsExpireAfterTheContainersDefaultTtl() throws Exception {
        String cid = uid("ttl");
        db.createContainer(new CosmosContainerProperties(cid, "/pk").setDefaultTimeToLiveInSeconds(1));
        CosmosContainer c = db.getContainer(cid);
        c.createItem(obj("id", "short", "pk", "p"));
        c.createItem(obj("id", "forever", "pk", "p", "ttl", -1));
        c.createItem(obj("id", "longer", "pk", "p", "ttl", 3600));
        Thread.sleep(2100);
        expectError(404, () -> c.readItem("short", new PartitionKey("p"), JsonNode.class));
        assertEquals(200, c.readItem("forever", new PartitionKey("p"), JsonNode.class).getStatusCode());
        assertEquals(200, c.readItem("longer", new PartitionKey("p"), JsonNode.class).getStatusCode());
        assertEquals(201, c.createItem(obj("id", "short", "pk", "p")).getStatusCode());
    }
}
