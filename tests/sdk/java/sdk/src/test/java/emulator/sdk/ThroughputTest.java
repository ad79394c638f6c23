package emulator.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.ThroughputProperties;
import com.azure.cosmos.models.ThroughputResponse;
import com.fasterxml.jackson.databind.JsonNode;
import emulator.harness.Raw;
import org.junit.jupiter.api.Test;

/** Throughput (offers) through readThroughput/replaceThroughput; physical partitions from the RU/s. */
class ThroughputTest extends TestBase {

    private int ranges(String coll) {
        Raw.Response r = Raw.request(emu, "GET", "/dbs/" + dbId + "/colls/" + coll + "/pkranges", null);
        assertEquals(200, r.status, r.body);
        return parse(r.body).get("PartitionKeyRanges").size();
    }

    @Test
    void aContainersOfferDefaultsTo400AndReplaceReadsBack() {
        String id = uid("c");
        CosmosContainer c = createContainer(id, "/pk");
        ThroughputResponse read = c.readThroughput();
        assertEquals(200, read.getStatusCode());
        assertEquals(400, read.getProperties().getManualThroughput());
        assertNotNull(read.getProperties().getETag());
        ThroughputResponse replaced = c.replaceThroughput(ThroughputProperties.createManualThroughput(1000));
        assertEquals(200, replaced.getStatusCode());
        assertEquals(1000, replaced.getProperties().getManualThroughput());
        assertEquals(1000, c.readThroughput().getProperties().getManualThroughput());
        // the offer itself, as the REST API lists it
        JsonNode offers = parse(Raw.request(emu, "GET", "/offers", null).body);
        String self = c.read().getProperties().getResourceId();
        boolean found = false;
        for (JsonNode o : offers.get("Offers")) {
            if (o.get("offerResourceId").asText().equals(self)) {
                found = true;
                assertEquals(1000, o.get("content").get("offerThroughput").asInt());
                assertEquals("V2", o.get("offerVersion").asText());
            }
        }
        assertEquals(true, found, "the container's offer is listed");
    }

    @Test
    void ownAndAutoscaleThroughput() {
        String a = uid("c");
        CosmosContainer own = createContainer(a, "/pk", 1000);
        assertEquals(1000, own.readThroughput().getProperties().getManualThroughput());
        String b = uid("c");
        db.createContainer(new CosmosContainerProperties(b, "/pk"), ThroughputProperties.createAutoscaledThroughput(4000));
        ThroughputResponse auto = db.getContainer(b).readThroughput();
        assertEquals(4000, auto.getProperties().getAutoscaleMaxThroughput());
        ThroughputResponse up = db.getContainer(b).replaceThroughput(ThroughputProperties.createAutoscaledThroughput(5000));
        assertEquals(5000, up.getProperties().getAutoscaleMaxThroughput());
    }

    @Test
    void sharedDatabaseThroughputTheDatabaseHasTheOfferItsContainerNone() {
        String id = uid("db");
        client.createDatabase(id, ThroughputProperties.createManualThroughput(1000));
        CosmosDatabase shared = client.getDatabase(id);
        try {
            shared.createContainer(new CosmosContainerProperties("shared", "/pk"));
            assertEquals(1000, shared.readThroughput().getProperties().getManualThroughput());
            // the SDK finds no offer for the container: 400 "No offers found"
            expectError(400, () -> shared.getContainer("shared").readThroughput());
            assertEquals(2000, shared.replaceThroughput(ThroughputProperties.createManualThroughput(2000)).getProperties().getManualThroughput());
        } finally {
            shared.delete();
        }
    }

    @Test
    void physicalPartitionsFromTheProvisionedThroughput() {
        String a = uid("c");
        createContainer(a, "/pk", 6000);
        assertEquals(1, ranges(a));
        String b = uid("c");
        createContainer(b, "/pk", 6100);
        assertEquals(2, ranges(b));
        String c = uid("c");
        createContainer(c, "/pk", 18000);
        assertEquals(3, ranges(c));
        String d = uid("c");
        db.createContainer(new CosmosContainerProperties(d, "/pk"), ThroughputProperties.createAutoscaledThroughput(11000));
        assertEquals(2, ranges(d));
        assertEquals(2, db.getContainer(d).getFeedRanges().size());
    }
}
