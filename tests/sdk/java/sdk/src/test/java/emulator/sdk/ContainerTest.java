package emulator.sdk;

import static emulator.harness.Charges.METADATA_READ;
import static emulator.harness.Charges.METADATA_WRITE;
import static emulator.harness.Charges.assertCharge;
import static emulator.harness.Charges.kbOf;
import static emulator.harness.Charges.round2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CompositePath;
import com.azure.cosmos.models.CompositePathSortOrder;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosContainerRequestOptions;
import com.azure.cosmos.models.CosmosContainerResponse;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.ExcludedPath;
import com.azure.cosmos.models.IncludedPath;
import com.azure.cosmos.models.IndexingMode;
import com.azure.cosmos.models.IndexingPolicy;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.PartitionKeyBuilder;
import com.azure.cosmos.models.PartitionKeyDefinition;
import com.azure.cosmos.models.PartitionKeyDefinitionVersion;
import com.azure.cosmos.models.PartitionKind;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import emulator.harness.Raw;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Containers: create, read, list, replace, delete; partition key definitions; indexing policy effects. */
class ContainerTest extends TestBase {

    @Test
    void createAnswers201WithPartitionKeyPoliciesAndSystemProperties() {
        String id = uid("c");
        CosmosContainerResponse res = db.createContainer(new CosmosContainerProperties(id, "/pk"));
        assertEquals(201, res.getStatusCode());
        CosmosContainerProperties c = res.getProperties();
        assertEquals(id, c.getId());
        assertEquals(List.of("/pk"), c.getPartitionKeyDefinition().getPaths());
        assertEquals(PartitionKind.HASH, c.getPartitionKeyDefinition().getKind());
        assertEquals(IndexingMode.CONSISTENT, c.getIndexingPolicy().getIndexingMode());
        assertEquals(c.getETag(), header(res.getResponseHeaders(), "etag"));
        assertCharge(res.getRequestCharge(), METADATA_WRITE);
        Raw.Response raw = Raw.request(emu, "GET", "/dbs/" + dbId + "/colls/" + id, null);
        assertEquals(200, raw.status);
        JsonNode body = parse(raw.body);
        assertEquals(parse("{\"indexingMode\":\"consistent\",\"automatic\":true,\"includedPaths\":[{\"path\":\"/*\"}],"
            + "\"excludedPaths\":[{\"path\":\"/\\\"_etag\\\"/?\"}]}"), body.get("indexingPolicy"));
        assertEquals(parse("{\"mode\":\"LastWriterWins\",\"conflictResolutionPath\":\"/_ts\",\"conflictResolutionProcedure\":\"\"}"),
            body.get("conflictResolutionPolicy"));
        String dbRid = db.read().getProperties().getResourceId();
        assertEquals("dbs/" + dbRid + "/colls/" + c.getResourceId() + "/", body.get("_self").asText());
        for (String k : List.of("_docs", "_sprocs", "_triggers", "_udfs", "_conflicts")) {
            assertEquals(k.substring(1) + "/", body.get(k).asText(), k);
        }
        assertCharge(db.getContainer(id).read().getRequestCharge(), METADATA_READ);
    }

    @Test
    void partitionKeyVersion2AndHierarchicalKeysAreKept() {
        PartitionKeyDefinition v2 = new PartitionKeyDefinition().setPaths(List.of("/pk")).setVersion(PartitionKeyDefinitionVersion.V2);
        CosmosContainerResponse a = db.createContainer(new CosmosContainerProperties(uid("c"), v2));
        assertEquals(PartitionKeyDefinitionVersion.V2, a.getProperties().getPartitionKeyDefinition().getVersion());
        PartitionKeyDefinition multi = new PartitionKeyDefinition().setPaths(List.of("/tenant", "/user"))
            .setKind(PartitionKind.MULTI_HASH).setVersion(PartitionKeyDefinitionVersion.V2);
        String hid = uid("h");
        CosmosContainerResponse h = db.createContainer(new CosmosContainerProperties(hid, multi));
        assertEquals(201, h.getStatusCode());
        assertEquals(PartitionKind.MULTI_HASH, h.getProperties().getPartitionKeyDefinition().getKind());
        assertEquals(List.of("/tenant", "/user"), h.getProperties().getPartitionKeyDefinition().getPaths());
        CosmosContainer hc = db.getContainer(hid);
        PartitionKey pk = new PartitionKeyBuilder().add("t1").add("u1").build();
        assertEquals(201, hc.createItem(obj("id", "x", "tenant", "t1", "user", "u1", "v", 1)).getStatusCode());
        assertEquals(1, hc.readItem("x", pk, JsonNode.class).getItem().get("v").asInt());
        ObjectNode replaced = obj("id", "x", "tenant", "t1", "user", "u1", "v", 2);
        assertEquals(200, hc.replaceItem(replaced, "x", pk, null).getStatusCode());
        assertEquals(2, hc.readItem("x", pk, JsonNode.class).getItem().get("v").asInt());
        expectError(404, () -> hc.readItem("x", new PartitionKeyBuilder().add("t1").add("u2").build(), JsonNode.class));
        assertEquals(204, hc.deleteItem("x", pk, null).getStatusCode());
    }

    @Test
    void createOfAnExistingIdAnswers409AndInAnUnknownDatabase404() {
        String id = uid("c");
        createContainer(id, "/pk");
        expectError(409, () -> db.createContainer(new CosmosContainerProperties(id, "/pk")));
        expectError(404, () -> client.getDatabase(uid("nodb")).createContainer(new CosmosContainerProperties("c", "/pk")));
        expectError(404, () -> client.getDatabase(uid("nodb")).readAllContainers().stream().count());
    }

    @Test
    void readListAndQuery() {
        String id = uid("c");
        createContainer(id, "/pk");
        assertEquals(200, db.getContainer(id).read().getStatusCode());
        CosmosException e = expectError(404, () -> db.getContainer(uid("none")).read());
        assertTrue(db.readAllContainers().stream().anyMatch(c -> c.getId().equals(id)));
        assertEquals(1, db.queryContainers("SELECT * FROM r WHERE r.id = '" + id + "'").stream().count());
    }

    @Test
    void replaceChangesIndexingPolicyAndTtlKeepsTheKeyAndChangesTheEtag() {
        String id = uid("c");
        CosmosContainerProperties before = db.createContainer(new CosmosContainerProperties(id, "/pk")).getProperties();
        // the SDK replaces a container by the self link of properties it read (CosmosContainer.replace)
        CosmosContainerProperties props = db.getContainer(id).read().getProperties();
        props.setIndexingPolicy(new IndexingPolicy().setIndexingMode(IndexingMode.CONSISTENT).setAutomatic(true)
            .setIncludedPaths(List.of(new IncludedPath("/a/?"))).setExcludedPaths(List.of(new ExcludedPath("/*"))));
        props.setDefaultTimeToLiveInSeconds(3600);
        CosmosContainerResponse res = db.getContainer(id).replace(props);
        assertEquals(200, res.getStatusCode());
        assertEquals(3600, res.getProperties().getDefaultTimeToLiveInSeconds());
        assertEquals(before.getResourceId(), res.getProperties().getResourceId());
        assertNotEquals(before.getETag(), res.getProperties().getETag());
        assertCharge(res.getRequestCharge(), METADATA_WRITE);
        JsonNode raw = parse(Raw.request(emu, "GET", "/dbs/" + dbId + "/colls/" + id, null).body);
        assertEquals(parse("[{\"path\":\"/*\"},{\"path\":\"/\\\"_etag\\\"/?\"}]"), raw.get("indexingPolicy").get("excludedPaths"));
        assertEquals(parse("[{\"path\":\"/a/?\"}]"), raw.get("indexingPolicy").get("includedPaths"));
        // only /a is indexed now: {id, pk, a, b} has one index term
        CosmosItemResponse<JsonNode> item = db.getContainer(id).createItem((JsonNode) obj("id", "x", "pk", "p", "a", 1, "b", 2));
        assertCharge(item.getRequestCharge(), round2(4.6 + 0.6 * kbOf(item.getItem()) + 0.38 * 1));
    }

    @Test
    void replaceCannotChangeThePartitionKeyAndStaleIfMatchAnswers412() {
        String id = uid("c");
        createContainer(id, "/pk");
        CosmosContainerProperties other = db.getContainer(id).read().getProperties();
        other.setPartitionKeyDefinition(new PartitionKeyDefinition().setPaths(List.of("/other")));
        expectError(400, () -> db.getContainer(id).replace(other));
        CosmosContainerProperties p = db.getContainer(id).read().getProperties().setDefaultTimeToLiveInSeconds(10);
        expectError(412, () -> db.getContainer(id).replace(p, new CosmosContainerRequestOptions().setIfMatchETag("\"stale\"")));
        // a container deleted since its properties were read
        String gone = uid("gone");
        createContainer(gone, "/pk");
        CosmosContainerProperties goneProps = db.getContainer(gone).read().getProperties();
        db.getContainer(gone).delete();
        expectError(404, () -> db.getContainer(gone).replace(goneProps));
    }

    @Test
    void indexingModeNoneCostsNoIndexTerms() {
        String id = uid("c");
        CosmosContainerProperties p = new CosmosContainerProperties(id, "/pk");
        p.setIndexingPolicy(new IndexingPolicy().setIndexingMode(IndexingMode.NONE).setAutomatic(false));
        db.createContainer(p);
        CosmosItemResponse<JsonNode> item = db.getContainer(id).createItem((JsonNode) obj("id", "x", "pk", "p", "a", List.of(1, 2, 3)));
        assertCharge(item.getRequestCharge(), round2(4.6 + 0.6 * kbOf(item.getItem())));
    }

    @Test
    void indexTermsFollowIncludedExcludedPathsAndCompositeIndexes() {
        String id = uid("c");
        CosmosContainerProperties p = new CosmosContainerProperties(id, "/pk");
        p.setIndexingPolicy(new IndexingPolicy().setIndexingMode(IndexingMode.CONSISTENT).setAutomatic(true)
            .setIncludedPaths(List.of(new IncludedPath("/tags/[]/?"), new IncludedPath("/nested/*"), new IncludedPath("/a/?")))
            .setExcludedPaths(List.of(new ExcludedPath("/*"), new ExcludedPath("/nested/skip/?")))
            .setCompositeIndexes(List.of(List.of(
                new CompositePath().setPath("/a").setOrder(CompositePathSortOrder.ASCENDING),
                new CompositePath().setPath("/b").setOrder(CompositePathSortOrder.DESCENDING)))));
        db.createContainer(p);
        CosmosContainer c = db.getContainer(id);
        ObjectNode doc = obj("id", "x", "pk", "p", "tags", List.of(1, 2, 3), "nested", obj("x", "s", "y", parse("[true,null]"), "skip", 9),
            "a", 1, "b", "two", "other", 5);
        CosmosItemResponse<JsonNode> res = c.createItem((JsonNode) doc);
        assertCharge(res.getRequestCharge(), round2(4.6 + 0.6 * kbOf(res.getItem()) + 0.38 * 8));
        CosmosItemResponse<JsonNode> res2 = c.createItem((JsonNode) obj("id", "y", "pk", "p", "a", 1));
        assertCharge(res2.getRequestCharge(), round2(4.6 + 0.6 * kbOf(res2.getItem()) + 0.38 * 1));
    }

    @Test
    void throughputManual400AndAutoscale1000Accepted300Refused() {
        CosmosContainerResponse a = db.createContainer(new CosmosContainerProperties(uid("c"), "/pk"), ThroughputProperties.createManualThroughput(400));
        assertEquals(201, a.getStatusCode());
        String bid = uid("c");
        CosmosContainerResponse b = db.createContainer(new CosmosContainerProperties(bid, "/pk"), ThroughputProperties.createAutoscaledThroughput(1000));
        assertEquals(201, b.getStatusCode());
        assertEquals(1000, db.getContainer(bid).readThroughput().getProperties().getAutoscaleMaxThroughput());
        expectError(400, () -> db.createContainer(new CosmosContainerProperties(uid("c"), "/pk"), ThroughputProperties.createManualThroughput(300)));
    }

    @Test
    void deleteAnswers204AndRemovesTheItems() {
        String id = uid("c");
        CosmosContainer c = createContainer(id, "/pk");
        c.createItem(obj("id", "i", "pk", "p"));
        CosmosContainerResponse res = c.delete();
        assertEquals(204, res.getStatusCode());
        assertCharge(res.getRequestCharge(), METADATA_WRITE);
        expectError(404, c::read);
        CosmosException e = expectError(404, c::delete);
        assertCharge(e.getRequestCharge(), METADATA_READ);
        assertFalse(db.readAllContainers().stream().anyMatch(x -> x.getId().equals(id)));
        createContainer(id, "/pk");
        expectError(404, () -> db.getContainer(id).readItem("i", new PartitionKey("p"), JsonNode.class));
    }

    @Test
    void createIfNotExistsCreatesThenReturnsTheExistingOne() {
        String id = uid("c");
        CosmosContainerResponse first = db.createContainerIfNotExists(id, "/pk");
        assertEquals(201, first.getStatusCode());
        CosmosContainerResponse second = db.createContainerIfNotExists(id, "/pk");
        assertEquals(200, second.getStatusCode());
        assertEquals(first.getProperties().getResourceId(), second.getProperties().getResourceId());
    }

    @Test
    void aNewContainerHasOneRangeAndItsFeedRangeCoversEverything() {
        String id = uid("c");
        CosmosContainer c = createContainer(id, "/pk");
        assertEquals(1, c.getFeedRanges().size());
        JsonNode ranges = parse(Raw.request(emu, "GET", "/dbs/" + dbId + "/colls/" + id + "/pkranges", null).body);
        assertEquals(1, ranges.get("PartitionKeyRanges").size());
        assertEquals("", ranges.get("PartitionKeyRanges").get(0).get("minInclusive").asText());
        assertEquals("FF", ranges.get("PartitionKeyRanges").get(0).get("maxExclusive").asText());
    }
}
