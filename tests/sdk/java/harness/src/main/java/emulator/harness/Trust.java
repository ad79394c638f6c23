package emulator.harness;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Trust exactly the emulators' certificates: a PKCS#12 trust store holding only the PEMs written by
 * {@code --cert-export}, installed as the JVM's default ({@code javax.net.ssl.trustStore}), the way
 * Microsoft documents it for the Java SDK and the emulator (import the certificate into the trust
 * store the JVM uses) and the way Testcontainers' CosmosDBEmulatorContainer sets it up. The SDK's
 * Netty SSL context uses the JDK's default trust manager, which reads those properties.
 */
public final class Trust {
    public static final String PASSWORD = "changeit";
    private static final List<X509Certificate> CERTS = new ArrayList<>();
    private static SSLContext context;

    private Trust() {}

    public static synchronized void add(Path pem) throws IOException {
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            for (java.security.cert.Certificate c : cf.generateCertificates(new ByteArrayInputStream(Files.readAllBytes(pem)))) {
                CERTS.add((X509Certificate) c);
            }
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            for (int i = 0; i < CERTS.size(); i++) ks.setCertificateEntry("cosmos-emulator-" + i, CERTS.get(i));
            // a new file each time: the JDK reloads the default trust store when its path changes
            Path store = pem.resolveSibling("truststore-" + CERTS.size() + ".p12");
            try (OutputStream out = Files.newOutputStream(store)) {
                ks.store(out, PASSWORD.toCharArray());
            }
            System.setProperty("javax.net.ssl.trustStore", store.toString());
            System.setProperty("javax.net.ssl.trustStorePassword", PASSWORD);
            System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            context = ctx;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot trust " + pem + ": " + e, e);
        }
    }

    /** An SSL context trusting only the emulators' certificates (for raw requests). */
    public static synchronized SSLContext sslContext() {
        try {
            return context != null ? context : SSLContext.getDefault();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
