package emulator.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import com.azure.cosmos.ConsistencyLevel;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import emulator.harness.Emulator;
import emulator.harness.Ids;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * One emulator for the whole JVM (Emulator.shared()), one client and one database per test class
 * (deleted afterwards). Clients are built as SDK users build them for the emulator: in the suite's
 * connection mode (connect: Gateway or Direct), the HTTPS endpoint, the emulator's
 * certificate in the JVM trust store.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class TestBase {
    protected static final ObjectMapper JSON = new ObjectMapper();
    protected Emulator emu;
    protected CosmosClient client;
    protected CosmosDatabase db;
    protected String dbId;
    private final List<CosmosClient> clients = new ArrayList<>();

    /** The builder in the suite's connection mode (Emulator.DIRECT). */
    public static CosmosClientBuilder connect(CosmosClientBuilder builder) {
        return Emulator.DIRECT ? builder.directMode() : builder.gatewayMode();
    }

    /** The builder every test uses: the suite's connection mode, HTTPS, the well-known key, session consistency. */
    public static CosmosClientBuilder builder(Emulator e) {
        return connect(new CosmosClientBuilder()
            .endpoint(e.endpoint)
            .key(e.key))
            .consistencyLevel(ConsistencyLevel.SESSION)
            .contentResponseOnWriteEnabled(true)
            .userAgentSuffix("cosmos-emulator-java-tests");
    }

    protected Emulator emulator() {
        return Emulator.shared();
    }

    @BeforeAll
    void startClient() {
        emu = emulator();
        client = track(builder(emu).buildClient());
        dbId = Ids.uid("db");
        assertEquals(201, client.createDatabase(dbId).getStatusCode());
        db = client.getDatabase(dbId);
        setUp();
    }

    /** Runs once after the database exists. */
    protected void setUp() {}

    @AfterAll
    void stopClient() {
        try {
            if (db != null) db.delete();
        } catch (RuntimeException ignored) {
            // the emulator stops anyway
        }
        for (CosmosClient c : clients) {
            try {
                c.close();
            } catch (RuntimeException ignored) {
                // closed
            }
        }
    }

    protected CosmosClient track(CosmosClient c) {
        clients.add(c);
        return c;
    }

    protected CosmosContainer createContainer(String id, String pkPath) {
        assertEquals(201, db.createContainer(new CosmosContainerProperties(id, pkPath)).getStatusCode());
        return db.getContainer(id);
    }

    protected CosmosContainer createContainer(String id, String pkPath, int throughput) {
        assertEquals(201, db.createContainer(new CosmosContainerProperties(id, pkPath),
            ThroughputProperties.createManualThroughput(throughput)).getStatusCode());
        return db.getContainer(id);
    }

    public static ObjectNode obj(Object... kv) {
        ObjectNode n = JSON.createObjectNode();
        for (int i = 0; i < kv.length; i += 2) n.set((String) kv[i], JSON.valueToTree(kv[i + 1]));
        return n;
    }

    public static JsonNode parse(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    public static List<String> keys(JsonNode n) {
        List<String> out = new ArrayList<>();
        Iterator<String> it = n.fieldNames();
        while (it.hasNext()) out.add(it.next());
        return out;
    }

    /** The user properties of a stored item (system properties dropped). */
    public static ObjectNode strip(JsonNode doc) {
        ObjectNode n = doc.deepCopy();
        n.remove(List.of("_rid", "_self", "_etag", "_attachments", "_ts", "_lsn"));
        return n;
    }

    @FunctionalInterface
    public interface Call {
        Object run() throws Exception;
    }

    /** Runs the call and expects a CosmosException with that status; returns it. */
    public static CosmosException expectError(int status, Call call) {
        try {
            Object r = call.run();
            fail("expected " + status + ", got success: " + r);
            return null;
        } catch (CosmosException e) {
            assertEquals(status, e.getStatusCode(), () -> "status of " + e.getMessage());
            return e;
        } catch (Exception e) {
            fail("expected CosmosException " + status + ", got " + e, e);
            return null;
        }
    }

    public static CosmosException expectError(int status, int substatus, Call call) {
        CosmosException e = expectError(status, call);
        assertEquals(substatus, e.getSubStatusCode(), () -> "substatus of " + e.getMessage());
        return e;
    }

    /** The service's error code ("Conflict", "NotFound", ...) from the exception's body. */
    public static String errorCode(CosmosException e) {
        String m = e.getMessage();
        java.util.regex.Matcher mm = java.util.regex.Pattern.compile("\"code\"\\s*:\\s*\"([^\"]+)\"").matcher(m);
        assertNotNull(m);
        return mm.find() ? mm.group(1) : null;
    }

    public static String header(Map<String, String> headers, String name) {
        for (Map.Entry<String, String> h : headers.entrySet()) if (h.getKey().equalsIgnoreCase(name)) return h.getValue();
        return null;
    }

    public static String uid(String prefix) {
        return Ids.uid(prefix);
    }
}
