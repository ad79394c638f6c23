package emulator.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The request-unit model of emulator/charge/charge.cpp (tests/sdk/README.md): create = 4.6 + 0.6*KB
 * + 0.38*T, replace/upsert/patch = 1.85x, delete = create on the stored image, point read =
 * max(1, 1 + 0.1*(KB-1)), feed page = 2.7 + 0.1*docs + 0.068*KB. KB is the byte length of the
 * stored item's JSON text as returned / 1024; T the index terms with the default policy.
 */
public final class Charges {
    private Charges() {}

    public static final ObjectMapper JSON = new ObjectMapper();
    public static final double REJECTED_WRITE = 1.24;
    public static final double METADATA_READ = 2;
    public static final double METADATA_WRITE = 1;
    private static final Set<String> SYSTEM_NOT_INDEXED = Set.of("_rid", "_self", "_etag", "_attachments");

    public static double round2(double x) {
        return Math.round(x * 100) / 100.0;
    }

    public static int countTerms(JsonNode doc) {
        int[] terms = {0};
        Iterator<Map.Entry<String, JsonNode>> it = doc.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (SYSTEM_NOT_INDEXED.contains(e.getKey())) continue;
            walk(e.getValue(), terms);
        }
        return terms[0];
    }

    private static void walk(JsonNode v, int[] terms) {
        if (v.isContainerNode()) {
            if (v.size() == 0) {
                terms[0]++;
                return;
            }
            for (JsonNode c : v) walk(c, terms);
            return;
        }
        terms[0]++;
    }

    public static String text(JsonNode doc) {
        try {
            return JSON.writeValueAsString(doc);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public static double kbOf(JsonNode doc) {
        return text(doc).getBytes(StandardCharsets.UTF_8).length / 1024.0;
    }

    private static double createModel(JsonNode doc, int terms) {
        return 4.6 + 0.6 * kbOf(doc) + 0.38 * terms;
    }

    public static double create(JsonNode doc) {
        return round2(createModel(doc, countTerms(doc)));
    }

    public static double createWithTerms(JsonNode doc, int terms) {
        return round2(createModel(doc, terms));
    }

    public static double replace(JsonNode doc) {
        return round2(1.85 * createModel(doc, countTerms(doc)));
    }

    public static double delete(JsonNode doc) {
        return create(doc);
    }

    public static double read(JsonNode doc) {
        return round2(Math.max(1, 1 + 0.1 * (kbOf(doc) - 1)));
    }

    public static double feed(List<? extends JsonNode> docs) {
        double kb = 0;
        for (JsonNode d : docs) kb += kbOf(d);
        return round2(2.7 + 0.1 * docs.size() + 0.068 * kb);
    }

    /** Asserts a charge (only against the local emulator: a real account charges differently). */
    public static void assertCharge(double actual, double expected, String what) {
        if (!Emulator.LOCAL) return;
        org.junit.jupiter.api.Assertions.assertEquals(expected, actual, 1e-9, what + " request charge");
    }

    public static void assertCharge(double actual, double expected) {
        assertCharge(actual, expected, "");
    }
}
