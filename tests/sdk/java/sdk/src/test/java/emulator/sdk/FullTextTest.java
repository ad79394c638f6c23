package emulator.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosFullTextIndex;
import com.azure.cosmos.models.CosmosFullTextPath;
import com.azure.cosmos.models.CosmosFullTextPolicy;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.CosmosVectorDataType;
import com.azure.cosmos.models.CosmosVectorDistanceFunction;
import com.azure.cosmos.models.CosmosVectorEmbedding;
import com.azure.cosmos.models.CosmosVectorEmbeddingPolicy;
import com.azure.cosmos.models.IndexingPolicy;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import emulator.harness.Raw;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Full-text search: the policy and full-text indexes kept as sent and checked with the service's
 * messages; FullTextContains/All/Any and COUNTIF; ORDER BY RANK FullTextScore and RRF hybrid search
 * as the SDK drives them (the hybrid query plan, global statistics over every range, fused ranks).
 */
class FullTextTest extends TestBase {
    static final Object[][] DOCS = {
        {"1", "a", "I like to swim", new double[] {1, 0}},
        {"2", "b", "I like to run", new double[] {0, 1}},
        {"3", "c", "I like to swim and run", new double[] {0.7, 0.7}},
        {"4", "d", "Swimmers swim; swimming is what swimmers do", new double[] {0.9, 0.1}},
        {"5", "e", "Nothing here", new double[] {-1, 0}},
    };

    private static CosmosFullTextPolicy policy() {
        return new CosmosFullTextPolicy().setDefaultLanguage("en-US")
            .setPaths(List.of(new CosmosFullTextPath().setPath("/text").setLanguage("en-US")));
    }

    private CosmosContainer textContainer(int partitions) {
        String id = uid("fts");
        CosmosContainerProperties props = new CosmosContainerProperties(id, "/pk");
        props.setFullTextPolicy(policy());
        props.setIndexingPolicy(new IndexingPolicy().setCosmosFullTextIndexes(List.of(new CosmosFullTextIndex().setPath("/text"))));
        CosmosVectorEmbeddingPolicy v = new CosmosVectorEmbeddingPolicy();
        v.setCosmosVectorEmbeddings(List.of(new CosmosVectorEmbedding().setPath("/v").setDataType(CosmosVectorDataType.FLOAT32)
            .setEmbeddingDimensions(2).setDistanceFunction(CosmosVectorDistanceFunction.COSINE)));
        props.setVectorEmbeddingPolicy(v);
        db.createContainer(props, ThroughputProperties.createManualThroughput(partitions == 4 ? 24000 : 400));
        CosmosContainer c = db.getContainer(id);
        for (Object[] d : DOCS) c.createItem(obj("id", d[0], "pk", d[1], "text", d[2], "v", d[3]));
        return c;
    }

    private static List<String> ids(CosmosContainer c, SqlQuerySpec q, CosmosQueryRequestOptions o) {
        return c.queryItems(q, o, JsonNode.class).stream().map(r -> r.get("id").asText()).collect(Collectors.toList());
    }

    private static List<String> ids(CosmosContainer c, String q) {
        return ids(c, new SqlQuerySpec(q), new CosmosQueryRequestOptions());
    }

    // A query the SDK runs through its hybrid-search pipeline (ORDER BY RANK). That pipeline fills
    // ArrayLists from more than one thread (its document producers and component results), and now
    // and then throws ArrayIndexOutOfBoundsException "Index 1 out of bounds for length 0" from inside
    // the SDK, the signature of two threads adding to one empty ArrayList, whatever the emulator
    // answered (seen once in ten runs of this class here). Such a query is asked once more then; an
    // answer the SDK cannot read fails both times.
    private static List<String> rankedIds(CosmosContainer c, SqlQuerySpec q) {
        try {
            return ids(c, q, new CosmosQueryRequestOptions());
        } catch (ArrayIndexOutOfBoundsException sdkRace) {
            return ids(c, q, new CosmosQueryRequestOptions());
        }
    }

    private static List<String> rankedIds(CosmosContainer c, String q) {
        return rankedIds(c, new SqlQuerySpec(q));
    }

    @Test
    void keepsThePolicyAndTheFullTextIndexesAsSent() {
        CosmosContainer c = textContainer(1);
        JsonNode raw = parse(Raw.request(emu, "GET", "/dbs/" + dbId + "/colls/" + c.getId(), null).body);
        assertEquals(parse("{\"defaultLanguage\":\"en-US\",\"fullTextPaths\":[{\"path\":\"/text\",\"language\":\"en-US\"}]}"), raw.get("fullTextPolicy"));
        assertEquals(parse("[{\"path\":\"/text\"}]"), raw.get("indexingPolicy").get("fullTextIndexes"));
        assertEquals("en-US", c.read().getProperties().getFullTextPolicy().getDefaultLanguage());
    }

    private void bad(Consumer<CosmosContainerProperties> def, String text) {
        CosmosContainerProperties p = new CosmosContainerProperties(uid("bad"), "/pk");
        def.accept(p);
        CosmosException e = expectError(400, () -> db.createContainer(p));
        assertTrue(e.getMessage().contains(text), e.getMessage());
    }

    @Test
    void refusesBadPoliciesWithTheServicesMessages() {
        // (a path without a leading '/' the SDK refuses itself: CosmosFullTextPath.setPath)
        bad(p -> p.setFullTextPolicy(new CosmosFullTextPolicy().setDefaultLanguage("spa-SPA").setPaths(new ArrayList<>())),
            "The Full Text Policy contains an unsupported language spa-SPA. Supported languages are:");
        bad(p -> p.setIndexingPolicy(new IndexingPolicy().setCosmosFullTextIndexes(List.of(new CosmosFullTextIndex().setPath("/path")))),
            "The path of the Full Text Index /path does not match the path specified in the Full Text Policy");
    }

    @Test
    void filtersWithFullTextContainsAllAnyAndCountsWithCountIf() {
        CosmosContainer c = textContainer(1);
        assertEquals(List.of("1", "3", "4"), ids(c, "SELECT c.id FROM c WHERE FullTextContains(c.text, 'SWIMMING') ORDER BY c.id"));
        assertEquals(List.of("3"), ids(c, "SELECT c.id FROM c WHERE FullTextContainsAll(c.text, 'swim', 'run') ORDER BY c.id"));
        assertEquals(List.of("2", "3", "4"), ids(c, "SELECT c.id FROM c WHERE FullTextContainsAny(c.text, 'runs', 'swimmer') ORDER BY c.id"));
        // (COUNTIF is not asserted here: see /work/notes/java-findings.md, the query plan names an aggregate "CountIf"
        // that azure-cosmos 4.81's pipeline does not know)
        assertEquals(List.of("1"), ids(c, new SqlQuerySpec("SELECT c.id FROM c WHERE FullTextContains(c.text, 'swim')"),
            new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("a"))));
    }

    @ParameterizedTest(name = "{0} partition(s)")
    @ValueSource(ints = {1, 4})
    void ranksByFullTextScoreAndByRrfWithVectors(int partitions) {
        CosmosContainer c = textContainer(partitions);
        List<String> ranked = rankedIds(c, "SELECT TOP 10 c.id FROM c ORDER BY RANK FullTextScore(c.text, 'swim')");
        assertEquals(5, ranked.size(), ranked.toString());
        // doc 4 says swim three times; 1 is shorter than 3; 2 and 5 score 0 (a tie)
        assertEquals(List.of("4", "1", "3"), ranked.subList(0, 3));
        assertEquals(List.of("2", "5"), ranked.subList(3, 5).stream().sorted().collect(Collectors.toList()));
        SqlQuerySpec rrf = new SqlQuerySpec("SELECT TOP 3 c.id FROM c WHERE FullTextContains(c.text, 'swim') "
            + "ORDER BY RANK RRF(FullTextScore(c.text, 'swim'), VectorDistance(c.v, @v))", List.of(new SqlParameter("@v", new double[] {1, 0})));
        // 4 and 1 tie under RRF (ranks 1+2 and 2+1 with the same k): either order is right
        List<String> fused = rankedIds(c, rrf);
        assertEquals(List.of("1", "4"), fused.subList(0, 2).stream().sorted().collect(Collectors.toList()), fused.toString());
        assertEquals("3", fused.get(2));
        assertEquals(List.of("3", "1", "4"), rankedIds(c, "SELECT c.id FROM c WHERE FullTextContains(c.text, 'swim') "
            + "ORDER BY RANK RRF(FullTextScore(c.text, 'swim'), FullTextScore(c.text, 'swim'), [-1, -1]) OFFSET 0 LIMIT 3"));
    }
}
