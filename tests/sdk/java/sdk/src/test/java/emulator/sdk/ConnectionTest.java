package emulator.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.models.CosmosDatabaseProperties;
import com.fasterxml.jackson.databind.JsonNode;
import emulator.harness.Emulator;
import emulator.harness.Raw;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The connection itself: HTTPS with the certificate the emulator exported, Gateway mode, the account
 * document sending the SDK back to the endpoint it came in by, the endpoint named "localhost".
 */
class ConnectionTest extends TestBase {

    @Test
    void theAccountSendsTheClientBackToTheHttpsEndpointItCameInBy() {
        Assumptions.assumeTrue(Emulator.LOCAL);
        assertTrue(emu.endpoint.startsWith("https://127.0.0.1:"), emu.endpoint);
        Raw.Response r = Raw.request(emu, "GET", "/", null);
        assertEquals(200, r.status, r.body);
        JsonNode account = parse(r.body);
        assertEquals(emu.endpoint + "/", account.get("writableLocations").get(0).get("databaseAccountEndpoint").asText());
        assertEquals(emu.endpoint + "/", account.get("readableLocations").get(0).get("databaseAccountEndpoint").asText());
    }

    @Test
    void theExportedCertificateIsTheOneServed() throws Exception {
        Assumptions.assumeTrue(Emulator.LOCAL);
        Raw.Response pem = Raw.get(emu, "/_explorer/emulator.pem");
        assertEquals(200, pem.status);
        assertEquals(Files.readString(emu.certFile).trim(), pem.body.trim());
    }

    @Test
    void aClientWithoutTheCertificateIsRefused() throws Exception {
        Assumptions.assumeTrue(Emulator.LOCAL);
        // the JDK's own CA certificates only: the handshake fails
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        java.security.KeyStore cacerts = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
        try (java.io.InputStream in = Files.newInputStream(java.nio.file.Paths.get(System.getProperty("java.home"), "lib", "security", "cacerts"))) {
            cacerts.load(in, "changeit".toCharArray());
        }
        tmf.init(cacerts);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        HttpClient plain = HttpClient.newBuilder().sslContext(ctx).connectTimeout(Duration.ofSeconds(5)).build();
        assertThrows(javax.net.ssl.SSLHandshakeException.class, () ->
            plain.send(HttpRequest.newBuilder(URI.create(emu.endpoint + "/_explorer/emulator.pem")).build(), HttpResponse.BodyHandlers.ofString()));
    }

    @Test
    void theEndpointNamedLocalhostWorksToo() {
        Assumptions.assumeTrue(Emulator.LOCAL);
        try (CosmosClient local = connect(new com.azure.cosmos.CosmosClientBuilder().endpoint(emu.localhostEndpoint()).key(emu.key)).buildClient()) {
            assertTrue(local.readAllDatabases().stream().map(CosmosDatabaseProperties::getId).anyMatch(dbId::equals));
            assertEquals(200, local.getDatabase(dbId).read().getStatusCode());
        }
    }
}
