package emulator.harness;

import java.security.SecureRandom;

/** Unique resource ids, so the tests can also run against a shared real account. */
public final class Ids {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {}

    public static String uid(String prefix) {
        byte[] b = new byte[5];
        RANDOM.nextBytes(b);
        StringBuilder sb = new StringBuilder(prefix).append('-');
        for (byte x : b) sb.append(String.format("%02x", x));
        return sb.toString();
    }
}
