package emulator.sdk;

import static emulator.harness.Charges.METADATA_READ;
import static emulator.harness.Charges.METADATA_WRITE;
import static emulator.harness.Charges.REJECTED_WRITE;
import static emulator.harness.Charges.assertCharge;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosDatabaseProperties;
import com.azure.cosmos.models.CosmosDatabaseResponse;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import emulator.harness.Raw;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Databases: create, read, list, query, delete, createIfNotExists, throughput, odd ids. */
class DatabaseTest extends TestBase {

    @Test
    void createAnswers201WithSystemPropertiesEtagAndCharge() {
        String id = uid("db");
        CosmosDatabaseResponse res = client.createDatabase(id);
        assertEquals(201, res.getStatusCode());
        CosmosDatabaseProperties p = res.getProperties();
        assertEquals(id, p.getId());
        assertNotNull(p.getResourceId());
        assertTrue(p.getETag().matches("^\"[^\"]+\"$"), p.getETag());
        assertEquals(p.getETag(), header(res.getResponseHeaders(), "etag"));
        assertTrue(Math.abs(p.getTimestamp().getEpochSecond() - System.currentTimeMillis() / 1000) < 120);
        assertCharge(res.getRequestCharge(), METADATA_WRITE);
        // the stored resource, as the REST API lists it
        Raw.Response raw = Raw.request(emu, "GET", "/dbs/" + id, null);
        assertEquals(200, raw.status);
        JsonNode body = parse(raw.body);
        assertEquals(List.of("id", "_rid", "_self", "_etag", "_colls", "_users", "_ts"), keys(body));
        assertEquals("dbs/" + p.getResourceId() + "/", body.get("_self").asText());
        assertEquals("colls/", body.get("_colls").asText());
        assertEquals("users/", body.get("_users").asText());
        client.getDatabase(id).delete();
    }

    @Test
    void createOfAnExistingIdAnswers409() {
        String id = uid("db");
        client.createDatabase(id);
        CosmosException e = expectError(409, () -> client.createDatabase(id));
        assertTrue(e.getMessage().contains("Resource with specified id, name, or unique index already exists."), e.getMessage());
        assertCharge(e.getRequestCharge(), REJECTED_WRITE);
        client.getDatabase(id).delete();
    }

    @Test
    void readAnswers200WithTheSameResource() {
        String id = uid("db");
        CosmosDatabaseResponse created = client.createDatabase(id);
        CosmosDatabaseResponse res = client.getDatabase(id).read();
        assertEquals(200, res.getStatusCode());
        assertEquals(created.getProperties().getResourceId(), res.getProperties().getResourceId());
        assertEquals(created.getProperties().getETag(), res.getProperties().getETag());
        assertCharge(res.getRequestCharge(), METADATA_READ);
        client.getDatabase(id).delete();
    }

    @Test
    void readOfAnUnknownDatabaseAnswers404() {
        CosmosException e = expectError(404, () -> client.getDatabase(uid("missing")).read());
        assertTrue(e.getMessage().contains("Resource Not Found"), e.getMessage());
        assertCharge(e.getRequestCharge(), METADATA_READ);
    }

    @Test
    void listAndQueryReturnTheDatabases() {
        List<String> ids = List.of(uid("dba"), uid("dbb"), uid("dbc"));
        for (String id : ids) client.createDatabase(id);
        List<String> listed = client.readAllDatabases().stream().map(CosmosDatabaseProperties::getId).collect(Collectors.toList());
        for (String id : ids) assertTrue(listed.contains(id), id);
        // creation order (the feed lists databases as they were created)
        assertEquals(ids, listed.stream().filter(ids::contains).collect(Collectors.toList()));
        List<String> queried = client.queryDatabases("SELECT * FROM r WHERE r.id = '" + ids.get(1) + "'", new CosmosQueryRequestOptions())
            .stream().map(CosmosDatabaseProperties::getId).collect(Collectors.toList());
        assertEquals(List.of(ids.get(1)), queried);
        Raw.Response raw = Raw.request(emu, "GET", "/dbs", null);
        assertEquals(200, raw.status);
        JsonNode body = parse(raw.body);
        assertEquals(List.of("_rid", "Databases", "_count"), keys(body));
        assertEquals(body.get("Databases").size(), body.get("_count").asInt());
        assertEquals(String.valueOf(body.get("_count").asInt()), raw.header("x-ms-item-count"));
        for (String id : ids) client.getDatabase(id).delete();
    }

    @Test
    void deleteAnswers204ThenReadAndDeleteAnswer404() {
        String id = uid("db");
        client.createDatabase(id);
        CosmosDatabaseResponse res = client.getDatabase(id).delete();
        assertEquals(204, res.getStatusCode());
        assertCharge(res.getRequestCharge(), METADATA_WRITE);
        expectError(404, () -> client.getDatabase(id).read());
        CosmosException e = expectError(404, () -> client.getDatabase(id).delete());
        assertCharge(e.getRequestCharge(), METADATA_READ);
        assertFalse(client.readAllDatabases().stream().anyMatch(d -> d.getId().equals(id)));
    }

    @Test
    void createIfNotExistsCreatesThenReturnsTheExistingOne() {
        String id = uid("db");
        CosmosDatabaseResponse first = client.createDatabaseIfNotExists(id);
        assertEquals(201, first.getStatusCode());
        CosmosDatabaseResponse second = client.createDatabaseIfNotExists(id);
        assertEquals(200, second.getStatusCode());
        assertEquals(first.getProperties().getResourceId(), second.getProperties().getResourceId());
        assertEquals(first.getProperties().getETag(), second.getProperties().getETag());
        client.getDatabase(id).delete();
    }

    @Test
    void deletingADatabaseDeletesItsContainersAndItems() {
        String id = uid("db");
        client.createDatabase(id);
        client.getDatabase(id).createContainer(new CosmosContainerProperties("c", "/pk"));
        client.getDatabase(id).getContainer("c").createItem(obj("id", "i1", "pk", "a"));
        client.getDatabase(id).delete();
        assertEquals(201, client.createDatabase(id).getStatusCode());
        assertEquals(0, client.getDatabase(id).readAllContainers().stream().count());
        expectError(404, () -> client.getDatabase(id).getContainer("c").read());
        client.getDatabase(id).createContainer(new CosmosContainerProperties("c", "/pk"));
        expectError(404, () -> client.getDatabase(id).getContainer("c").readItem("i1", new PartitionKey("a"), JsonNode.class));
        client.getDatabase(id).delete();
    }

    @Test
    void idsWithSpacesAndNonAsciiCharactersWorkEndToEnd() {
        String id = "db " + uid("é") + " 日本";
        assertEquals(id, client.createDatabase(id).getProperties().getId());
        assertEquals(id, client.getDatabase(id).read().getProperties().getId());
        assertEquals(204, client.getDatabase(id).delete().getStatusCode());
    }

    @Test
    void sharedThroughput400IsAcceptedAnd300Refused() {
        String id = uid("db");
        CosmosDatabaseResponse ok = client.createDatabase(id, ThroughputProperties.createManualThroughput(400));
        assertEquals(201, ok.getStatusCode());
        assertEquals(400, client.getDatabase(id).readThroughput().getProperties().getManualThroughput());
        client.getDatabase(id).delete();
        CosmosException e = expectError(400, () -> client.createDatabase(uid("db"), ThroughputProperties.createManualThroughput(300)));
    }
}
