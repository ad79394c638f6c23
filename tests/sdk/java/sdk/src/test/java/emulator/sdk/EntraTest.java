package emulator.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.azure.core.credential.AccessToken;
import com.azure.core.credential.TokenCredential;
import com.azure.core.credential.TokenRequestContext;
import com.azure.cosmos.ConsistencyLevel;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import emulator.harness.Emulator;
import emulator.harness.Raw;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Microsoft Entra ID tokens (docs/entra-id.md), as an application sends them: a CosmosClient built
 * with credential(TokenCredential) instead of a key, in the suite's connection mode. The credential
 * stands in for a tenant's: its token is a JWT for the scope the SDK asks for, whose signature the
 * emulator does not check unless told keys (--aad-keys). Roles are changed through the emulator's
 * /_emulator/rbac endpoint with the master key, and restored after each test.
 */
class EntraTest extends TestBase {

    private static final String READER = "00000000-0000-0000-0000-000000000001";
    private static final String CONTRIBUTOR = "00000000-0000-0000-0000-000000000002";

    /** A TokenCredential whose token is for the scope asked for, for principal `oid`, valid for `seconds` (negative: expired). */
    static final class TestCredential implements TokenCredential {
        final String oid;
        final long seconds;
        final List<String> scopes = new CopyOnWriteArrayList<>();

        TestCredential(String oid, long seconds) {
            this.oid = oid;
            this.seconds = seconds;
        }

        @Override
        public Mono<AccessToken> getToken(TokenRequestContext context) {
            String scope = context.getScopes().get(0);
            scopes.add(scope);
            String audience = scope.endsWith("/.default") ? scope.substring(0, scope.length() - "/.default".length()) : scope;
            long now = System.currentTimeMillis() / 1000;
            long exp = now + seconds;
            String header = b64("{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\"java-suite\"}");
            String claims = b64("{\"aud\":\"" + audience + "\",\"iss\":\"https://sts.windows.net/00000000-0000-0000-0000-00000000000a/\","
                + "\"oid\":\"" + oid + "\",\"tid\":\"00000000-0000-0000-0000-00000000000a\",\"iat\":" + (exp - 3600)
                + ",\"nbf\":" + (exp - 3600) + ",\"exp\":" + exp + "}");
            return Mono.just(new AccessToken(header + "." + claims + "." + b64("not-checked-without-keys"),
                OffsetDateTime.now().plusSeconds(Math.max(seconds, 5))));
        }

        private static String b64(String s) {
            return Base64.getUrlEncoder().withoutPadding().encodeToString(s.getBytes(StandardCharsets.UTF_8));
        }
    }

    private CosmosClient tokenClient(TestCredential credential) {
        return track(connect(new CosmosClientBuilder().endpoint(emu.endpoint).credential(credential))
            .consistencyLevel(ConsistencyLevel.SESSION).contentResponseOnWriteEnabled(true)
            .userAgentSuffix("cosmos-emulator-java-tests-entra").buildClient());
    }

    /** Runs `body` with these role assignments in force, then puts back the roles there were. */
    private void withRoles(String assignmentsJson, Runnable body) {
        Raw.Response before = Raw.request(emu, "GET", "/_emulator/rbac", null);
        assertEquals(200, before.status, before.body);
        Raw.Response put = Raw.request(emu, "PUT", "/_emulator/rbac", "{\"roleAssignments\":" + assignmentsJson + "}");
        assertEquals(200, put.status, put.body);
        try {
            body.run();
        } finally {
            Raw.Response restored = Raw.request(emu, "PUT", "/_emulator/rbac", before.body);
            assertEquals(200, restored.status, restored.body);
        }
    }

    private static String assignment(String role, String scope, String principal) {
        return "{\"properties\":{\"roleDefinitionId\":\"" + role + "\",\"scope\":\"" + scope + "\",\"principalId\":\"" + principal + "\"}}";
    }

    /** The CosmosException in `e`'s causes (client construction wraps the account read's). */
    private static CosmosException cosmosCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause())
            if (t instanceof CosmosException) return (CosmosException) t;
        fail("no CosmosException in " + e, e);
        return null;
    }

    @Test
    void aDataContributorWritesReadsAndQueriesButCannotCreateContainers() {
        Assumptions.assumeTrue(Emulator.LOCAL, "the emulator's default roles");
        CosmosContainer made = createContainer(uid("c"), "/pk");
        TestCredential credential = new TestCredential("4c1b0e1a-0000-4000-8000-000000000001", 3600);
        CosmosClient tc = tokenClient(credential);
        // The Java SDK asks for the endpoint's scope without its port.
        assertTrue(credential.scopes.contains("https://127.0.0.1/.default"), credential.scopes.toString());
        CosmosContainer c = tc.getDatabase(dbId).getContainer(made.getId());
        assertEquals(201, c.createItem((JsonNode) obj("id", "a", "pk", "p", "n", 1), new PartitionKey("p"),
            new CosmosItemRequestOptions()).getStatusCode());
        assertEquals(200, c.upsertItem((JsonNode) obj("id", "a", "pk", "p", "n", 2), new PartitionKey("p"),
            new CosmosItemRequestOptions()).getStatusCode());
        assertEquals(2, c.readItem("a", new PartitionKey("p"), JsonNode.class).getItem().get("n").asInt());
        List<Integer> found = new ArrayList<>();
        c.queryItems("SELECT VALUE c.n FROM c", new CosmosQueryRequestOptions(), Integer.class).forEach(found::add);
        assertEquals(List.of(2), found);
        // Management operations are never served to a token in the data plane: 403/5300.
        CosmosException e = expectError(403, 5300, () -> tc.getDatabase(dbId).createContainer(new CosmosContainerProperties(uid("x"), "/pk")));
        assertTrue(e.getMessage().contains("cannot be authorized by AAD token in data plane"), e.getMessage());
        expectError(403, 5300, () -> tc.createDatabase(uid("db")));
        assertEquals(204, c.deleteItem("a", new PartitionKey("p"), new CosmosItemRequestOptions()).getStatusCode());
    }

    @Test
    void aDataReaderReadsAndQueriesAndItsWritesAre5301UntilItsRoleChanges() {
        Assumptions.assumeTrue(Emulator.LOCAL, "the emulator's /_emulator/rbac");
        CosmosContainer made = createContainer(uid("c"), "/pk");
        made.createItem((JsonNode) obj("id", "r", "pk", "p", "n", 7), new PartitionKey("p"), new CosmosItemRequestOptions());
        String reader = "4c1b0e1a-0000-4000-8000-000000000002";
        withRoles("[" + assignment(READER, "/", reader) + "]", () -> {
            CosmosContainer c = tokenClient(new TestCredential(reader, 3600)).getDatabase(dbId).getContainer(made.getId());
            assertEquals(7, c.readItem("r", new PartitionKey("p"), JsonNode.class).getItem().get("n").asInt());
            List<Integer> found = new ArrayList<>();
            c.queryItems("SELECT VALUE c.n FROM c", new CosmosQueryRequestOptions(), Integer.class).forEach(found::add);
            assertEquals(List.of(7), found);
            CosmosException e = expectError(403, 5301, () -> c.createItem((JsonNode) obj("id", "w", "pk", "p"),
                new PartitionKey("p"), new CosmosItemRequestOptions()));
            assertTrue(e.getMessage().contains("principal [" + reader + "] does not have required RBAC permissions to perform action "
                + "[Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/create]"), e.getMessage());
            // A role change takes effect with the next request.
            Raw.Response put = Raw.request(emu, "PUT", "/_emulator/rbac",
                "{\"roleAssignments\":[" + assignment(CONTRIBUTOR, "/dbs/" + dbId, reader) + "]}");
            assertEquals(200, put.status, put.body);
            assertEquals(201, c.createItem((JsonNode) obj("id", "w", "pk", "p"), new PartitionKey("p"),
                new CosmosItemRequestOptions()).getStatusCode());
        });
    }

    /**
     * The credential exactly as docs/entra-id.md shows it for Java: a lambda returning the token
     * `cosmos-emulator --issue-token --principal OID` printed, and a client built with endpoint and
     * credential alone (so in the SDK's default connection mode, Direct).
     */
    @Test
    void theDocumentedCredentialWithAnIssuedToken() throws Exception {
        Assumptions.assumeTrue(Emulator.LOCAL, "the local binary's --issue-token");
        CosmosContainer made = createContainer(uid("c"), "/pk");
        Process issue = new ProcessBuilder(Emulator.binary().toString(), "--issue-token", "--principal",
            "4c1b0e1a-0000-4000-8000-000000000004").redirectErrorStream(true).start();
        String jwt = new String(issue.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, issue.waitFor(), jwt);

        // As in docs/entra-id.md:
        TokenCredential credential = request -> Mono.just(new AccessToken(jwt, OffsetDateTime.now().plusHours(1)));
        CosmosClient client = track(new CosmosClientBuilder().endpoint(emu.endpoint).credential(credential).buildClient());

        CosmosContainer c = client.getDatabase(dbId).getContainer(made.getId());
        assertEquals(201, c.createItem((JsonNode) obj("id", "d", "pk", "p", "n", 3), new PartitionKey("p"),
            new CosmosItemRequestOptions()).getStatusCode());
        List<Integer> found = new ArrayList<>();
        c.queryItems("SELECT VALUE c.n FROM c", new CosmosQueryRequestOptions(), Integer.class).forEach(found::add);
        assertEquals(List.of(3), found);
        expectError(403, 5300, () -> client.createDatabase(uid("db")));
    }

    @Test
    void anExpiredTokenIs401() {
        Assumptions.assumeTrue(Emulator.LOCAL, "the emulator's token checks");
        try {
            CosmosClient tc = tokenClient(new TestCredential("4c1b0e1a-0000-4000-8000-000000000003", -3600));
            tc.getDatabase(dbId).read();
            fail("an expired token was served");
        } catch (RuntimeException e) {
            CosmosException ce = cosmosCause(e);
            assertNotNull(ce);
            assertEquals(401, ce.getStatusCode(), ce.getMessage());
            assertTrue(ce.getMessage().contains("Provided AAD token has been expired since"), ce.getMessage());
        }
    }
}
