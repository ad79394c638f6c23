package emulator.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.ConsistencyLevel;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import emulator.harness.Emulator;
import emulator.harness.Raw;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Direct mode itself (docs/direct-mode.md), whatever mode the rest of the suite runs in: clients
 * built with directMode() (the SDK's default) take replica addresses from the gateway's address
 * feed and send their data-plane requests as RNTBD over TLS to the emulator's Direct port.
 */
class DirectTest extends TestBase {

    private CosmosClient directClient() {
        return track(new CosmosClientBuilder().endpoint(emu.endpoint).key(emu.key).directMode()
            .consistencyLevel(ConsistencyLevel.SESSION).contentResponseOnWriteEnabled(true)
            .userAgentSuffix("cosmos-emulator-java-tests-direct").buildClient());
    }

    private CosmosContainer direct(CosmosClient c, CosmosContainer container) {
        return c.getDatabase(dbId).getContainer(container.getId());
    }

    @Test
    void pointOperationsGoToTheDirectPort() {
        Assumptions.assumeTrue(Emulator.LOCAL, "the emulator's own port");
        CosmosContainer c = direct(directClient(), createContainer(uid("c"), "/pk"));
        CosmosItemResponse<JsonNode> created = c.createItem(
            (JsonNode) obj("id", "a", "pk", "p", "n", 1), new PartitionKey("p"), new CosmosItemRequestOptions());
        assertEquals(201, created.getStatusCode());
        String diagnostics = created.getDiagnostics().toString();
        assertTrue(diagnostics.contains("rntbd://127.0.0.1:" + emu.directPort + "/"), diagnostics);
        assertTrue(created.getRequestCharge() > 0, "charge " + created.getRequestCharge());
        CosmosItemResponse<JsonNode> read = c.readItem("a", new PartitionKey("p"), JsonNode.class);
        assertEquals(1, read.getItem().get("n").asInt());
        assertTrue(read.getDiagnostics().toString().contains("rntbd://127.0.0.1:" + emu.directPort + "/"));
        // A missing item is 404/0 (a 404 without an LSN would be taken for a lagging replica: 404/1002).
        expectError(404, 0, () -> c.readItem("missing", new PartitionKey("p"), JsonNode.class));
        expectError(409, 0, () -> c.createItem((JsonNode) obj("id", "a", "pk", "p"), new PartitionKey("p"),
            new CosmosItemRequestOptions()));
        assertEquals(204, c.deleteItem("a", new PartitionKey("p"), new CosmosItemRequestOptions()).getStatusCode());
    }

    @Test
    void theAddressFeedNamesTheDirectPortForEachRange() {
        Assumptions.assumeTrue(Emulator.LOCAL, "the emulator's own port");
        CosmosContainer c = createContainer(uid("c"), "/pk", 12000);
        JsonNode coll = parse(Raw.request(emu, "GET", "/dbs/" + dbId + "/colls/" + c.getId(), null).body);
        String collRid = coll.get("_rid").asText();
        JsonNode dbNode = parse(Raw.request(emu, "GET", "/dbs/" + dbId, null).body);
        String resolveFor = Raw.enc("dbs/" + dbNode.get("_rid").asText() + "/colls/" + collRid + "/docs");
        Raw.Response r = Raw.request(emu, "GET",
            "/addresses/?$resolveFor=" + resolveFor + "&$filter=protocol%20eq%20rntbd&$partitionKeyRangeIds=0,1", null,
            Map.of(), new String[] {"docs", collRid.toLowerCase()});
        assertEquals(200, r.status, r.body);
        JsonNode addresses = parse(r.body).get("Addresss");
        assertEquals(2, addresses.size(), r.body);
        for (int i = 0; i < 2; i++) {
            JsonNode a = addresses.get(i);
            assertEquals(String.valueOf(i), a.get("partitionKeyRangeId").asText(), r.body);
            assertEquals("rntbd", a.get("protocol").asText());
            assertTrue(a.get("isPrimary").asBoolean());
            String uri = a.get("physcialUri").asText();
            assertTrue(uri.startsWith("rntbd://127.0.0.1:" + emu.directPort + "/") && uri.endsWith("/replicas/1p/"), uri);
        }
    }

    /**
     * A port mapping (what Docker and Testcontainers publish): a TCP relay on another port forwards
     * to the gateway's port, and the client knows only the relay. The address feed then names the
     * relay's port, and the gateway's port answers the RNTBD that comes through it.
     */
    @Test
    void throughAPortMappingDirectModeUsesTheGatewaysPort() throws Exception {
        Assumptions.assumeTrue(Emulator.LOCAL, "the emulator's own port");
        CosmosContainer made = createContainer(uid("c"), "/pk");
        try (ServerSocket relay = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!relay.isClosed()) {
                    try {
                        Socket in = relay.accept();
                        Socket out = new Socket(InetAddress.getLoopbackAddress(), emu.port);
                        pump(in, out);
                        pump(out, in);
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            String mapped = "https://127.0.0.1:" + relay.getLocalPort();
            CosmosClient viaRelay = track(new CosmosClientBuilder().endpoint(mapped).key(emu.key).directMode()
                .consistencyLevel(ConsistencyLevel.SESSION).contentResponseOnWriteEnabled(true).buildClient());
            CosmosContainer c = direct(viaRelay, made);
            CosmosItemResponse<JsonNode> created = c.createItem(
                (JsonNode) obj("id", "m", "pk", "p", "n", 5), new PartitionKey("p"), new CosmosItemRequestOptions());
            assertEquals(201, created.getStatusCode());
            String diagnostics = created.getDiagnostics().toString();
            assertTrue(diagnostics.contains("rntbd://127.0.0.1:" + relay.getLocalPort() + "/"), diagnostics);
            CosmosItemResponse<JsonNode> read = c.readItem("m", new PartitionKey("p"), JsonNode.class);
            assertEquals(5, read.getItem().get("n").asInt());
            assertTrue(read.getDiagnostics().toString().contains("rntbd://127.0.0.1:" + relay.getLocalPort() + "/"));
            List<JsonNode> all = new ArrayList<>();
            c.queryItems("SELECT VALUE c.n FROM c", new CosmosQueryRequestOptions(), JsonNode.class).forEach(all::add);
            assertEquals(List.of(5), all.stream().map(JsonNode::asInt).toList());
        }
    }

    /** Copies bytes from one socket to the other until either closes. */
    private static void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
            } catch (IOException ignored) {
                // either side closed
            } finally {
                try { from.close(); to.close(); } catch (IOException ignored) { }
            }
        });
        t.setDaemon(true);
        t.start();
    }

    @Test
    void sessionReadsGoOnAcrossASplit() {
        Assumptions.assumeTrue(Emulator.LOCAL, "the emulator's own split endpoint");
        CosmosContainer c = direct(directClient(), createContainer(uid("c"), "/pk", 12000));
        for (int i = 0; i < 20; i++) {
            c.createItem((JsonNode) obj("id", "i" + i, "pk", "k" + i), new PartitionKey("k" + i), new CosmosItemRequestOptions());
        }
        Raw.Response split = Raw.split(emu, dbId, c.getId(), null);
        assertEquals(200, split.status, split.body);
        // The client's addresses and session tokens name the parents: it is told 410/1002, reads the
        // children's addresses and goes on with every item there.
        for (int i = 0; i < 20; i++) {
            assertEquals("k" + i, c.readItem("i" + i, new PartitionKey("k" + i), JsonNode.class).getItem().get("pk").asText());
        }
        c.upsertItem((JsonNode) obj("id", "i0", "pk", "k0", "after", true), new PartitionKey("k0"), new CosmosItemRequestOptions());
        assertTrue(c.readItem("i0", new PartitionKey("k0"), JsonNode.class).getItem().get("after").asBoolean());
        List<JsonNode> all = new ArrayList<>();
        c.queryItems("SELECT c.id FROM c", new CosmosQueryRequestOptions(), JsonNode.class).forEach(all::add);
        assertEquals(20, all.size());
    }

    @Test
    void aConnectionDroppedMidRequestIsRetriedOnANewOne() {
        Assumptions.assumeTrue(Emulator.LOCAL, "the emulator's fault rules");
        CosmosContainer c = direct(directClient(), createContainer(uid("c"), "/pk"));
        c.createItem((JsonNode) obj("id", "a", "pk", "p"), new PartitionKey("p"), new CosmosItemRequestOptions());
        String rule = "{\"id\":\"drop-" + c.getId() + "\",\"condition\":{\"operationType\":\"ReadItem\",\"path\":\"/dbs/"
            + dbId + "/colls/" + c.getId() + "/**\"},\"result\":{\"serverErrorType\":\"ConnectionClose\"},\"hitLimit\":1}";
        Raw.Response added = Raw.request(emu, "POST", "/_emulator/faults", rule);
        assertTrue(added.status == 200 || added.status == 201, added.body);
        try {
            assertEquals("a", c.readItem("a", new PartitionKey("p"), JsonNode.class).getItem().get("id").asText());
            JsonNode rules = parse(Raw.request(emu, "GET", "/_emulator/faults", null).body).get("rules");
            int hits = -1;
            for (JsonNode r : rules) if (r.get("id").asText().equals("drop-" + c.getId())) hits = r.get("hits").asInt();
            assertEquals(1, hits, rules.toString());
        } finally {
            Raw.request(emu, "DELETE", "/_emulator/faults", null);
        }
    }

    @Test
    void sixtyFourClientsAtOnce() throws Exception {
        CosmosContainer shared = createContainer(uid("c"), "/pk");
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<Integer>> done = new ArrayList<>();
        for (int n = 0; n < 64; n++) {
            final int client = n;
            done.add(pool.submit(() -> {
                CosmosContainer c = direct(directClient(), shared);
                int ok = 0;
                for (int i = 0; i < 3; i++) {
                    String id = "c" + client + "-" + i;
                    c.createItem((JsonNode) obj("id", id, "pk", id), new PartitionKey(id), new CosmosItemRequestOptions());
                    if (c.readItem(id, new PartitionKey(id), JsonNode.class).getItem().get("id").asText().equals(id)) ok++;
                }
                return ok;
            }));
        }
        int total = 0;
        for (Future<Integer> f : done) total += f.get(5, TimeUnit.MINUTES);
        pool.shutdown();
        assertEquals(192, total);
        List<JsonNode> all = new ArrayList<>();
        shared.queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions(), JsonNode.class).forEach(all::add);
        assertEquals(192, all.get(0).asInt());
    }
}
