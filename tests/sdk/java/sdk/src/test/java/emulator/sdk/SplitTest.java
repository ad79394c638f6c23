package emulator.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosBulkOperationResponse;
import com.azure.cosmos.models.CosmosBulkOperations;
import com.azure.cosmos.models.CosmosChangeFeedRequestOptions;
import com.azure.cosmos.models.CosmosItemOperation;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import emulator.harness.Emulator;
import emulator.harness.Raw;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Partition splits while the SDK works (docs/faults.md "Splits"): made by the emulator's
 * POST /_emulator/containers/{db}/{coll}/split, and by raising the throughput past 10,000 RU/s per
 * range. A query, an ORDER BY query, the change feed and bulk go on with nothing lost or repeated.
 */
class SplitTest extends TestBase {

    static List<String> ids(int n, int from) {
        return IntStream.range(from, from + n).mapToObj(i -> String.format("i%03d", i)).collect(Collectors.toList());
    }

    /** A container of 2 ranges (12,000 RU/s) holding i000..i059 with n = 0..59. */
    private CosmosContainer seeded() {
        CosmosContainer c = createContainer(uid("c"), "/pk", 12000);
        List<CosmosItemOperation> ops = new ArrayList<>();
        List<String> ids = ids(60, 0);
        for (int n = 0; n < 60; n++) {
            String id = ids.get(n);
            ops.add(CosmosBulkOperations.getCreateItemOperation(obj("id", id, "pk", "k" + id, "n", n), new PartitionKey("k" + id)));
        }
        for (CosmosBulkOperationResponse<Object> r : c.executeBulkOperations(ops)) assertEquals(201, r.getResponse().getStatusCode());
        return c;
    }

    private JsonNode split(CosmosContainer c, String rangeId) {
        Raw.Response r = Raw.split(emu, dbId, c.getId(), rangeId);
        assertEquals(200, r.status, r.body);
        return parse(r.body);
    }

    private List<String> rangeIds(CosmosContainer c) {
        JsonNode r = parse(Raw.request(emu, "GET", "/dbs/" + dbId + "/colls/" + c.getId() + "/pkranges", null).body);
        List<String> out = new ArrayList<>();
        for (JsonNode x : r.get("PartitionKeyRanges")) out.add(x.get("id").asText());
        return out;
    }

    @Test
    void aQuerySplitBetweenTwoPagesReturnsEveryItemOnce() {
        Assumptions.assumeTrue(Emulator.LOCAL, "the emulator's own split endpoint");
        CosmosContainer c = seeded();
        Iterator<FeedResponse<JsonNode>> pages = c.queryItems("SELECT c.id FROM c", new CosmosQueryRequestOptions(), JsonNode.class)
            .iterableByPage(7).iterator();
        List<String> seen = new ArrayList<>();
        FeedResponse<JsonNode> first = pages.next();
        first.getResults().forEach(r -> seen.add(r.get("id").asText()));
        assertTrue(!seen.isEmpty() && seen.size() <= 7);
        JsonNode made = split(c, null);
        assertEquals(2, made.get("splits").size());
        while (pages.hasNext()) pages.next().getResults().forEach(r -> seen.add(r.get("id").asText()));
        assertEquals(ids(60, 0), seen.stream().sorted().collect(Collectors.toList()));
        assertEquals(List.of("2", "3", "4", "5"), rangeIds(c));
    }

    @Test
    void aCrossPartitionOrderBySplitBetweenTwoPagesStaysInOrderAndWhole() {
        Assumptions.assumeTrue(Emulator.LOCAL, "the emulator's own split endpoint");
        CosmosContainer c = seeded();
        Iterator<FeedResponse<JsonNode>> pages = c.queryItems("SELECT c.id, c.n FROM c ORDER BY c.n DESC", new CosmosQueryRequestOptions(), JsonNode.class)
            .iterableByPage(5).iterator();
        List<Integer> ns = new ArrayList<>();
        pages.next().getResults().forEach(r -> ns.add(r.get("n").asInt()));
        assertEquals(List.of(59, 58, 57, 56, 55), ns);
        split(c, "0");
        while (pages.hasNext()) pages.next().getResults().forEach(r -> ns.add(r.get("n").asInt()));
        assertEquals(IntStream.range(0, 60).map(i -> 59 - i).boxed().collect(Collectors.toList()), ns);
        List<Integer> asc = c.queryItems("SELECT VALUE c.n FROM c WHERE c.n >= 50 ORDER BY c.n", new CosmosQueryRequestOptions(), Integer.class)
            .stream().collect(Collectors.toList());
        assertEquals(IntStream.range(50, 60).boxed().collect(Collectors.toList()), asc);
    }

    @Test
    void theChangeFeedSplitBetweenTwoPagesLosesAndRepeatsNothing() {
        Assumptions.assumeTrue(Emulator.LOCAL, "the emulator's own split endpoint");
        CosmosContainer c = seeded();
        CosmosChangeFeedRequestOptions o = CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(FeedRange.forFullRange()).setMaxItemCount(10);
        Iterator<FeedResponse<JsonNode>> pages = c.queryChangeFeed(o, JsonNode.class).iterableByPage().iterator();
        List<String> seen = new ArrayList<>();
        pages.next().getResults().forEach(r -> seen.add(r.get("id").asText() + "@" + r.get("n").asInt()));
        assertEquals(10, seen.size());
        split(c, "1");
        String token = null;
        while (pages.hasNext()) {
            FeedResponse<JsonNode> p = pages.next();
            p.getResults().forEach(r -> seen.add(r.get("id").asText() + "@" + r.get("n").asInt()));
            token = p.getContinuationToken();
        }
        List<String> expected = new ArrayList<>();
        List<String> all = ids(60, 0);
        for (int n = 0; n < 60; n++) expected.add(all.get(n) + "@" + n);
        assertEquals(expected.stream().sorted().collect(Collectors.toList()), seen.stream().sorted().collect(Collectors.toList()));
        // changes after the split, then another split: a new iterator from the token sees exactly them
        List<CosmosItemOperation> ops = new ArrayList<>();
        List<String> more = ids(20, 60);
        for (int i = 0; i < 20; i++) ops.add(CosmosBulkOperations.getCreateItemOperation(obj("id", more.get(i), "pk", "k" + more.get(i), "n", 60 + i),
            new PartitionKey("k" + more.get(i))));
        c.executeBulkOperations(ops).forEach(r -> assertEquals(201, r.getResponse().getStatusCode()));
        c.replaceItem(obj("id", "i005", "pk", "ki005", "n", 1005), "i005", new PartitionKey("ki005"), null);
        split(c, "0");
        try (CosmosClient other = builder(emu).buildClient()) {
            List<String> after = ChangeFeedTest.items(ChangeFeedTest.drain(other.getDatabase(dbId).getContainer(c.getId()),
                CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(token))).stream()
                .map(r -> r.get("id").asText() + "@" + r.get("n").asInt()).sorted().collect(Collectors.toList());
            List<String> want = new ArrayList<>();
            for (int i = 0; i < 20; i++) want.add(more.get(i) + "@" + (60 + i));
            want.add("i005@1005");
            assertEquals(want.stream().sorted().collect(Collectors.toList()), after);
        }
    }

    @Test
    void bulkWithARoutingMapFromBeforeTheSplitLandsEveryOperation() {
        Assumptions.assumeTrue(Emulator.LOCAL, "the emulator's own split endpoint");
        CosmosContainer c = seeded();
        c.executeBulkOperations(List.of(CosmosBulkOperations.getReadItemOperation("i000", new PartitionKey("ki000"))))
            .forEach(r -> assertEquals(200, r.getResponse().getStatusCode()));
        split(c, null);
        List<CosmosItemOperation> ops = new ArrayList<>();
        for (String id : ids(40, 100)) ops.add(CosmosBulkOperations.getCreateItemOperation(obj("id", id, "pk", "k" + id), new PartitionKey("k" + id)));
        int ok = 0;
        for (CosmosBulkOperationResponse<Object> r : c.executeBulkOperations(ops)) {
            assertNull(r.getException(), () -> String.valueOf(r.getException()));
            assertEquals(201, r.getResponse().getStatusCode());
            ok++;
        }
        assertEquals(40, ok);
        assertEquals(100, c.queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions(), Integer.class).iterator().next());
        assertEquals(1, c.readItem("i001", new PartitionKey("ki001"), JsonNode.class).getItem().get("n").asInt());
        List<String> one = c.queryItems("SELECT VALUE c.id FROM c", new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("ki002")), String.class)
            .stream().collect(Collectors.toList());
        assertEquals(List.of("i002"), one);
    }

    @Test
    void raisingTheThroughputPast10000RuPerRangeSplitsLoweringItMergesNothing() {
        Assumptions.assumeTrue(Emulator.LOCAL, "the emulator's own split rule");
        CosmosContainer t = createContainer(uid("t"), "/pk", 400);
        t.createItem(obj("id", "a", "pk", "a"));
        assertEquals(List.of("0"), rangeIds(t));
        assertEquals(200, t.replaceThroughput(ThroughputProperties.createManualThroughput(11000)).getStatusCode());
        JsonNode ranges = parse(Raw.request(emu, "GET", "/dbs/" + dbId + "/colls/" + t.getId() + "/pkranges", null).body).get("PartitionKeyRanges");
        assertEquals(2, ranges.size());
        assertEquals("1", ranges.get(0).get("id").asText());
        assertEquals(parse("[\"0\"]"), ranges.get(0).get("parents"));
        assertEquals("2", ranges.get(1).get("id").asText());
        assertEquals("a", t.readItem("a", new PartitionKey("a"), JsonNode.class).getItem().get("id").asText());
        // the SDK's view follows: two feed ranges, a query across both
        assertEquals(1, t.queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions(), Integer.class).iterator().next());
        assertEquals(200, t.replaceThroughput(ThroughputProperties.createManualThroughput(400)).getStatusCode());
        assertEquals(2, rangeIds(t).size());
    }
}
