package emulator.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncUser;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosPermissionProperties;
import com.azure.cosmos.models.CosmosPermissionRequestOptions;
import com.azure.cosmos.models.CosmosPermissionResponse;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.CosmosUserProperties;
import com.azure.cosmos.models.CosmosUserResponse;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.PermissionMode;
import com.fasterxml.jackson.databind.JsonNode;
import emulator.harness.Emulator;
import emulator.harness.Raw;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Users and permissions; resource tokens used by a second client (CosmosClientBuilder.permissions /
 * resourceToken), as an application's mid-tier hands them to its clients.
 */
class UsersTest extends TestBase {
    private CosmosContainer container;
    private CosmosAsyncClient async;

    @Override
    protected void setUp() {
        container = createContainer("c", "/pk");
        container.createItem(obj("id", "a", "pk", "x", "n", 1));
        container.createItem(obj("id", "b", "pk", "y", "n", 2));
        async = builder(emu).buildAsyncClient();
    }

    @org.junit.jupiter.api.AfterAll
    void closeAsync() {
        if (async != null) async.close();
    }

    private CosmosPermissionProperties grant(String userId, PermissionMode mode, PartitionKey pk) {
        db.createUser(new CosmosUserProperties().setId(userId));
        CosmosAsyncUser user = async.getDatabase(dbId).getUser(userId);
        CosmosPermissionProperties p = new CosmosPermissionProperties().setId(uid("p")).setContainerName("c").setPermissionMode(mode);
        if (pk != null) p.setResourcePartitionKey(pk);
        CosmosPermissionResponse res = user.createPermission(p, new CosmosPermissionRequestOptions()).block();
        assertNotNull(res);
        assertEquals(201, res.getStatusCode());
        assertNotNull(res.getProperties().getToken());
        return res.getProperties();
    }

    /**
     * A client authorised by one resource token (CosmosClientBuilder.resourceToken). The permission-feed
     * form (.permissions(list)) cannot be used with the links the v4 API builds: CosmosPermissionProperties
     * names the container by name ("dbs/db/colls/c"), and the SDK looks tokens up by resource id for its
     * own rid-addressed requests (partition key ranges), answering "Resource token not found" before
     * sending anything (ResourceTokenAuthorizationHelper; azure-sdk-for-java issue 26050, whose name-based
     * cases are disabled in the SDK's ResourceTokenTest).
     */
    private CosmosClient tokenClient(List<CosmosPermissionProperties> permissions) {
        return track(connect(new CosmosClientBuilder().endpoint(emu.endpoint).resourceToken(permissions.get(0).getToken()))
            .contentResponseOnWriteEnabled(true).buildClient());
    }

    @Test
    void usersCreateReadListQueryReplaceUpsertDelete() {
        String id = uid("u");
        CosmosUserResponse created = db.createUser(new CosmosUserProperties().setId(id));
        assertEquals(201, created.getStatusCode());
        JsonNode raw = parse(Raw.request(emu, "GET", "/dbs/" + dbId + "/users/" + id, null).body);
        assertEquals(List.of("id", "_rid", "_ts", "_self", "_etag", "_permissions"), keys(raw));
        assertEquals(200, db.getUser(id).read().getStatusCode());
        assertTrue(db.readAllUsers().stream().anyMatch(u -> u.getId().equals(id)));
        assertEquals(List.of(id), db.queryUsers("SELECT * FROM u WHERE u.id = '" + id + "'").stream().map(CosmosUserProperties::getId).collect(Collectors.toList()));
        String renamed = uid("u");
        CosmosUserResponse rep = db.getUser(id).replace(db.getUser(id).read().getProperties().setId(renamed));
        assertEquals(200, rep.getStatusCode());
        assertEquals(renamed, rep.getProperties().getId());
        expectError(404, () -> db.getUser(id).read());
        CosmosUserResponse up = db.upsertUser(new CosmosUserProperties().setId(renamed));
        assertEquals(200, up.getStatusCode());
        assertEquals(201, db.upsertUser(new CosmosUserProperties().setId(uid("u"))).getStatusCode());
        CosmosException dup = expectError(409, () -> db.createUser(new CosmosUserProperties().setId(renamed)));
        assertEquals(204, db.getUser(renamed).delete().getStatusCode());
        expectError(404, () -> db.getUser(renamed).read());
        expectError(404, () -> client.getDatabase(uid("nodb")).createUser(new CosmosUserProperties().setId("u")));
    }

    @Test
    void permissionsCreateReadListReplaceDelete() {
        String uidUser = uid("u");
        CosmosPermissionProperties p = grant(uidUser, PermissionMode.READ, null);
        CosmosAsyncUser user = async.getDatabase(dbId).getUser(uidUser);
        JsonNode raw = parse(Raw.request(emu, "GET", "/dbs/" + dbId + "/users/" + uidUser + "/permissions/" + p.getId(), null).body);
        assertEquals("read", raw.get("permissionMode").asText().toLowerCase(java.util.Locale.ROOT));
        assertEquals("dbs/" + dbId + "/colls/c", raw.get("resource").asText());
        assertTrue(raw.get("_token").asText().startsWith("type=resource"), raw.get("_token").asText());
        CosmosPermissionResponse read = user.getPermission(p.getId()).read(null).block();
        assertEquals(200, read.getStatusCode());
        assertEquals(PermissionMode.READ, read.getProperties().getPermissionMode());
        assertEquals(1, user.readAllPermissions().collectList().block().size());
        CosmosPermissionResponse replaced = user.getPermission(p.getId())
            .replace(user.getPermission(p.getId()).read(null).block().getProperties().setPermissionMode(PermissionMode.ALL), null).block();
        assertEquals(PermissionMode.ALL, replaced.getProperties().getPermissionMode());
        assertNotEquals(p.getToken(), replaced.getProperties().getToken());
        // the same resource twice: 409
        Throwable t = null;
        try {
            user.createPermission(new CosmosPermissionProperties().setId(uid("p")).setContainerName("c").setPermissionMode(PermissionMode.READ),
                new CosmosPermissionRequestOptions()).block();
        } catch (CosmosException e) {
            t = e;
            assertEquals(409, e.getStatusCode());
        }
        assertNotNull(t, "a second permission on the same resource is a 409");
        assertEquals(204, user.getPermission(p.getId()).delete(null).block().getStatusCode());
        assertEquals(0, user.readAllPermissions().collectList().block().size());
    }

    @Test
    void aContainerReadTokenReadsAndQueriesButCannotWrite() {
        CosmosPermissionProperties p = grant(uid("u"), PermissionMode.READ, null);
        CosmosContainer c = tokenClient(List.of(p)).getDatabase(dbId).getContainer("c");
        assertEquals(1, c.readItem("a", new PartitionKey("x"), JsonNode.class).getItem().get("n").asInt());
        List<String> q = c.queryItems("SELECT VALUE c.id FROM c WHERE c.pk = 'y'", new CosmosQueryRequestOptions(), String.class)
            .stream().collect(Collectors.toList());
        assertEquals(List.of("b"), q);
        CosmosException e = expectError(403, () -> c.createItem(obj("id", uid("n"), "pk", "x")));
        expectError(403, () -> c.replaceItem(obj("id", "a", "pk", "x", "n", 9), "a", new PartitionKey("x"), null));
        expectError(403, () -> c.deleteItem("a", new PartitionKey("x"), null));
    }

    @Test
    void aContainerAllTokenWrites() {
        CosmosPermissionProperties p = grant(uid("u"), PermissionMode.ALL, null);
        CosmosContainer c = tokenClient(List.of(p)).getDatabase(dbId).getContainer("c");
        String id = uid("n");
        assertEquals(201, c.createItem(obj("id", id, "pk", "x")).getStatusCode());
        assertEquals(200, c.replaceItem(obj("id", id, "pk", "x", "v", 2), id, new PartitionKey("x"), null).getStatusCode());
        assertEquals(200, c.upsertItem(obj("id", id, "pk", "x", "v", 4)).getStatusCode());
        assertEquals(204, c.deleteItem(id, new PartitionKey("x"), null).getStatusCode());
    }

    @Test
    void aPartitionKeyTokenReachesOnlyItsPartition() {
        CosmosPermissionProperties p = grant(uid("u"), PermissionMode.ALL, new PartitionKey("x"));
        CosmosContainer c = tokenClient(List.of(p)).getDatabase(dbId).getContainer("c");
        String id = uid("n");
        assertEquals(201, c.createItem(obj("id", id, "pk", "x")).getStatusCode());
        assertEquals("a", c.readItem("a", new PartitionKey("x"), JsonNode.class).getItem().get("id").asText());
        expectError(403, () -> c.readItem("b", new PartitionKey("y"), JsonNode.class));
        expectError(403, () -> c.createItem(obj("id", id, "pk", "y")));
        List<String> inKey = c.queryItems("SELECT VALUE c.id FROM c", new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("x")), String.class)
            .stream().sorted().collect(Collectors.toList());
        assertEquals(List.of("a", id).stream().sorted().collect(Collectors.toList()), inKey);
    }

    @Test
    void deletingThePermissionRevokesItsToken() {
        String userId = uid("u");
        CosmosPermissionProperties p = grant(userId, PermissionMode.READ, null);
        CosmosContainer c = tokenClient(List.of(p)).getDatabase(dbId).getContainer("c");
        assertEquals(200, c.readItem("a", new PartitionKey("x"), JsonNode.class).getStatusCode());
        async.getDatabase(dbId).getUser(userId).getPermission(p.getId()).delete(null).block();
        expectError(403, () -> c.readItem("a", new PartitionKey("x"), JsonNode.class));
    }
}
