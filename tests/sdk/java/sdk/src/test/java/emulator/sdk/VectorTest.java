package emulator.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.CosmosVectorDataType;
import com.azure.cosmos.models.CosmosVectorDistanceFunction;
import com.azure.cosmos.models.CosmosVectorEmbedding;
import com.azure.cosmos.models.CosmosVectorEmbeddingPolicy;
import com.azure.cosmos.models.CosmosVectorIndexSpec;
import com.azure.cosmos.models.CosmosVectorIndexType;
import com.azure.cosmos.models.ExcludedPath;
import com.azure.cosmos.models.IndexingPolicy;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import emulator.harness.Raw;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Vector search: a vector embedding policy and vector indexes kept as sent; VectorDistance with each
 * path's distance function; ORDER BY VectorDistance with TOP / OFFSET LIMIT through the SDK's
 * query plan (non-streaming ORDER BY), on one partition and on four.
 */
class VectorTest extends TestBase {
    static final double[][] V = {{0.056419, -0.021141}, {0.066419, -0.031141}, {0.076419, -0.041141}};
    static final double[] Q = {0.056419, -0.021141};

    static double euclidean(double[] v) {
        return Math.sqrt(Math.pow(v[0] - Q[0], 2) + Math.pow(v[1] - Q[1], 2));
    }

    static double dot(double[] v) {
        return v[0] * Q[0] + v[1] * Q[1];
    }

    private static CosmosVectorEmbeddingPolicy policy() {
        CosmosVectorEmbeddingPolicy p = new CosmosVectorEmbeddingPolicy();
        p.setCosmosVectorEmbeddings(List.of(
            new CosmosVectorEmbedding().setPath("/vector1").setDataType(CosmosVectorDataType.FLOAT32).setEmbeddingDimensions(2)
                .setDistanceFunction(CosmosVectorDistanceFunction.EUCLIDEAN),
            new CosmosVectorEmbedding().setPath("/vector2").setDataType(CosmosVectorDataType.FLOAT32).setEmbeddingDimensions(2)
                .setDistanceFunction(CosmosVectorDistanceFunction.DOT_PRODUCT)));
        return p;
    }

    private CosmosContainer vectorContainer(int partitions) {
        String id = uid("vec");
        CosmosContainerProperties props = new CosmosContainerProperties(id, "/pk");
        props.setVectorEmbeddingPolicy(policy());
        props.setIndexingPolicy(new IndexingPolicy()
            .setVectorIndexes(List.of(new CosmosVectorIndexSpec().setPath("/vector1").setType(CosmosVectorIndexType.FLAT.toString()),
                new CosmosVectorIndexSpec().setPath("/vector2").setType(CosmosVectorIndexType.QUANTIZED_FLAT.toString()).setQuantizationSizeInBytes(1)))
            .setExcludedPaths(List.of(new ExcludedPath("/vector1/*"), new ExcludedPath("/vector2/*"))));
        assertEquals(201, db.createContainer(props, ThroughputProperties.createManualThroughput(partitions == 4 ? 24000 : 400)).getStatusCode());
        CosmosContainer c = db.getContainer(id);
        String[] pks = {"a", "b", "c"};
        for (int i = 0; i < 3; i++) c.createItem(obj("id", String.valueOf(i + 1), "pk", pks[i], "vector1", V[i], "vector2", V[i]));
        return c;
    }

    @Test
    void keepsThePolicyAndTheVectorIndexesAsSent() {
        CosmosContainer c = vectorContainer(1);
        JsonNode raw = parse(Raw.request(emu, "GET", "/dbs/" + dbId + "/colls/" + c.getId(), null).body);
        assertEquals(parse("{\"vectorEmbeddings\":[{\"path\":\"/vector1\",\"dataType\":\"float32\",\"dimensions\":2,\"distanceFunction\":\"euclidean\"},"
            + "{\"path\":\"/vector2\",\"dataType\":\"float32\",\"dimensions\":2,\"distanceFunction\":\"dotproduct\"}]}"), raw.get("vectorEmbeddingPolicy"));
        JsonNode idx = raw.get("indexingPolicy").get("vectorIndexes");
        assertEquals(2, idx.size());
        assertEquals("/vector1", idx.get(0).get("path").asText());
        assertEquals("flat", idx.get(0).get("type").asText());
        assertEquals("quantizedFlat", idx.get(1).get("type").asText());
        CosmosVectorEmbeddingPolicy read = c.read().getProperties().getVectorEmbeddingPolicy();
        assertEquals(CosmosVectorDistanceFunction.DOT_PRODUCT, read.getVectorEmbeddings().get(1).getDistanceFunction());
        assertEquals(2L, read.getVectorEmbeddings().get(0).getEmbeddingDimensions().longValue());
    }

    @Test
    void refusesAVectorIndexWhosePathHasNoEmbedding() {
        CosmosContainerProperties props = new CosmosContainerProperties(uid("vec"), "/pk");
        props.setIndexingPolicy(new IndexingPolicy().setVectorIndexes(List.of(new CosmosVectorIndexSpec().setPath("/vector1").setType("flat"))));
        CosmosException e = expectError(400, () -> db.createContainer(props));
        assertTrue(e.getMessage().contains("Vector Indexing Policy's path::/vector1 not matching in Embedding's path")
            || e.getMessage().contains("Vector Indexing Policy's path::\\\\/vector1 not matching in Embedding's path"), e.getMessage());
    }

    @ParameterizedTest(name = "{0} partition(s)")
    @ValueSource(ints = {1, 4})
    void scoresWithEachPathsDistanceFunctionAndOrdersByIt(int partitions) {
        CosmosContainer c = vectorContainer(partitions);
        assertEquals(partitions, c.getFeedRanges().size());
        List<SqlParameter> q = List.of(new SqlParameter("@q", Q));
        SqlQuerySpec sql = new SqlQuerySpec("SELECT c.id, VectorDistance(c.vector1, @q) AS e, VectorDistance(c.vector2, @q) AS d, "
            + "VectorDistance(c.vector1, @q, true, {'distanceFunction': 'DotProduct'}) AS o FROM c", q);
        Map<String, JsonNode> byId = new HashMap<>();
        for (JsonNode r : c.queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class)) byId.put(r.get("id").asText(), r);
        assertEquals(3, byId.size());
        for (int i = 0; i < 3; i++) {
            JsonNode r = byId.get(String.valueOf(i + 1));
            assertEquals(euclidean(V[i]), r.get("e").asDouble(), 1e-15, r.toString());
            assertEquals(dot(V[i]), r.get("d").asDouble(), 1e-15, r.toString());
            assertEquals(dot(V[i]), r.get("o").asDouble(), 1e-15, r.toString());
        }
        assertEquals(0.0, byId.get("1").get("e").asDouble(), 0);
        List<String> near = c.queryItems(new SqlQuerySpec("SELECT VALUE c.id FROM c WHERE VectorDistance(c.vector1, @q) < 0.02", q),
            new CosmosQueryRequestOptions(), String.class).stream().sorted().collect(Collectors.toList());
        assertEquals(List.of("1", "2"), near);
        assertEquals(List.of("1", "2"), ordered(c, "SELECT TOP 2 c.id FROM c ORDER BY VectorDistance(c.vector1, @q)", q));
        assertEquals(List.of("3", "2"), ordered(c, "SELECT TOP 2 c.id FROM c ORDER BY VectorDistance(c.vector2, @q)", q));
        assertEquals(List.of("2", "1"), ordered(c,
            "SELECT c.id FROM c ORDER BY VectorDistance(c.vector1, @q, false, {distanceFunction: 'dotproduct'}) OFFSET 1 LIMIT 2", q));
    }

    private static List<String> ordered(CosmosContainer c, String text, List<SqlParameter> q) {
        return c.queryItems(new SqlQuerySpec(text, q), new CosmosQueryRequestOptions(), JsonNode.class).stream()
            .map(r -> r.get("id").asText()).collect(Collectors.toList());
    }
}
