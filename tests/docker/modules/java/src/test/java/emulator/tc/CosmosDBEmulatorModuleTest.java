package emulator.tc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.models.CosmosContainerResponse;
import com.azure.cosmos.models.CosmosDatabaseResponse;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.containers.CosmosDBEmulatorContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The Java Testcontainers module for the Cosmos DB emulator, used as its documentation shows, with
 * only the image name changed to the locally built cosmos-emulator image (system property
 * cosmos.image). The module exposes 8081, waits for the log line matching {@code .*Started\r\n$},
 * and builds a PKCS12 key store from {@code GET /_explorer/emulator.pem}; the key store becomes the
 * JVM's trust store and a Gateway-mode CosmosClient writes, reads and queries; then a Direct-mode
 * client (the SDK's default) does the same through the one published port.
 */
class CosmosDBEmulatorModuleTest {

    private static final String IMAGE = System.getProperty("cosmos.image", "cosmos-emulator:test");
    private static final String OFFICIAL = "mcr.microsoft.com/cosmosdb/linux/azure-cosmos-emulator";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Without asCompatibleSubstituteFor the module refuses any other image name. */
    @Test
    void otherImageNameNeedsCompatibleSubstitute() {
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> new CosmosDBEmulatorContainer(DockerImageName.parse(IMAGE)));
        System.out.println("without asCompatibleSubstituteFor: " + e.getMessage());
    }

    @Test
    void moduleStartsImageAndSdkWritesReadsQueries(@TempDir Path tmp) throws Exception {
        System.out.println("module " + System.getProperty("tc.module") + ", image " + IMAGE);
        try (CosmosDBEmulatorContainer emulator =
                new CosmosDBEmulatorContainer(DockerImageName.parse(IMAGE).asCompatibleSubstituteFor(OFFICIAL))) {
            long t0 = System.nanoTime();
            emulator.start();
            System.out.printf("started in %d ms; endpoint %s%n", (System.nanoTime() - t0) / 1_000_000,
                    emulator.getEmulatorEndpoint());

            Path keyStoreFile = tmp.resolve("azure-cosmos-emulator.keystore");
            KeyStore keyStore = emulator.buildNewKeyStore();
            assertEquals(1, keyStore.size(), "key store entries");
            try (OutputStream out = Files.newOutputStream(keyStoreFile)) {
                keyStore.store(out, emulator.getEmulatorKey().toCharArray());
            }
            System.setProperty("javax.net.ssl.trustStore", keyStoreFile.toString());
            System.setProperty("javax.net.ssl.trustStorePassword", emulator.getEmulatorKey());
            System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");

            try (CosmosClient client = new CosmosClientBuilder()
                    .gatewayMode()
                    .endpointDiscoveryEnabled(false)
                    .endpoint(emulator.getEmulatorEndpoint())
                    .key(emulator.getEmulatorKey())
                    .buildClient()) {
                CosmosDatabaseResponse dbResponse = client.createDatabaseIfNotExists("tcdb");
                assertEquals(201, dbResponse.getStatusCode(), "create database");
                CosmosDatabase db = client.getDatabase("tcdb");
                CosmosContainerResponse collResponse = db.createContainerIfNotExists("items", "/pk");
                assertEquals(201, collResponse.getStatusCode(), "create container");
                CosmosContainer coll = db.getContainer("items");

                String[][] docs = {{"a", "p1", "1"}, {"b", "p2", "2"}, {"c", "p3", "3"}};
                for (String[] d : docs) {
                    ObjectNode item = JSON.createObjectNode().put("id", d[0]).put("pk", d[1]).put("n", Integer.parseInt(d[2]));
                    CosmosItemResponse<ObjectNode> created = coll.createItem(item);
                    assertEquals(201, created.getStatusCode(), "create item " + d[0]);
                }

                CosmosItemResponse<JsonNode> read = coll.readItem("b", new PartitionKey("p2"), JsonNode.class);
                assertEquals(200, read.getStatusCode(), "read item");
                assertEquals("p2", read.getItem().get("pk").asText());
                assertEquals(2, read.getItem().get("n").asInt());

                // Cross-partition: no partition key in the options; the filter spans three values.
                SqlQuerySpec spec = new SqlQuerySpec("SELECT c.id, c.n FROM c WHERE c.n >= @min",
                        Collections.singletonList(new SqlParameter("@min", 2)));
                List<String> found = new ArrayList<>();
                coll.queryItems(spec, new CosmosQueryRequestOptions(), JsonNode.class)
                        .forEach(n -> found.add(n.get("id").asText()));
                Collections.sort(found);
                assertEquals(List.of("b", "c"), found, "cross-partition query");

                List<String> ordered = new ArrayList<>();
                coll.queryItems("SELECT VALUE c.id FROM c ORDER BY c.n DESC", new CosmosQueryRequestOptions(), String.class)
                        .forEach(ordered::add);
                assertEquals(List.of("c", "b", "a"), ordered, "cross-partition ORDER BY query");

                // Direct mode, the SDK's default: the module publishes the gateway's port alone (8081,
                // mapped to a random host port), and the address feed sends the client back to that
                // same published port, which serves RNTBD too.
                try (CosmosClient direct = new CosmosClientBuilder()
                        .directMode()
                        .endpointDiscoveryEnabled(false)
                        .endpoint(emulator.getEmulatorEndpoint())
                        .key(emulator.getEmulatorKey())
                        .buildClient()) {
                    CosmosContainer dc = direct.getDatabase("tcdb").getContainer("items");
                    ObjectNode item = JSON.createObjectNode().put("id", "d").put("pk", "p4").put("n", 4);
                    CosmosItemResponse<ObjectNode> created = dc.createItem(item);
                    assertEquals(201, created.getStatusCode(), "create item in Direct mode");
                    String replica = "rntbd://" + emulator.getHost() + ":" + emulator.getMappedPort(8081) + "/";
                    String diagnostics = created.getDiagnostics().toString();
                    assertTrue(diagnostics.contains(replica), "Direct mode to " + replica + ": " + diagnostics);
                    CosmosItemResponse<JsonNode> directRead = dc.readItem("b", new PartitionKey("p2"), JsonNode.class);
                    assertEquals(2, directRead.getItem().get("n").asInt(), "read item in Direct mode");
                    assertTrue(directRead.getDiagnostics().toString().contains(replica), "read over Direct mode");
                    List<String> directOrdered = new ArrayList<>();
                    dc.queryItems("SELECT VALUE c.id FROM c ORDER BY c.n DESC", new CosmosQueryRequestOptions(), String.class)
                            .forEach(directOrdered::add);
                    assertEquals(List.of("d", "c", "b", "a"), directOrdered, "ORDER BY query in Direct mode");
                    System.out.println("Direct mode through the published port: " + replica);
                }

                assertTrue(db.delete().getStatusCode() == 204, "delete database");
            }
        }
    }
}
