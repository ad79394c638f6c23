package emulator.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CompositePath;
import com.azure.cosmos.models.CompositePathSortOrder;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.IndexingPolicy;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import emulator.harness.Emulator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * SQL queries through the Java SDK's query pipeline (query plan from the gateway, one query per range,
 * merged in the client) on a container of 4 physical partitions (24,000 RU/s: ceil(RU/6,000) ranges):
 * ORDER BY, TOP, OFFSET LIMIT, aggregates, GROUP BY, DISTINCT, JOIN, parameters, partition-key scoped
 * queries, paging and continuation tokens. Expectations are computed from the same data in Java.
 */
class QueryTest extends TestBase {
    static final String[] PKS = {"alpha", "beta", "gamma", "delta", "epsilon"};
    static final String[] CATS = {"red", "green", "blue"};
    static final int N = 40;

    record Doc(String id, String pk, int n, int x, double f, String cat, List<String> tags) {}

    static final List<Doc> DOCS = IntStream.range(0, N).mapToObj(i -> new Doc(
        String.format("item-%02d", i), PKS[(i * 3) % 5], i, (i * 7) % 11, i / 4.0, CATS[i % 3],
        IntStream.range(0, i % 4).mapToObj(k -> "t" + ((i + k) % 5)).collect(Collectors.toList()))).collect(Collectors.toList());

    private CosmosContainer container;
    private final Map<String, JsonNode> stored = new HashMap<>();

    @Override
    protected void setUp() {
        CosmosContainerProperties p = new CosmosContainerProperties("query", "/pk");
        p.setIndexingPolicy(new IndexingPolicy().setCompositeIndexes(List.of(
            List.of(cp("/x", false), cp("/n", true)),
            List.of(cp("/x", true), cp("/n", true)),
            List.of(cp("/x", false), cp("/f", true)),
            List.of(cp("/cat", true), cp("/n", false)))));
        db.createContainer(p, ThroughputProperties.createManualThroughput(24000));
        container = db.getContainer("query");
        for (Doc d : DOCS) {
            ObjectNode o = obj("id", d.id, "pk", d.pk, "n", d.n, "x", d.x, "f", d.f, "cat", d.cat, "tags", d.tags);
            stored.put(d.id, container.createItem((JsonNode) o).getItem());
        }
    }

    private static CompositePath cp(String path, boolean asc) {
        return new CompositePath().setPath(path).setOrder(asc ? CompositePathSortOrder.ASCENDING : CompositePathSortOrder.DESCENDING);
    }

    private List<JsonNode> all(String sql) {
        return all(new SqlQuerySpec(sql), new CosmosQueryRequestOptions());
    }

    private List<JsonNode> all(SqlQuerySpec spec, CosmosQueryRequestOptions opts) {
        return container.queryItems(spec, opts, JsonNode.class).stream().collect(Collectors.toList());
    }

    /** Numbers as doubles: the SDK's cross-partition aggregators answer longs and doubles. */
    private static List<Double> dbl(List<JsonNode> values) {
        return values.stream().map(JsonNode::asDouble).collect(Collectors.toList());
    }

    private static List<Double> dbl(Number... values) {
        List<Double> out = new ArrayList<>();
        for (Number n : values) out.add(n.doubleValue());
        return out;
    }

    private static List<JsonNode> nodes(List<?> values) {
        return values.stream().map(v -> (JsonNode) JSON.valueToTree(v)).collect(Collectors.toList());
    }

    /** Pages of the query with that page size: every page at most pageSize, the pages add up to the result. */
    private List<FeedResponse<JsonNode>> pages(String sql, int pageSize, CosmosQueryRequestOptions opts, String continuation) {
        List<FeedResponse<JsonNode>> out = new ArrayList<>();
        for (FeedResponse<JsonNode> p : container.queryItems(sql, opts, JsonNode.class).iterableByPage(continuation, pageSize)) {
            assertTrue(p.getResults().size() <= pageSize, "page of " + p.getResults().size() + " > " + pageSize);
            assertTrue(p.getRequestCharge() >= 0);
            out.add(p);
            assertTrue(out.size() <= N + 10, "the iterator terminates");
        }
        return out;
    }

    private static List<JsonNode> flat(List<FeedResponse<JsonNode>> pages) {
        return pages.stream().flatMap(p -> p.getResults().stream()).collect(Collectors.toList());
    }

    @Test
    void theContainerHasFourRanges() {
        assertEquals(4, container.getFeedRanges().size());
    }

    @Test
    void orderByAscReturnsTheWholeItemsInOrder() {
        List<JsonNode> expected = DOCS.stream().sorted(Comparator.comparingInt(Doc::n)).map(d -> stored.get(d.id)).collect(Collectors.toList());
        assertEquals(expected, all("SELECT * FROM c ORDER BY c.n ASC"));
    }

    @Test
    void orderByDesc() {
        assertEquals(nodes(IntStream.range(0, N).map(i -> N - 1 - i).boxed().collect(Collectors.toList())),
            all("SELECT VALUE c.n FROM c ORDER BY c.n DESC"));
    }

    @Test
    void orderByAStringKeyThenANumberKey() {
        List<JsonNode> expected = DOCS.stream()
            .sorted(Comparator.comparing(Doc::cat).thenComparing(Comparator.comparingInt(Doc::n).reversed()))
            .map(d -> (JsonNode) obj("id", d.id, "cat", d.cat)).collect(Collectors.toList());
        assertEquals(expected, all("SELECT c.id, c.cat FROM c ORDER BY c.cat ASC, c.n DESC"));
    }

    @Test
    void orderByTwoNumberKeysWithAFilter() {
        List<JsonNode> expected = DOCS.stream().filter(d -> d.n >= 10)
            .sorted(Comparator.comparingInt(Doc::x).reversed().thenComparingDouble(Doc::f))
            .map(d -> (JsonNode) JSON.valueToTree(List.of(d.x, d.n))).collect(Collectors.toList());
        assertEquals(expected, all("SELECT VALUE [c.x, c.n] FROM c WHERE c.n >= 10 ORDER BY c.x DESC, c.f ASC"));
    }

    @Test
    void topWithAndWithoutOrderBy() {
        assertEquals(nodes(List.of(39, 38, 37, 36, 35)), all("SELECT TOP 5 VALUE c.n FROM c ORDER BY c.n DESC"));
        List<JsonNode> top = all("SELECT TOP 7 * FROM c");
        assertEquals(7, top.size());
        assertEquals(7, top.stream().map(d -> d.get("id").asText()).distinct().count());
        for (JsonNode d : top) assertEquals(stored.get(d.get("id").asText()), d);
        assertEquals(List.of(), all("SELECT TOP 0 * FROM c"));
        assertEquals(N, all("SELECT TOP 1000 VALUE c.id FROM c").size());
    }

    @Test
    void topPagesWithAPageSizeAndStopsAtTop() {
        List<FeedResponse<JsonNode>> p = pages("SELECT TOP 5 VALUE c.n FROM c ORDER BY c.n", 2, new CosmosQueryRequestOptions(), null);
        assertEquals(nodes(List.of(0, 1, 2, 3, 4)), flat(p));
    }

    @Test
    void offsetLimitOverAnOrderedResult() {
        List<String> byX = DOCS.stream().sorted(Comparator.comparingInt(Doc::x).thenComparingInt(Doc::n)).map(Doc::id).collect(Collectors.toList());
        assertEquals(nodes(byX.subList(10, 18)), all("SELECT VALUE c.id FROM c ORDER BY c.x, c.n OFFSET 10 LIMIT 8"));
        assertEquals(nodes(byX.subList(35, 40)), all("SELECT VALUE c.id FROM c ORDER BY c.x, c.n OFFSET 35 LIMIT 10"));
        assertEquals(List.of(), all("SELECT VALUE c.id FROM c ORDER BY c.x, c.n OFFSET 40 LIMIT 10"));
        assertEquals(List.of(), all("SELECT VALUE c.id FROM c ORDER BY c.x, c.n OFFSET 0 LIMIT 0"));
    }

    @Test
    void offsetLimitPagesWithAPageSize() {
        List<FeedResponse<JsonNode>> p = pages("SELECT VALUE c.n FROM c ORDER BY c.n DESC OFFSET 3 LIMIT 10", 4, new CosmosQueryRequestOptions(), null);
        assertEquals(nodes(IntStream.range(0, 10).map(i -> 36 - i).boxed().collect(Collectors.toList())), flat(p));
    }

    @Test
    void valueAggregates() {
        int sumX = DOCS.stream().mapToInt(Doc::x).sum();
        double sumF = DOCS.stream().mapToDouble(Doc::f).sum();
        assertEquals(dbl(N), dbl(all("SELECT VALUE COUNT(1) FROM c")));
        assertEquals(dbl(DOCS.stream().filter(d -> d.cat.equals("red")).count()), dbl(all("SELECT VALUE COUNT(c.id) FROM c WHERE c.cat = 'red'")));
        assertEquals(sumX, all("SELECT VALUE SUM(c.x) FROM c").get(0).asDouble(), 0);
        assertEquals(sumF, all("SELECT VALUE SUM(c.f) FROM c").get(0).asDouble(), 0);
        assertEquals(sumX / (double) N, all("SELECT VALUE AVG(c.x) FROM c").get(0).asDouble(), 0);
        assertEquals(DOCS.stream().mapToInt(Doc::n).sum() / (double) N, all("SELECT VALUE AVG(c.n) FROM c").get(0).asDouble(), 0);
        assertEquals(0.0, all("SELECT VALUE MIN(c.f) FROM c").get(0).asDouble(), 0);
        assertEquals(10, all("SELECT VALUE MAX(c.x) FROM c").get(0).asInt());
        assertEquals(nodes(List.of("item-00")), all("SELECT VALUE MIN(c.id) FROM c"));
        assertEquals(nodes(List.of("red")), all("SELECT VALUE MAX(c.cat) FROM c"));
    }

    @Test
    void aggregatesWithAFilterAndOverNothing() {
        assertEquals(DOCS.stream().filter(d -> d.n >= 30).mapToInt(Doc::n).sum(), all("SELECT VALUE SUM(c.n) FROM c WHERE c.n >= 30").get(0).asInt());
        assertEquals(dbl(0), dbl(all("SELECT VALUE COUNT(1) FROM c WHERE c.n > 1000")));
        assertEquals(0, all("SELECT VALUE SUM(c.n) FROM c WHERE c.n > 1000").get(0).asInt());
        // an undefined aggregate: the Java SDK answers one null (its AggregateQueryTests expect null for AVG/MIN over nothing)
        for (String sql : List.of("SELECT VALUE MAX(c.n) FROM c WHERE c.n > 1000", "SELECT VALUE AVG(c.n) FROM c WHERE c.n > 1000")) {
            List<JsonNode> r = all(sql);
            assertEquals(1, r.size(), sql);
            assertTrue(r.get(0) == null || r.get(0).isNull(), sql + ": " + r);
        }
    }

    @Test
    void nonValueAggregates() {
        List<JsonNode> r = all("SELECT COUNT(1) AS n, SUM(c.x) AS s FROM c");
        assertEquals(1, r.size());
        assertEquals(N, r.get(0).get("n").asInt());
        assertEquals(DOCS.stream().mapToInt(Doc::x).sum(), r.get(0).get("s").asInt());
        List<Doc> beta = DOCS.stream().filter(d -> d.pk.equals("beta")).collect(Collectors.toList());
        List<JsonNode> b = all("SELECT MIN(c.n) AS lo, MAX(c.n) AS hi, AVG(c.f) AS avg FROM c WHERE c.pk = 'beta'");
        assertEquals(1, b.size());
        assertEquals(beta.stream().mapToInt(Doc::n).min().getAsInt(), b.get(0).get("lo").asInt());
        assertEquals(beta.stream().mapToInt(Doc::n).max().getAsInt(), b.get(0).get("hi").asInt());
        assertEquals(beta.stream().mapToDouble(Doc::f).sum() / beta.size(), b.get(0).get("avg").asDouble(), 1e-12);
    }

    @Test
    void anAggregateQueryWithPageSize1AnswersItsOneRow() {
        assertEquals(dbl(N), dbl(flat(pages("SELECT VALUE COUNT(1) FROM c", 1, new CosmosQueryRequestOptions(), null))));
    }

    @Test
    void groupByWithCountAndSum() {
        Map<String, List<Doc>> g = DOCS.stream().collect(Collectors.groupingBy(Doc::cat, TreeMap::new, Collectors.toList()));
        List<String> expected = g.entrySet().stream().map(e -> e.getKey() + "|" + (double) e.getValue().size() + "|"
            + (double) e.getValue().stream().mapToInt(Doc::x).sum()).collect(Collectors.toList());
        List<JsonNode> got = all("SELECT c.cat, COUNT(1) AS n, SUM(c.x) AS s FROM c GROUP BY c.cat");
        assertEquals(expected, got.stream().map(r -> r.get("cat").asText() + "|" + r.get("n").asDouble() + "|" + r.get("s").asDouble())
            .sorted().collect(Collectors.toList()));
        for (JsonNode r : got) assertEquals(List.of("cat", "n", "s"), keys(r));
    }

    @Test
    void groupByTwoKeysWithAFilter() {
        Map<String, Integer> totals = new TreeMap<>();
        for (Doc d : DOCS) if (d.n < 30) totals.merge(d.pk + "|" + d.cat, d.n, Integer::sum);
        List<JsonNode> got = all("SELECT c.pk, c.cat, SUM(c.n) AS total FROM c WHERE c.n < 30 GROUP BY c.pk, c.cat");
        Map<String, Integer> gotTotals = new TreeMap<>();
        for (JsonNode r : got) gotTotals.put(r.get("pk").asText() + "|" + r.get("cat").asText(), r.get("total").asInt());
        assertEquals(totals, gotTotals);
        assertEquals(totals.size(), got.size());
    }

    @Test
    void selectValueOfAGroupKeyAndGroupByPages() {
        Set<String> got = all("SELECT VALUE c.pk FROM c GROUP BY c.pk").stream().map(JsonNode::asText).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(new TreeSet<>(List.of(PKS)), got);
        List<JsonNode> paged = flat(pages("SELECT c.pk, COUNT(1) AS n FROM c GROUP BY c.pk", 1, new CosmosQueryRequestOptions(), null));
        Map<String, Integer> counts = new TreeMap<>();
        for (JsonNode r : paged) counts.put(r.get("pk").asText(), r.get("n").asInt());
        Map<String, Integer> expected = new TreeMap<>();
        for (Doc d : DOCS) expected.merge(d.pk, 1, Integer::sum);
        assertEquals(expected, counts);
        assertEquals(5, paged.size());
    }

    @Test
    void distinct() {
        List<String> cats = all("SELECT DISTINCT c.cat FROM c").stream().map(n -> n.get("cat").asText()).sorted().collect(Collectors.toList());
        assertEquals(List.of("blue", "green", "red"), cats);
        // every x from 0 to 10, 0 included
        List<Integer> xs = all("SELECT DISTINCT VALUE c.x FROM c").stream().map(JsonNode::asInt).sorted().collect(Collectors.toList());
        assertEquals(IntStream.rangeClosed(0, 10).boxed().collect(Collectors.toList()), xs);
        assertEquals(nodes(IntStream.rangeClosed(0, 10).map(i -> 10 - i).boxed().collect(Collectors.toList())),
            all("SELECT DISTINCT VALUE c.x FROM c ORDER BY c.x DESC"));
        Set<String> expected = DOCS.stream().map(d -> d.pk + "|" + d.cat).collect(Collectors.toCollection(TreeSet::new));
        List<JsonNode> paged = flat(pages("SELECT DISTINCT c.pk, c.cat FROM c", 2, new CosmosQueryRequestOptions(), null));
        List<String> got = paged.stream().map(r -> r.get("pk").asText() + "|" + r.get("cat").asText()).sorted().collect(Collectors.toList());
        assertEquals(new ArrayList<>(expected), got);
    }

    @Test
    void joinOverAnArray() {
        Set<String> pairs = new TreeSet<>();
        for (Doc d : DOCS) for (String t : d.tags) pairs.add(d.id + "|" + t);
        List<JsonNode> got = all("SELECT c.id, t AS tag FROM c JOIN t IN c.tags");
        assertEquals(pairs.size(), got.size());
        assertEquals(pairs, got.stream().map(r -> r.get("id").asText() + "|" + r.get("tag").asText()).collect(Collectors.toCollection(TreeSet::new)));
        long t0 = DOCS.stream().mapToLong(d -> d.tags.stream().filter("t0"::equals).count()).sum();
        assertEquals(dbl(t0), dbl(all("SELECT VALUE COUNT(1) FROM c JOIN t IN c.tags WHERE t = 't0'")));
    }

    @Test
    void parameters() {
        SqlQuerySpec spec = new SqlQuerySpec("SELECT VALUE c.id FROM c WHERE c.cat = @cat AND c.n >= @min ORDER BY c.n",
            List.of(new SqlParameter("@cat", "blue"), new SqlParameter("@min", 20)));
        List<String> expected = DOCS.stream().filter(d -> d.cat.equals("blue") && d.n >= 20).map(Doc::id).collect(Collectors.toList());
        assertEquals(nodes(expected), all(spec, new CosmosQueryRequestOptions()));
        SqlQuerySpec arr = new SqlQuerySpec("SELECT TOP @k VALUE c.n FROM c WHERE ARRAY_CONTAINS(@ns, c.n) ORDER BY c.n",
            List.of(new SqlParameter("@k", 2), new SqlParameter("@ns", List.of(5, 7, 9))));
        assertEquals(nodes(List.of(5, 7)), all(arr, new CosmosQueryRequestOptions()));
    }

    @Test
    void partitionKeyScopedQueries() {
        for (String pk : PKS) {
            List<String> expected = DOCS.stream().filter(d -> d.pk.equals(pk)).map(Doc::id).sorted().collect(Collectors.toList());
            List<String> got = all(new SqlQuerySpec("SELECT VALUE c.id FROM c"), new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey(pk)))
                .stream().map(JsonNode::asText).sorted().collect(Collectors.toList());
            assertEquals(expected, got, pk);
        }
        assertEquals(List.of(), all(new SqlQuerySpec("SELECT * FROM c"), new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("nobody"))));
        List<FeedResponse<JsonNode>> p = pages("SELECT * FROM c", 3, new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("alpha")), null);
        assertEquals(DOCS.stream().filter(d -> d.pk.equals("alpha")).count(), flat(p).size());
    }

    @Test
    void readAllItems() {
        assertEquals(N, container.readAllItems(new PartitionKey("alpha"), JsonNode.class).stream().count()
            + container.readAllItems(new PartitionKey("beta"), JsonNode.class).stream().count()
            + container.readAllItems(new PartitionKey("gamma"), JsonNode.class).stream().count()
            + container.readAllItems(new PartitionKey("delta"), JsonNode.class).stream().count()
            + container.readAllItems(new PartitionKey("epsilon"), JsonNode.class).stream().count());
        assertEquals(N, all("SELECT * FROM c").size());
    }

    @Test
    void orderByResumesFromAContinuationTokenInANewIterator() {
        String sql = "SELECT c.id, c.n FROM c ORDER BY c.n";
        FeedResponse<JsonNode> first = container.queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class).iterableByPage(5).iterator().next();
        assertEquals(5, first.getResults().size());
        String token = first.getContinuationToken();
        assertNotNull(token, "an ORDER BY page before the end has a continuation");
        List<JsonNode> rest = flat(pages(sql, 5, new CosmosQueryRequestOptions(), token));
        List<Integer> ns = new ArrayList<>();
        for (JsonNode r : first.getResults()) ns.add(r.get("n").asInt());
        for (JsonNode r : rest) ns.add(r.get("n").asInt());
        assertEquals(IntStream.range(0, N).boxed().collect(Collectors.toList()), ns);
    }

    @Test
    void aStreamingQueryResumesExactlyWhereTheFirstPageEnded() {
        String sql = "SELECT VALUE c.id FROM c";
        FeedResponse<JsonNode> first = container.queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class).iterableByPage(7).iterator().next();
        assertTrue(first.getResults().size() <= 7);
        String token = first.getContinuationToken();
        assertNotNull(token);
        List<String> ids = new ArrayList<>();
        for (JsonNode r : first.getResults()) ids.add(r.asText());
        for (JsonNode r : flat(pages(sql, 7, new CosmosQueryRequestOptions(), token))) ids.add(r.asText());
        assertEquals(N, ids.size(), "every item once: " + ids);
        assertEquals(DOCS.stream().map(Doc::id).sorted().collect(Collectors.toList()), ids.stream().sorted().collect(Collectors.toList()));
    }

    @Test
    void aPartitionKeyScopedQueryResumesWithinThePartition() {
        CosmosQueryRequestOptions o = new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("gamma"));
        String sql = "SELECT VALUE c.n FROM c ORDER BY c.n";
        FeedResponse<JsonNode> first = container.queryItems(sql, o, JsonNode.class).iterableByPage(3).iterator().next();
        assertEquals(3, first.getResults().size());
        List<Integer> ns = new ArrayList<>();
        for (JsonNode r : first.getResults()) ns.add(r.asInt());
        for (JsonNode r : flat(pages(sql, 3, new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("gamma")), first.getContinuationToken()))) ns.add(r.asInt());
        assertEquals(DOCS.stream().filter(d -> d.pk.equals("gamma")).map(Doc::n).collect(Collectors.toList()), ns);
    }

    @Test
    void queryErrorsAnswer400() {
        CosmosException e = expectError(400, () -> all("SELECT * FROM c WHERE"));
        assertTrue(e.getMessage().contains("Syntax error"), e.getMessage());
        CosmosException u = expectError(400, () -> all("SELECT nope(c.id) FROM c"));
        assertTrue(u.getMessage().contains("SC2005"), u.getMessage());
    }

    @Test
    void anInvalidContinuationTokenAnswers400() {
        if (!Emulator.LOCAL) return;
        CosmosQueryRequestOptions o = new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("alpha"));
        expectError(400, () -> container.queryItems("SELECT * FROM c", o, JsonNode.class).iterableByPage("garbage", 5).iterator().next());
    }

    @Test
    void queryMetricsAndIndexMetricsComeBackWhenAsked() {
        CosmosQueryRequestOptions o = new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("alpha")).setQueryMetricsEnabled(true);
        FeedResponse<JsonNode> p = container.queryItems("SELECT * FROM c WHERE c.n > 3", o, JsonNode.class).iterableByPage(100).iterator().next();
        assertNotNull(header(p.getResponseHeaders(), "x-ms-documentdb-query-metrics"));
        assertNull(null);
        assertFalse(p.getResults().isEmpty());
        Set<String> seen = new LinkedHashSet<>();
        for (JsonNode r : p.getResults()) seen.add(r.get("pk").asText());
        assertEquals(Set.of("alpha"), seen);
    }

    @SuppressWarnings("unused")
    private static <T> Map<String, T> index(List<T> l, Function<T, String> key) {
        Map<String, T> m = new HashMap<>();
        for (T t : l) m.put(key.apply(t), t);
        return m;
    }
}
