package emulator.sdk;

import static emulator.harness.Charges.REJECTED_WRITE;
import static emulator.harness.Charges.assertCharge;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosPatchItemRequestOptions;
import com.azure.cosmos.models.CosmosPatchOperations;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import emulator.harness.Charges;
import emulator.harness.Emulator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Partial document update (patchItem): the six operations, conditions, errors, charges, concurrency. */
class PatchTest extends TestBase {
    private static final PartitionKey A = new PartitionKey("a");
    private CosmosContainer container;

    @Override
    protected void setUp() {
        container = createContainer("p", "/pk");
    }

    private JsonNode fresh() {
        return container.createItem((JsonNode) obj("id", uid("doc"), "pk", "a", "name", "old", "n", 5, "f", 1.5,
            "arr", List.of(1, 2, 3), "obj", parse("{\"x\":1,\"y\":{\"z\":\"deep\"}}"), "gone", "bye")).getItem();
    }

    private CosmosItemResponse<JsonNode> patch(JsonNode doc, CosmosPatchOperations ops) {
        return container.patchItem(doc.get("id").asText(), A, ops, JsonNode.class);
    }

    private JsonNode read(JsonNode doc) {
        return container.readItem(doc.get("id").asText(), A, JsonNode.class).getItem();
    }

    @Test
    void addSetReplaceRemoveIncrMove() {
        JsonNode d = fresh();
        JsonNode r = patch(d, CosmosPatchOperations.create().add("/color", "red").add("/arr/1", 99).add("/arr/-", 100)
            .add("/obj/y/w", List.of(true)).add("/name", "new")).getItem();
        assertEquals("red", r.get("color").asText());
        assertEquals(parse("[1,99,2,3,100]"), r.get("arr"));
        assertEquals(parse("{\"x\":1,\"y\":{\"z\":\"deep\",\"w\":[true]}}"), r.get("obj"));
        assertEquals("new", r.get("name").asText());

        JsonNode s = patch(fresh(), CosmosPatchOperations.create().set("/name", Map.of("a", 1)).set("/brand", null).set("/arr/0", "first")).getItem();
        assertEquals(parse("{\"a\":1}"), s.get("name"));
        assertTrue(s.get("brand").isNull());
        assertEquals(parse("[\"first\",2,3]"), s.get("arr"));

        JsonNode rp = patch(fresh(), CosmosPatchOperations.create().replace("/name", "replaced").replace("/arr/2", 30).replace("/obj/y/z", 0)).getItem();
        assertEquals("replaced", rp.get("name").asText());
        assertEquals(parse("[1,2,30]"), rp.get("arr"));
        assertEquals(parse("{\"x\":1,\"y\":{\"z\":0}}"), rp.get("obj"));

        JsonNode rm = patch(fresh(), CosmosPatchOperations.create().remove("/gone").remove("/arr/0").remove("/obj/y")).getItem();
        assertFalse(rm.has("gone"));
        assertEquals(parse("[2,3]"), rm.get("arr"));
        assertEquals(parse("{\"x\":1}"), rm.get("obj"));

        JsonNode inc = patch(fresh(), CosmosPatchOperations.create().increment("/n", 3).increment("/f", 1).increment("/counter", -2)
            .increment("/obj/x", 0.5)).getItem();
        assertEquals(8, inc.get("n").asInt());
        assertTrue(inc.get("n").isIntegralNumber(), "integers stay integers");
        assertEquals(2.5, inc.get("f").asDouble(), 0);
        assertEquals(-2, inc.get("counter").asInt());
        assertEquals(1.5, inc.get("obj").get("x").asDouble(), 0);

        JsonNode mv = patch(fresh(), CosmosPatchOperations.create().move("/gone", "/moved").move("/obj/y", "/name")).getItem();
        assertFalse(mv.has("gone"));
        assertEquals("bye", mv.get("moved").asText());
        assertEquals(parse("{\"z\":\"deep\"}"), mv.get("name"));
        assertEquals(parse("{\"x\":1}"), mv.get("obj"));
    }

    @Test
    void theReplyIsTheWholeDocumentPersistedWithTheReplaceCharge() {
        JsonNode d = fresh();
        CosmosItemResponse<JsonNode> res = patch(d, CosmosPatchOperations.create().add("/added", 1).set("/name", "set")
            .replace("/f", 2.25).remove("/gone").increment("/n", 1).move("/arr", "/list"));
        assertEquals(200, res.getStatusCode());
        assertEquals(read(d), res.getItem());
        assertEquals(res.getItem().get("_etag").asText(), res.getETag());
        assertCharge(res.getRequestCharge(), Charges.replace(res.getItem()));
    }

    @Test
    void conditionalPatch() {
        JsonNode d = fresh();
        CosmosItemResponse<JsonNode> ok = container.patchItem(d.get("id").asText(), A, CosmosPatchOperations.create().set("/name", "cond"),
            new CosmosPatchItemRequestOptions().setFilterPredicate("FROM c WHERE c.n = 5 AND IS_DEFINED(c.name) AND NOT (c.n > 5)"), JsonNode.class);
        assertEquals("cond", ok.getItem().get("name").asText());
        JsonNode e = fresh();
        CosmosException err = expectError(412, () -> container.patchItem(e.get("id").asText(), A, CosmosPatchOperations.create().set("/name", "x"),
            new CosmosPatchItemRequestOptions().setFilterPredicate("from c where c.n = 6"), JsonNode.class));
        assertCharge(err.getRequestCharge(), REJECTED_WRITE);
        assertEquals(e.get("_etag"), read(e).get("_etag"));
        expectError(412, () -> container.patchItem(e.get("id").asText(), A, CosmosPatchOperations.create().set("/name", "x"),
            new CosmosPatchItemRequestOptions().setFilterPredicate("FROM c WHERE c.n = '5'"), JsonNode.class));
        if (Emulator.LOCAL) {
            CosmosException bad = expectError(400, () -> container.patchItem(e.get("id").asText(), A, CosmosPatchOperations.create().set("/name", "x"),
                new CosmosPatchItemRequestOptions().setFilterPredicate("FROM c WHERE c.n = = 5"), JsonNode.class));
            assertTrue(bad.getMessage().contains("The patch condition is invalid"), bad.getMessage());
        }
    }

    @Test
    void ifMatchStaleEtagAnswers412() {
        JsonNode d = fresh();
        patch(d, CosmosPatchOperations.create().set("/name", "v2"));
        CosmosPatchItemRequestOptions stale = new CosmosPatchItemRequestOptions();
        stale.setIfMatchETag(d.get("_etag").asText());
        CosmosException e = expectError(412, () -> container.patchItem(d.get("id").asText(), A, CosmosPatchOperations.create().set("/name", "v3"), stale, JsonNode.class));
        assertCharge(e.getRequestCharge(), REJECTED_WRITE);
        JsonNode current = read(d);
        assertEquals("v2", current.get("name").asText());
        CosmosPatchItemRequestOptions fresh = new CosmosPatchItemRequestOptions();
        fresh.setIfMatchETag(current.get("_etag").asText());
        assertEquals("v3", container.patchItem(d.get("id").asText(), A, CosmosPatchOperations.create().set("/name", "v3"), fresh, JsonNode.class)
            .getItem().get("name").asText());
    }

    private void expectBad(CosmosPatchOperations ops, String messagePart) {
        JsonNode d = fresh();
        CosmosException e = expectError(400, () -> patch(d, ops));
        if (messagePart != null && Emulator.LOCAL) assertTrue(e.getMessage().contains(messagePart), e.getMessage());
        assertEquals(d, read(d), "nothing was applied");
    }

    @Test
    void patchErrors() {
        expectBad(CosmosPatchOperations.create().remove("/nope"), "The patch path '/nope' does not exist.");
        expectBad(CosmosPatchOperations.create().move("/nope", "/x"), "does not exist");
        expectBad(CosmosPatchOperations.create().replace("/nope", 1), "does not exist");
        expectBad(CosmosPatchOperations.create().increment("/name", 1), "is not a number");
        expectBad(CosmosPatchOperations.create().add("/arr/7", 1), null);
        expectBad(CosmosPatchOperations.create().set("/missing/child", 1), "parent that does not exist");
        expectBad(CosmosPatchOperations.create().set("/pk", "b"), "partition key");
        expectBad(CosmosPatchOperations.create().set("/name", "applied?").remove("/nope"), null);
        CosmosPatchOperations eleven = CosmosPatchOperations.create();
        for (int i = 0; i < 11; i++) eleven.set("/p" + i, i);
        expectBad(eleven, "The number of patch operations can't exceed 10.");
        CosmosPatchOperations ten = CosmosPatchOperations.create();
        for (int i = 0; i < 10; i++) ten.set("/p" + i, i);
        assertEquals(9, patch(fresh(), ten).getItem().get("p9").asInt());
        expectError(404, () -> container.patchItem(uid("none"), A, CosmosPatchOperations.create().set("/x", 1), JsonNode.class));
    }

    @Test
    void fiftyConcurrentIncrementsAreAllApplied() throws Exception {
        JsonNode d = container.createItem((JsonNode) obj("id", uid("ctr"), "pk", "a", "count", 0)).getItem();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<Integer>> fs = new ArrayList<>();
            for (int i = 0; i < 50; i++) fs.add(pool.submit(() -> patch(d, CosmosPatchOperations.create().increment("/count", 1)).getStatusCode()));
            for (Future<Integer> f : fs) assertEquals(200, f.get());
        } finally {
            pool.shutdownNow();
        }
        assertEquals(50, read(d).get("count").asInt());
    }
}
