package emulator.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One emulator process: the binary ($COSMOS_EMULATOR_BIN, default build/emulator/cosmos-emulator)
 * started with {@code --port 0 --cert-export FILE}; the port is read from its
 * {@code Now listening on: https://127.0.0.1:PORT} line (printed before {@code Started}).
 * Its certificate is added to the JVM's trust store ({@link Trust}) before any client is built.
 *
 * <p>With $COSMOS_ENDPOINT set, that endpoint (and $COSMOS_KEY) is used and nothing is started;
 * emulator-model checks (request charges, emulator-only endpoints) are then skipped.
 */
public final class Emulator implements AutoCloseable {
    public static final String WELL_KNOWN_KEY =
        "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";
    /** True when the tests run against the local binary. */
    public static final boolean LOCAL = System.getenv("COSMOS_ENDPOINT") == null
        || System.getenv("COSMOS_ENDPOINT").isEmpty();

    private static final Pattern LISTENING = Pattern.compile("^Now listening on: (https?)://([^\\s/]+):(\\d+)/?\\s*$");
    private static final Pattern DIRECT_ON = Pattern.compile("^Direct mode on: rntbd://([^\\s/]+):(\\d+)/?\\s*$");
    private static Emulator shared;

    static {
        // Loopback only: the SDK would otherwise ask the Azure instance metadata service for VM facts.
        if (System.getProperty("COSMOS.DISABLE_IMDS_ACCESS") == null) System.setProperty("COSMOS.DISABLE_IMDS_ACCESS", "true");
    }

    /**
     * How the suite's clients connect: $COSMOS_CONNECTION_MODE {@code direct} (the SDK's default:
     * addresses from the gateway, then RNTBD over TLS to the emulator's Direct port) or
     * {@code gateway} (HTTPS only; the default here). tests/run.sh runs the suite in each.
     */
    public static final boolean DIRECT = "direct".equalsIgnoreCase(
        System.getenv().getOrDefault("COSMOS_CONNECTION_MODE", "gateway"));

    public final String endpoint;   // https://127.0.0.1:PORT (no trailing slash)
    public final String host;
    public final int port;
    /** The Direct-mode (RNTBD) port from the "Direct mode on: rntbd://..." line; -1 when none. */
    public final int directPort;
    public final String key;
    public final Path certFile;
    private final Process process;
    private final List<String> output = new ArrayList<>();

    private Emulator(String endpoint, String host, int port, int directPort, String key, Path certFile, Process process) {
        this.endpoint = endpoint;
        this.host = host;
        this.port = port;
        this.directPort = directPort;
        this.key = key;
        this.certFile = certFile;
        this.process = process;
    }

    /** The emulator shared by every test class of this JVM (started on first use, stopped at exit). */
    public static synchronized Emulator shared() {
        if (shared == null) {
            shared = start();
            Emulator e = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(e::close));
        }
        return shared;
    }

    public static Path binary() {
        String env = System.getenv("COSMOS_EMULATOR_BIN");
        if (env != null && !env.isEmpty()) return Paths.get(env).toAbsolutePath();
        String root = System.getenv("COSMOS_TESTS_ROOT"); // tests/sdk/java, set by the pom
        Path base = root != null && !root.isEmpty() ? Paths.get(root) : Paths.get("").toAbsolutePath();
        // <repo>/tests/sdk/java -> <repo>/build/emulator/cosmos-emulator
        return base.resolve("../../../build/emulator/cosmos-emulator").normalize().toAbsolutePath();
    }

    /** Starts a new emulator with extra flags (ignored against $COSMOS_ENDPOINT). */
    public static Emulator start(String... extraArgs) {
        if (!LOCAL) {
            String ep = System.getenv("COSMOS_ENDPOINT").replaceAll("/+$", "");
            String key = System.getenv("COSMOS_KEY") != null ? System.getenv("COSMOS_KEY") : WELL_KNOWN_KEY;
            java.net.URI uri = java.net.URI.create(ep);
            return new Emulator(ep, uri.getHost(), uri.getPort(), -1, key, null, null);
        }
        try {
            Path dir = Files.createTempDirectory("cosmos-java-tests-");
            Path cert = dir.resolve("emulator.pem");
            List<String> cmd = new ArrayList<>();
            cmd.add(binary().toString());
            cmd.add("--host");
            cmd.add("127.0.0.1");
            cmd.add("--port");
            cmd.add("0");
            cmd.add("--cert-export");
            cmd.add(cert.toString());
            cmd.add("--threads");
            cmd.add("2");
            for (String a : extraArgs) cmd.add(a);
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            Process p = pb.start();
            List<String> lines = new ArrayList<>();
            CountDownLatch started = new CountDownLatch(1);
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        synchronized (lines) { lines.add(line); }
                        if (line.trim().equals("Started")) started.countDown();
                    }
                } catch (IOException ignored) {
                    // process ended
                }
                started.countDown();
            }, "emulator-output");
            reader.setDaemon(true);
            reader.start();
            if (!started.await(20, TimeUnit.SECONDS) || !p.isAlive()) {
                p.destroyForcibly();
                throw new IllegalStateException("emulator did not start:\n" + String.join("\n", snapshot(lines)));
            }
            String host = null;
            int port = -1;
            int directPort = -1;
            for (String l : snapshot(lines)) {
                Matcher m = LISTENING.matcher(l.trim());
                if (m.matches() && (port < 0 || m.group(1).equals("https"))) {
                    host = m.group(2);
                    port = Integer.parseInt(m.group(3));
                }
                Matcher d = DIRECT_ON.matcher(l.trim());
                if (d.matches()) directPort = Integer.parseInt(d.group(2));
            }
            if (port < 0) {
                p.destroyForcibly();
                throw new IllegalStateException("no 'Now listening on' line:\n" + String.join("\n", snapshot(lines)));
            }
            if (!Files.exists(cert)) {
                p.destroyForcibly();
                throw new IllegalStateException("--cert-export wrote no " + cert);
            }
            Trust.add(cert);
            Emulator e = new Emulator("https://" + host + ":" + port, host, port, directPort, WELL_KNOWN_KEY, cert, p);
            synchronized (lines) { e.output.addAll(lines); }
            return e;
        } catch (IOException | InterruptedException ex) {
            throw new IllegalStateException("cannot start " + binary() + ": " + ex, ex);
        }
    }

    private static List<String> snapshot(List<String> lines) {
        synchronized (lines) { return new ArrayList<>(lines); }
    }

    /** The endpoint with "localhost" instead of the address (the certificate names both). */
    public String localhostEndpoint() {
        return endpoint.replace("://127.0.0.1:", "://localhost:");
    }

    public boolean alive() {
        return process == null || process.isAlive();
    }

    @Override
    public void close() {
        if (process == null || !process.isAlive()) return;
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
    }
}
