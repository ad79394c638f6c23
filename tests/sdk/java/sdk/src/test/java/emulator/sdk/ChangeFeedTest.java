package emulator.sdk;

import static emulator.harness.Charges.assertCharge;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.ChangeFeedProcessor;
import com.azure.cosmos.ChangeFeedProcessorBuilder;
import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncDatabase;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.ChangeFeedPolicy;
import com.azure.cosmos.models.ChangeFeedProcessorOptions;
import com.azure.cosmos.models.CosmosChangeFeedRequestOptions;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosPatchOperations;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import emulator.harness.Charges;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The change feed: the pull model (queryChangeFeed with CosmosChangeFeedRequestOptions) from the
 * beginning, from now, from a continuation, per partition key and per feed range, latest version and
 * all versions and deletes; and the change feed processor with a lease container.
 */
class ChangeFeedTest extends TestBase {

    private CosmosContainer newContainer() {
        return createContainer(uid("cf"), "/pk");
    }

    /** Every page of a change-feed iteration (the SDK ends it with the 304 page, empty). */
    static List<FeedResponse<JsonNode>> drain(CosmosContainer c, CosmosChangeFeedRequestOptions o) {
        List<FeedResponse<JsonNode>> pages = new ArrayList<>();
        for (FeedResponse<JsonNode> p : c.queryChangeFeed(o, JsonNode.class).iterableByPage()) {
            pages.add(p);
            assertTrue(pages.size() < 1000, "the iteration ends");
        }
        return pages;
    }

    static List<JsonNode> items(List<FeedResponse<JsonNode>> pages) {
        return pages.stream().flatMap(p -> p.getResults().stream()).collect(Collectors.toList());
    }

    static String last(List<FeedResponse<JsonNode>> pages) {
        assertFalse(pages.isEmpty(), "at least one page");
        String t = pages.get(pages.size() - 1).getContinuationToken();
        assertNotNull(t, "the last page has a continuation");
        return t;
    }

    static ObjectNode withLsn(JsonNode stored, long lsn) {
        ObjectNode d = stored.deepCopy();
        d.remove("_lsn");
        d.put("_lsn", (int) lsn);
        return d;
    }

    @Test
    void fromTheBeginningPagesInLsnOrderEachItemOnceAtItsLatestVersion() {
        CosmosContainer c = newContainer();
        List<JsonNode> stored = new ArrayList<>();
        for (int i = 0; i < 5; i++) stored.add(c.createItem((JsonNode) obj("id", "i" + i, "pk", i % 2 == 1 ? "pk2" : "pk1", "n", i)).getItem());
        JsonNode i1 = c.replaceItem((JsonNode) obj("id", "i1", "pk", "pk2", "n", 10), "i1", new PartitionKey("pk2"), null).getItem();
        CosmosChangeFeedRequestOptions o = CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(FeedRange.forFullRange()).setMaxItemCount(2);
        List<FeedResponse<JsonNode>> pages = drain(c, o);
        List<JsonNode> expected = List.of(withLsn(stored.get(0), 1), withLsn(stored.get(2), 3), withLsn(stored.get(3), 4),
            withLsn(stored.get(4), 5), withLsn(i1, 6));
        assertEquals(expected, items(pages));
        List<Integer> sizes = pages.stream().map(p -> p.getResults().size()).collect(Collectors.toList());
        assertEquals(List.of(2, 2, 1, 0), sizes, "pages of 2, then the 304");
        for (FeedResponse<JsonNode> p : pages.subList(0, 3)) {
            assertEquals("0:-1#6", p.getSessionToken());
            assertCharge(p.getRequestCharge(), Charges.round2(2 + p.getResults().stream().mapToDouble(Charges::read).sum()), "page");
        }
        assertCharge(pages.get(3).getRequestCharge(), 2, "a 304");
        // point reads and queries do not show _lsn
        assertFalse(c.readItem("i1", new PartitionKey("pk2"), JsonNode.class).getItem().has("_lsn"));
        // the continuation, in a new client, sees only what came after it
        String token = last(pages);
        c.createItem(obj("id", "late", "pk", "pk1"));
        try (CosmosClient other = builder(emu).buildClient()) {
            CosmosContainer c2 = other.getDatabase(dbId).getContainer(c.getId());
            List<JsonNode> after = items(drain(c2, CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(token)));
            assertEquals(List.of("late"), after.stream().map(d -> d.get("id").asText()).collect(Collectors.toList()));
            assertEquals(7, after.get(0).get("_lsn").asInt());
        }
    }

    @Test
    void afterDrainingUpdatesShowOnceAtTheirLatestVersionAndDeletesNever() {
        CosmosContainer c = newContainer();
        for (String id : List.of("a", "b", "c", "d")) c.createItem(obj("id", id, "pk", "p", "v", 0));
        String token = last(drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(FeedRange.forFullRange())));
        PartitionKey p = new PartitionKey("p");
        c.replaceItem(obj("id", "b", "pk", "p", "v", 1), "b", p, null); // 5
        c.upsertItem(obj("id", "c", "pk", "p", "v", 1)); // 6
        c.patchItem("c", p, CosmosPatchOperations.create().set("/v", 2), JsonNode.class); // 7
        c.deleteItem("d", p, null); // 8
        c.createItem(obj("id", "e", "pk", "p", "v", 0)); // 9
        List<FeedResponse<JsonNode>> pages = drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(token));
        assertEquals(List.of("b@1@5", "c@2@7", "e@0@9"), items(pages).stream()
            .map(d -> d.get("id").asText() + "@" + d.get("v").asInt() + "@" + d.get("_lsn").asInt()).collect(Collectors.toList()));
        String token2 = last(pages);
        // a delete alone is nothing new; created and deleted between two reads never shows
        c.deleteItem("a", p, null); // 10
        c.createItem(obj("id", "f", "pk", "p")); // 11
        c.deleteItem("f", p, null); // 12
        c.upsertItem(obj("id", "g", "pk", "p")); // 13
        assertEquals(List.of("g"), items(drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(token2)))
            .stream().map(d -> d.get("id").asText()).collect(Collectors.toList()));
        assertEquals(List.of("b", "c", "e", "g"), items(drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(FeedRange.forFullRange())))
            .stream().map(d -> d.get("id").asText()).collect(Collectors.toList()));
    }

    @Test
    void fromNowStartsAtTheFirstRequest() {
        CosmosContainer c = newContainer();
        c.createItem(obj("id", "old1", "pk", "p"));
        List<FeedResponse<JsonNode>> first = drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromNow(FeedRange.forFullRange()));
        assertEquals(List.of(), items(first));
        String token = last(first);
        c.createItem(obj("id", "new1", "pk", "p"));
        c.replaceItem(obj("id", "old1", "pk", "p", "v", 1), "old1", new PartitionKey("p"), null);
        assertEquals(List.of("new1", "old1"), items(drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(token)))
            .stream().map(d -> d.get("id").asText()).collect(Collectors.toList()));
    }

    @Test
    void aPartitionKeyFeedReadsOneLogicalPartitionAndItsTokenResumes() {
        CosmosContainer c = createContainer(uid("cf"), "/pk", 24000);
        for (int i = 0; i < 20; i++) c.createItem(obj("id", "i" + i, "pk", "k" + (i % 4)));
        FeedRange k1 = FeedRange.forLogicalPartition(new PartitionKey("k1"));
        List<FeedResponse<JsonNode>> pages = drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(k1));
        assertEquals(List.of("i1", "i13", "i17", "i5", "i9"), items(pages).stream().map(d -> d.get("id").asText()).sorted().collect(Collectors.toList()));
        String token = last(pages);
        c.createItem(obj("id", "x1", "pk", "k1"));
        c.createItem(obj("id", "x2", "pk", "k2"));
        assertEquals(List.of("x1"), items(drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(token)))
            .stream().map(d -> d.get("id").asText()).collect(Collectors.toList()));
    }

    @Test
    void fourPhysicalPartitionsEveryFeedRangeReadsItsOwnItemsAndTheWholeFeedReadsEachOnce() {
        CosmosContainer c = createContainer(uid("cf"), "/pk", 24000);
        List<FeedRange> ranges = c.getFeedRanges();
        assertEquals(4, ranges.size());
        Set<String> all = new TreeSet<>();
        for (int i = 0; i < 40; i++) {
            c.createItem(obj("id", "i" + i, "pk", "k" + i));
            all.add("i" + i);
        }
        List<String> whole = items(drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(FeedRange.forFullRange())
            .setMaxItemCount(7))).stream().map(d -> d.get("id").asText()).collect(Collectors.toList());
        assertEquals(40, whole.size(), "each item once: " + whole);
        assertEquals(all, new TreeSet<>(whole));
        Set<String> union = new HashSet<>();
        int nonEmpty = 0;
        for (FeedRange r : ranges) {
            List<String> mine = items(drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(r)))
                .stream().map(d -> d.get("id").asText()).collect(Collectors.toList());
            if (!mine.isEmpty()) nonEmpty++;
            for (String id : mine) assertTrue(union.add(id), id + " in two ranges");
        }
        assertEquals(all, new TreeSet<>(union));
        assertTrue(nonEmpty >= 3, "40 keys spread over the ranges");
    }

    @Test
    void allVersionsAndDeletesInThe20210915Shape() {
        String id = uid("avad");
        CosmosContainerProperties props = new CosmosContainerProperties(id, "/pk")
            .setChangeFeedPolicy(ChangeFeedPolicy.createAllVersionsAndDeletesPolicy(Duration.ofMinutes(10)));
        db.createContainer(props);
        CosmosContainer c = db.getContainer(id);
        c.createItem(obj("id", "before", "pk", "p"));
        CosmosChangeFeedRequestOptions now = CosmosChangeFeedRequestOptions.createForProcessingFromNow(FeedRange.forFullRange()).allVersionsAndDeletes();
        List<FeedResponse<JsonNode>> first = drain(c, now);
        assertEquals(List.of(), items(first));
        String token = last(first);
        PartitionKey p = new PartitionKey("p");
        c.createItem(obj("id", "a", "pk", "p", "v", 1)); // 2
        c.replaceItem(obj("id", "a", "pk", "p", "v", 2), "a", p, null); // 3
        c.upsertItem(obj("id", "a", "pk", "p", "v", 3)); // 4
        c.upsertItem(obj("id", "b", "pk", "q", "v", 1)); // 5
        c.patchItem("b", new PartitionKey("q"), CosmosPatchOperations.create().increment("/v", 5), JsonNode.class); // 6
        c.deleteItem("a", p, null); // 7
        c.deleteItem("before", p, null); // 8
        List<JsonNode> entries = items(drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(token).setMaxItemCount(3)));
        assertEquals(List.of("2:create", "3:replace", "4:replace", "5:create", "6:replace", "7:delete", "8:delete"),
            entries.stream().map(e -> e.get("metadata").get("lsn").asInt() + ":" + e.get("metadata").get("operationType").asText())
                .collect(Collectors.toList()));
        JsonNode del = entries.get(6);
        // A delete has an empty current image (the .NET SDK's emulator test ChangeFeedIteratorCore_FeedRange_VerifyingWireFormatTests
        // reads deleteOperation.Current.Id as null, so "current" is there; Microsoft's Python SDK test asserts it too).
        assertEquals(parse("{}"), del.get("current"));
        assertEquals(List.of("lsn", "crts", "operationType", "previousImageLSN", "timeToLiveExpired", "id", "partitionKey"), keys(del.get("metadata")));
        assertEquals("before", del.get("metadata").get("id").asText());
        assertEquals(parse("{\"pk\":\"p\"}"), del.get("metadata").get("partitionKey"));
        assertEquals(1, del.get("metadata").get("previousImageLSN").asInt());
        assertEquals(List.of("current", "metadata"), keys(entries.get(0)));
        assertEquals(2, entries.get(0).get("current").get("_lsn").asInt());
        assertEquals(6, entries.get(4).get("current").get("v").asInt());
        assertEquals(2, entries.get(1).get("metadata").get("previousImageLSN").asInt());
    }

    @Test
    void allVersionsAndDeletesWithoutAChangeFeedPolicyIsServedFromNow() {
        // The service keeps this feed for the account (continuous backup), not per container.
        CosmosContainer c = newContainer();
        assertEquals(0, items(drain(c, CosmosChangeFeedRequestOptions.createForProcessingFromNow(FeedRange.forFullRange()).allVersionsAndDeletes())).size());
    }

    @Test
    void theChangeFeedProcessorDeliversEveryChangeOnceAndKeepsLeases() throws Exception {
        String feedId = uid("feed");
        String leaseId = uid("leases");
        db.createContainer(new CosmosContainerProperties(feedId, "/pk"), ThroughputProperties.createManualThroughput(12000));
        db.createContainer(new CosmosContainerProperties(leaseId, "/id"));
        CosmosContainer feed = db.getContainer(feedId);
        for (int i = 0; i < 10; i++) feed.createItem(obj("id", "pre" + i, "pk", "k" + i));
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        CosmosAsyncClient async = builder(emu).buildAsyncClient();
        try {
            CosmosAsyncDatabase adb = async.getDatabase(dbId);
            ChangeFeedProcessor processor = new ChangeFeedProcessorBuilder()
                .hostName("host-1")
                .feedContainer(adb.getContainer(feedId))
                .leaseContainer(adb.getContainer(leaseId))
                .handleChanges(docs -> {
                    for (JsonNode d : docs) seen.add(d.get("id").asText());
                })
                .options(new ChangeFeedProcessorOptions().setStartFromBeginning(true).setFeedPollDelay(Duration.ofMillis(200))
                    .setLeaseAcquireInterval(Duration.ofSeconds(1)).setLeaseRenewInterval(Duration.ofSeconds(2)))
                .buildChangeFeedProcessor();
            processor.start().block(Duration.ofSeconds(60));
            assertTrue(processor.isStarted());
            for (int i = 0; i < 10; i++) feed.createItem(obj("id", "post" + i, "pk", "k" + i));
            long deadline = System.currentTimeMillis() + 30_000;
            while (new HashSet<>(seen).size() < 20 && System.currentTimeMillis() < deadline) Thread.sleep(200);
            processor.stop().block(Duration.ofSeconds(30));
            Set<String> expected = new TreeSet<>();
            for (int i = 0; i < 10; i++) {
                expected.add("pre" + i);
                expected.add("post" + i);
            }
            assertEquals(expected, new TreeSet<>(seen));
            assertEquals(20, seen.size(), "each change delivered once: " + seen);
            // the lease container holds one lease per range (2) plus the processor's store documents
            List<JsonNode> leases = db.getContainer(leaseId).queryItems("SELECT * FROM c", new com.azure.cosmos.models.CosmosQueryRequestOptions(), JsonNode.class)
                .stream().collect(Collectors.toList());
            long rangeLeases = leases.stream().filter(l -> l.has("LeaseToken") || l.has("leaseToken")).count();
            assertEquals(2, rangeLeases, "leases: " + leases);
            for (JsonNode l : leases) {
                if (l.has("ContinuationToken")) assertFalse(l.get("ContinuationToken").asText().isEmpty());
            }
        } finally {
            async.close();
        }
    }

    @SuppressWarnings("unused")
    private static CosmosItemResponse<JsonNode> unused() {
        return null;
    }
}
