package emulator.sdk;

import static emulator.harness.Charges.REJECTED_WRITE;
import static emulator.harness.Charges.assertCharge;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosBulkItemResponse;
import com.azure.cosmos.models.CosmosBulkOperationResponse;
import com.azure.cosmos.models.CosmosBulkOperations;
import com.azure.cosmos.models.CosmosItemOperation;
import com.azure.cosmos.models.CosmosPatchOperations;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import emulator.harness.Charges;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Bulk (executeBulkOperations) on a container of 4 physical partitions: a deterministic plan of mixed
 * operations over 97 keys, every seeded item touched at most once, so the outcome does not depend
 * on the order the ranges run in. One result per operation with the expected status and charge,
 * then the final state.
 */
class BulkTest extends TestBase {
    static final int KEYS = 97;

    static String pkOf(int i) {
        return "k" + (i % KEYS);
    }

    enum Kind { CREATE, REPLACE, READ, DELETE, REJECTED, READ404, MISSING }

    record Expected(int status, Kind kind, String seed) {}

    @Test
    void mixedOperationsOverFourPhysicalPartitionsOneResultPerOperation() {
        CosmosContainer container = createContainer(uid("bulk"), "/pk", 24000);
        assertEquals(4, container.getFeedRanges().size());
        int total = 3000;
        int seedCount = (int) Math.ceil(total * 6 / 10.0);
        List<ObjectNode> seeds = new ArrayList<>();
        for (int j = 0; j < seedCount; j++) seeds.add(obj("id", "s" + j, "pk", pkOf(j), "v", 0, "n", 0));
        List<CosmosItemOperation> seedOps = new ArrayList<>();
        for (ObjectNode s : seeds) seedOps.add(CosmosBulkOperations.getCreateItemOperation(s, new PartitionKey(s.get("pk").asText())));
        Map<String, JsonNode> seedBodies = new HashMap<>();
        int seeded = 0;
        for (CosmosBulkOperationResponse<Object> r : container.executeBulkOperations(seedOps)) {
            assertNull(r.getException(), () -> String.valueOf(r.getException()));
            assertEquals(201, r.getResponse().getStatusCode());
            JsonNode body = r.getResponse().getItem(JsonNode.class);
            assertEquals(((JsonNode) r.getOperation().getItem()).get("id").asText(), body.get("id").asText());
            assertCharge(r.getResponse().getRequestCharge(), Charges.create(body), "seed");
            seedBodies.put(body.get("id").asText(), body);
            seeded++;
        }
        assertEquals(seedCount, seeded);

        Map<String, ObjectNode> state = new HashMap<>();
        for (ObjectNode s : seeds) state.put(s.get("id").asText(), s.deepCopy());
        List<CosmosItemOperation> ops = new ArrayList<>();
        Map<CosmosItemOperation, Expected> expected = new IdentityHashMap<>();
        int next = 0;
        for (int i = 0; i < total; i++) {
            int t = i % 10;
            CosmosItemOperation op;
            Expected e;
            if (t == 0) {
                ObjectNode d = obj("id", "n" + i, "pk", pkOf(i), "v", 1, "n", 0);
                op = CosmosBulkOperations.getCreateItemOperation(d, new PartitionKey(pkOf(i)));
                e = new Expected(201, Kind.CREATE, null);
                state.put("n" + i, d);
            } else if (t == 1) {
                ObjectNode d = obj("id", "u" + i, "pk", pkOf(i + 1), "v", 1, "n", 0);
                op = CosmosBulkOperations.getUpsertItemOperation(d, new PartitionKey(pkOf(i + 1)));
                e = new Expected(201, Kind.CREATE, null);
                state.put("u" + i, d);
            } else if (t == 2) {
                ObjectNode s = seeds.get(next++);
                ObjectNode d = obj("id", s.get("id").asText(), "pk", s.get("pk").asText(), "v", 2, "n", 0);
                op = CosmosBulkOperations.getUpsertItemOperation(d, new PartitionKey(s.get("pk").asText()));
                e = new Expected(200, Kind.REPLACE, null);
                state.put(s.get("id").asText(), d);
            } else if (t == 3) {
                ObjectNode s = seeds.get(next++);
                op = CosmosBulkOperations.getReadItemOperation(s.get("id").asText(), new PartitionKey(s.get("pk").asText()));
                e = new Expected(200, Kind.READ, s.get("id").asText());
            } else if (t == 4) {
                ObjectNode s = seeds.get(next++);
                ObjectNode d = obj("id", s.get("id").asText(), "pk", s.get("pk").asText(), "v", 3, "n", 0);
                op = CosmosBulkOperations.getReplaceItemOperation(s.get("id").asText(), d, new PartitionKey(s.get("pk").asText()));
                e = new Expected(200, Kind.REPLACE, null);
                state.put(s.get("id").asText(), d);
            } else if (t == 5) {
                ObjectNode s = seeds.get(next++);
                op = CosmosBulkOperations.getDeleteItemOperation(s.get("id").asText(), new PartitionKey(s.get("pk").asText()));
                e = new Expected(204, Kind.DELETE, s.get("id").asText());
                state.remove(s.get("id").asText());
            } else if (t == 6) {
                ObjectNode s = seeds.get(next++);
                op = CosmosBulkOperations.getPatchItemOperation(s.get("id").asText(), new PartitionKey(s.get("pk").asText()),
                    CosmosPatchOperations.create().increment("/n", 5).set("/p", true));
                e = new Expected(200, Kind.REPLACE, null);
                ObjectNode st = state.get(s.get("id").asText());
                st.put("n", 5);
                st.put("p", true);
            } else if (t == 7) {
                ObjectNode s = seeds.get(next++);
                op = CosmosBulkOperations.getCreateItemOperation(obj("id", s.get("id").asText(), "pk", s.get("pk").asText(), "v", 9),
                    new PartitionKey(s.get("pk").asText()));
                e = new Expected(409, Kind.REJECTED, null);
            } else if (t == 8) {
                op = CosmosBulkOperations.getReadItemOperation("missing" + i, new PartitionKey(pkOf(i)));
                e = new Expected(404, Kind.READ404, null);
            } else {
                int sub = (i / 10) % 3;
                String id = "missing" + i;
                PartitionKey pk = new PartitionKey(pkOf(i));
                if (sub == 0) op = CosmosBulkOperations.getReplaceItemOperation(id, obj("id", id, "pk", pkOf(i)), pk);
                else if (sub == 1) op = CosmosBulkOperations.getDeleteItemOperation(id, pk);
                else op = CosmosBulkOperations.getPatchItemOperation(id, pk, CosmosPatchOperations.create().set("/a", 1));
                e = new Expected(404, Kind.MISSING, null);
            }
            ops.add(op);
            expected.put(op, e);
        }
        assertEquals(seedCount, next);

        int results = 0;
        for (CosmosBulkOperationResponse<Object> r : container.executeBulkOperations(ops)) {
            results++;
            Expected e = expected.get(r.getOperation());
            assertNotNull(e, "the result names one of the operations");
            String where = r.getOperation().getOperationType() + " " + r.getOperation().getId();
            assertNull(r.getException(), () -> where + ": " + r.getException());
            CosmosBulkItemResponse res = r.getResponse();
            assertEquals(e.status, res.getStatusCode(), where);
            JsonNode body = res.getItem(JsonNode.class);
            switch (e.kind) {
                case CREATE -> assertCharge(res.getRequestCharge(), Charges.create(body), where);
                case REPLACE -> assertCharge(res.getRequestCharge(), Charges.replace(body), where);
                case READ -> {
                    assertEquals(seedBodies.get(e.seed), body, where);
                    assertCharge(res.getRequestCharge(), Charges.read(body), where);
                }
                case DELETE -> assertCharge(res.getRequestCharge(), Charges.delete(seedBodies.get(e.seed)), where);
                case REJECTED -> assertCharge(res.getRequestCharge(), REJECTED_WRITE, where);
                case READ404 -> assertCharge(res.getRequestCharge(), 1, where);
                default -> { }
            }
            if (e.status < 300 && e.kind != Kind.DELETE) assertEquals(body.get("_etag").asText(), res.getETag(), where);
        }
        assertEquals(ops.size(), results);

        List<JsonNode> all = container.queryItems("SELECT c.id, c.pk, c.v, c.n, c.p FROM c", new CosmosQueryRequestOptions(), JsonNode.class)
            .stream().collect(java.util.stream.Collectors.toList());
        assertEquals(state.size(), all.size(), "number of items after the bulk");
        for (JsonNode got : all) {
            ObjectNode want = state.get(got.get("id").asText());
            assertNotNull(want, "unexpected item " + got);
            for (String f : List.of("pk", "v", "n", "p")) assertEquals(want.get(f), got.get(f), got.get("id") + "." + f);
        }
    }

    @Test
    void bulkCreatesAcrossManyKeysAllLand() {
        CosmosContainer container = createContainer(uid("bulk"), "/pk", 12000);
        List<CosmosItemOperation> ops = new ArrayList<>();
        for (int i = 0; i < 500; i++) ops.add(CosmosBulkOperations.getCreateItemOperation(obj("id", "i" + i, "pk", "p" + (i % 50)), new PartitionKey("p" + (i % 50))));
        int ok = 0;
        for (CosmosBulkOperationResponse<Object> r : container.executeBulkOperations(ops)) {
            assertNull(r.getException());
            if (r.getResponse().getStatusCode() == 201) ok++;
        }
        assertEquals(500, ok);
        assertEquals(500, container.queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions(), Integer.class).iterator().next());
        assertTrue(container.getFeedRanges().size() == 2);
    }
}
