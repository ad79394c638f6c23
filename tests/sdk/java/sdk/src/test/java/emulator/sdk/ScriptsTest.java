package emulator.sdk;

import static emulator.harness.Charges.METADATA_READ;
import static emulator.harness.Charges.METADATA_WRITE;
import static emulator.harness.Charges.REJECTED_WRITE;
import static emulator.harness.Charges.assertCharge;
import static emulator.harness.Charges.round2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.CosmosStoredProcedureProperties;
import com.azure.cosmos.models.CosmosStoredProcedureRequestOptions;
import com.azure.cosmos.models.CosmosStoredProcedureResponse;
import com.azure.cosmos.models.CosmosTriggerProperties;
import com.azure.cosmos.models.CosmosUserDefinedFunctionProperties;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.TriggerOperation;
import com.azure.cosmos.models.TriggerType;
import com.fasterxml.jackson.databind.JsonNode;
import emulator.harness.Charges;
import emulator.harness.Emulator;
import emulator.harness.Raw;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Stored procedures, triggers and UDFs: resources, execution, transactions, charges, logging. */
class ScriptsTest extends TestBase {
    static final String EXEC = "Encountered exception while executing function. Exception = ";
    private CosmosContainer container;

    @Override
    protected void setUp() {
        container = createContainer("scripts", "/pk");
    }

    private String sproc(String body) {
        String id = uid("sp");
        container.getScripts().createStoredProcedure(new CosmosStoredProcedureProperties(id, body));
        return id;
    }

    private CosmosStoredProcedureResponse run(String id, String pk, Object... args) {
        return container.getScripts().getStoredProcedure(id).execute(new ArrayList<>(List.of(args)),
            new CosmosStoredProcedureRequestOptions().setPartitionKey(new PartitionKey(pk)));
    }

    private JsonNode stored(String id, String pk) {
        return container.readItem(id, new PartitionKey(pk), JsonNode.class).getItem();
    }

    @Test
    void storedProcedureResourcesCreateReadReplaceListDelete() {
        String id = uid("sp");
        String body = "function () { getContext().getResponse().setBody('x'); }";
        CosmosStoredProcedureResponse created = container.getScripts().createStoredProcedure(new CosmosStoredProcedureProperties(id, body));
        assertEquals(201, created.getStatusCode());
        assertEquals(body, created.getProperties().getBody());
        assertCharge(created.getRequestCharge(), METADATA_WRITE);
        JsonNode raw = parse(Raw.request(emu, "GET", "/dbs/" + dbId + "/colls/scripts/sprocs/" + id, null).body);
        assertEquals(List.of("body", "id", "_rid", "_ts", "_self", "_etag"), keys(raw));
        CosmosStoredProcedureResponse read = container.getScripts().getStoredProcedure(id).read();
        assertEquals(200, read.getStatusCode());
        assertEquals(created.getProperties().getETag(), read.getProperties().getETag());
        assertCharge(read.getRequestCharge(), METADATA_READ);
        CosmosException dup = expectError(409, () -> container.getScripts().createStoredProcedure(new CosmosStoredProcedureProperties(id, "function () {}")));
        assertCharge(dup.getRequestCharge(), REJECTED_WRITE);
        String newBody = "function (a) { getContext().getResponse().setBody(a + 1); }";
        // replace takes properties read from the service (the SDK addresses them by their self link)
        CosmosStoredProcedureProperties props = container.getScripts().getStoredProcedure(id).read().getProperties().setBody(newBody);
        CosmosStoredProcedureResponse replaced = container.getScripts().getStoredProcedure(id).replace(props);
        assertEquals(200, replaced.getStatusCode());
        assertEquals(newBody, replaced.getProperties().getBody());
        assertNotEquals(created.getProperties().getETag(), replaced.getProperties().getETag());
        assertEquals("42", run(id, "p", 41).getResponseAsString());
        assertTrue(container.getScripts().readAllStoredProcedures().stream().anyMatch(s -> s.getId().equals(id)));
        assertEquals(1, container.getScripts().queryStoredProcedures("SELECT * FROM s WHERE s.id = '" + id + "'", new CosmosQueryRequestOptions()).stream().count());
        assertEquals(204, container.getScripts().getStoredProcedure(id).delete().getStatusCode());
        CosmosException missing = expectError(404, () -> container.getScripts().getStoredProcedure(id).read());
        assertCharge(missing.getRequestCharge(), METADATA_READ);
        expectError(404, () -> run(id, "p"));
    }

    @Test
    void anEmptySprocAnswers200WithAnEmptyBodyAndCharge5Point2() {
        CosmosStoredProcedureResponse res = run(sproc("function empty() {}"), "p");
        assertEquals(200, res.getStatusCode());
        assertEquals("\"\"", res.getResponseAsString());
        assertCharge(res.getRequestCharge(), 5.2);
        assertTrue(res.getSessionToken().matches("^0:-1#\\d+$"), res.getSessionToken());
    }

    @Test
    void setBodyWithEveryJsonTypeTheLastSetBodyWins() {
        String id = sproc("function echo(x) { getContext().getResponse().setBody('first'); getContext().getResponse().setBody(x); }");
        for (String v : List.of("{\"a\":[1,{\"b\":null}],\"s\":\"é\\\"\\\\\"}", "[1,\"two\",3.5]", "\"hello\"", "\"\"", "42", "-3.25", "0", "true", "false", "null")) {
            CosmosStoredProcedureResponse res = run(id, "p", parse(v));
            assertEquals(parse(v), parse(res.getResponseAsString()), v);
        }
    }

    @Test
    void theChargeIs5Point2Plus0Point35TimesTheStandaloneChargesOfTheScriptsOperations() {
        String pk = uid("charge");
        String id = uid("c");
        String sp = sproc("function createAndRead(id, pk) { const coll = getContext().getCollection();"
            + " coll.createDocument(coll.getSelfLink(), { id, pk, name: 'charged', tags: ['a', 'b', 'c'] }, (err) => { if (err) throw err;"
            + " coll.readDocument(`${coll.getAltLink()}/docs/${id}`, (err2, doc) => { if (err2) throw err2; getContext().getResponse().setBody(doc.id); }); }); }");
        CosmosStoredProcedureResponse res = run(sp, pk, id, pk);
        assertEquals("\"" + id + "\"", res.getResponseAsString());
        JsonNode doc = stored(id, pk);
        assertCharge(res.getRequestCharge(), round2(5.2 + 0.35 * (Charges.create(doc) + Charges.read(doc))));
    }

    @Test
    void aScriptThatCreatesThreeItemsThenThrowsAnswers400AndNoneExist() {
        String pk = uid("tx");
        String sp = sproc("function threeThenThrow(pk) { const coll = getContext().getCollection();"
            + " coll.createDocument(coll.getSelfLink(), { id: 't1', pk }, (e1) => { if (e1) throw e1;"
            + " coll.createDocument(coll.getSelfLink(), { id: 't2', pk }, (e2) => { if (e2) throw e2;"
            + " coll.createDocument(coll.getSelfLink(), { id: 't3', pk }, (e3) => { if (e3) throw e3; throw new Error('boom'); }); }); }); }");
        CosmosException e = expectError(400, () -> run(sp, pk, pk));
        assertTrue(e.getMessage().contains(EXEC + "Error: boom"), e.getMessage());
        for (String id : List.of("t1", "t2", "t3")) expectError(404, () -> stored(id, pk));
    }

    @Test
    void newErrorWithANumberAnswers400WithThatSubstatus() {
        CosmosException e = expectError(400, 1234, () -> run(sproc("function () { throw new Error(1234, 'custom'); }"), "p"));
        assertTrue(e.getMessage().contains("custom"), e.getMessage());
    }

    @Test
    void aBodyThatDoesNotCompileAnswers400WhenExecuted() {
        String id = sproc("function () { This is to create a Compile Error! }");
        CosmosException e = expectError(400, () -> run(id, "p"));
        assertTrue(e.getMessage().contains("Encountered exception while compiling Javascript. Exception = SyntaxError"), e.getMessage());
        assertEquals("1", run(sproc("function ok() { getContext().getResponse().setBody(1); }"), "p").getResponseAsString());
    }

    @Test
    void scriptLoggingReturnsTheConsoleOutputUriEncoded() {
        String id = sproc("function logs(x) { console.log('The value of x is %s.', x); console.log('second line; 100% done');"
            + " getContext().getResponse().setBody('ok'); }");
        CosmosStoredProcedureResponse res = container.getScripts().getStoredProcedure(id).execute(List.of(1),
            new CosmosStoredProcedureRequestOptions().setPartitionKey(new PartitionKey("p")).setScriptLoggingEnabled(true));
        assertEquals("\"ok\"", res.getResponseAsString());
        // the SDK decodes the header (x-ms-documentdb-script-log-results)
        String expected = "The value of x is 1.second line; 100% done";
        String got = res.getScriptLog();
        assertTrue(expected.equals(got) || URLEncoder.encode(expected, StandardCharsets.UTF_8).replace("+", "%20").equals(got), got);
        CosmosStoredProcedureResponse quiet = run(id, "p", 1);
        assertNull(quiet.getScriptLog());
    }

    @Test
    void writesMadeByASprocAppearInTheChangeFeedInOrder() {
        String pk = uid("cf");
        String sp = sproc("function (pk) { const c = getContext().getCollection();"
            + " c.createDocument(c.getSelfLink(), {id:'a', pk}, e => { if (e) throw e; c.createDocument(c.getSelfLink(), {id:'b', pk}, e2 => { if (e2) throw e2; }); }); }");
        run(sp, pk, pk);
        List<JsonNode> feed = ChangeFeedTest.items(ChangeFeedTest.drain(container,
            com.azure.cosmos.models.CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(
                com.azure.cosmos.models.FeedRange.forLogicalPartition(new PartitionKey(pk)))));
        assertEquals(List.of("a", "b"), feed.stream().map(d -> d.get("id").asText()).collect(Collectors.toList()));
        // One transaction, one LSN: a stored procedure's writes commit together, as a batch's do (the
        // .NET SDK's ChangeFeedRequestOptions.PageSizeHint: a transaction's changes come back together).
        assertEquals(feed.get(0).get("_lsn").asLong(), feed.get(1).get("_lsn").asLong());
    }

    private String trigger(String body, TriggerType type, TriggerOperation op) {
        String id = uid("tr");
        container.getScripts().createTrigger(new CosmosTriggerProperties(id, body).setTriggerType(type).setTriggerOperation(op));
        return id;
    }

    @Test
    void triggerResources() {
        String id = uid("tr");
        var res = container.getScripts().createTrigger(new CosmosTriggerProperties(id, "function () {}")
            .setTriggerType(TriggerType.PRE).setTriggerOperation(TriggerOperation.CREATE));
        assertEquals(201, res.getStatusCode());
        JsonNode raw = parse(Raw.request(emu, "GET", "/dbs/" + dbId + "/colls/scripts/triggers/" + id, null).body);
        assertEquals("Pre", raw.get("triggerType").asText());
        assertEquals("Create", raw.get("triggerOperation").asText());
        assertEquals(TriggerType.PRE, container.getScripts().getTrigger(id).read().getProperties().getTriggerType());
        expectError(409, () -> container.getScripts().createTrigger(new CosmosTriggerProperties(id, "function () {}")
            .setTriggerType(TriggerType.PRE).setTriggerOperation(TriggerOperation.CREATE)));
        var replaced = container.getScripts().getTrigger(id).replace(container.getScripts().getTrigger(id).read().getProperties()
            .setBody("function () { }").setTriggerType(TriggerType.POST).setTriggerOperation(TriggerOperation.ALL));
        assertEquals(TriggerType.POST, replaced.getProperties().getTriggerType());
        assertTrue(container.getScripts().readAllTriggers().stream().anyMatch(t -> t.getId().equals(id)));
        assertEquals(204, container.getScripts().getTrigger(id).delete().getStatusCode());
        expectError(404, () -> container.getScripts().getTrigger(id).read());
    }

    @Test
    void aPreTriggerAddsAPropertyChargeIsTheWritePlus5Point2() {
        String t = trigger("function stamp() { const req = getContext().getRequest(); const doc = req.getBody();"
            + " doc.stamp = `pre-${req.getOperationType()}`; req.setBody(doc); }", TriggerType.PRE, TriggerOperation.ALL);
        String pk = uid("pre");
        CosmosItemResponse<JsonNode> created = container.createItem((JsonNode) obj("id", "a", "pk", pk, "v", 1), new PartitionKey(pk),
            new CosmosItemRequestOptions().setPreTriggerInclude(List.of(t)));
        assertEquals(201, created.getStatusCode());
        assertEquals("pre-Create", created.getItem().get("stamp").asText());
        assertEquals("pre-Create", stored("a", pk).get("stamp").asText());
        assertCharge(created.getRequestCharge(), round2(Charges.create(created.getItem()) + 5.2));
        CosmosItemResponse<JsonNode> upserted = container.upsertItem((JsonNode) obj("id", "b", "pk", pk, "v", 1), new PartitionKey(pk),
            new CosmosItemRequestOptions().setPreTriggerInclude(List.of(t)));
        assertEquals("pre-Upsert", upserted.getItem().get("stamp").asText());
        CosmosItemResponse<JsonNode> replaced = container.replaceItem((JsonNode) obj("id", "a", "pk", pk, "v", 3), "a", new PartitionKey(pk),
            new CosmosItemRequestOptions().setPreTriggerInclude(List.of(t)));
        assertEquals("pre-Replace", replaced.getItem().get("stamp").asText());
        assertCharge(replaced.getRequestCharge(), round2(Charges.replace(stored("a", pk)) + 5.2));
        assertFalse(container.createItem((JsonNode) obj("id", "c", "pk", pk)).getItem().has("stamp"), "without the option no trigger runs");
    }

    @Test
    void aPreTriggerThatThrowsAnswers400AndNothingIsWritten() {
        String t = trigger("function () { throw new Error(4321, 'nope'); }", TriggerType.PRE, TriggerOperation.CREATE);
        String pk = uid("pre");
        expectError(400, 4321, () -> container.createItem(obj("id", "x", "pk", pk), new PartitionKey(pk),
            new CosmosItemRequestOptions().setPreTriggerInclude(List.of(t))));
        expectError(404, () -> stored("x", pk));
    }

    @Test
    void aPostTriggerWritesASecondItemInTheSamePartition() {
        String audit = trigger("function audit() { const coll = getContext().getCollection(); const doc = getContext().getResponse().getBody();"
            + " coll.createDocument(coll.getSelfLink(), { id: `${doc.id}-audit`, pk: doc.pk, of: doc._rid }, (err) => { if (err) throw err; }); }",
            TriggerType.POST, TriggerOperation.CREATE);
        String pk = uid("post");
        CosmosItemResponse<JsonNode> res = container.createItem((JsonNode) obj("id", "main", "pk", pk, "v", 1), new PartitionKey(pk),
            new CosmosItemRequestOptions().setPostTriggerInclude(List.of(audit)));
        assertEquals(201, res.getStatusCode());
        JsonNode main = stored("main", pk);
        assertEquals(main, res.getItem());
        JsonNode log = stored("main-audit", pk);
        assertEquals(main.get("_rid").asText(), log.get("of").asText());
        if (Emulator.LOCAL) {
            double own = Charges.create(main);
            double inner = Charges.create(log);
            List<Double> candidates = List.of(round2(own + 5.2 + 0.35 * inner), round2(own + round2(5.2 + 0.35 * inner)));
            assertTrue(candidates.contains(res.getRequestCharge()), res.getRequestCharge() + " not in " + candidates);
        }
        // a post-trigger that throws rolls the write back
        String bad = trigger("function () { throw new Error('post failed'); }", TriggerType.POST, TriggerOperation.ALL);
        expectError(400, () -> container.createItem(obj("id", "rolled", "pk", pk), new PartitionKey(pk),
            new CosmosItemRequestOptions().setPostTriggerInclude(List.of(bad))));
        expectError(404, () -> stored("rolled", pk));
    }

    @Test
    void aTriggerOfTheWrongOperationOrAnUnknownTriggerIsRefused() {
        String onDelete = trigger("function () {}", TriggerType.PRE, TriggerOperation.DELETE);
        String pk = uid("t");
        expectError(400, () -> container.createItem(obj("id", "x", "pk", pk), new PartitionKey(pk),
            new CosmosItemRequestOptions().setPreTriggerInclude(List.of(onDelete))));
        expectError(404, () -> container.createItem(obj("id", "y", "pk", pk), new PartitionKey(pk),
            new CosmosItemRequestOptions().setPreTriggerInclude(List.of("no-such-trigger"))));
        expectError(404, () -> stored("x", pk));
    }

    @Test
    void udfsInQueriesSingleAndCrossPartition() {
        CosmosContainer c = createContainer(uid("udf"), "/pk", 24000);
        c.getScripts().createUserDefinedFunction(new CosmosUserDefinedFunctionProperties("tax", "function tax(income) { return income * 0.1; }"));
        c.getScripts().createUserDefinedFunction(new CosmosUserDefinedFunctionProperties("isEven", "function isEven(doc) { return doc.n % 2 === 0; }"));
        for (int i = 0; i < 8; i++) c.createItem(obj("id", "i" + i, "pk", "p" + i, "n", i, "income", i * 1000));
        List<JsonNode> single = c.queryItems("SELECT c.id, udf.tax(c.income) AS t FROM c",
            new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("p3")), JsonNode.class).stream().collect(Collectors.toList());
        assertEquals(List.of(parse("{\"id\":\"i3\",\"t\":300}")), single);
        List<Double> cross = c.queryItems("SELECT VALUE udf.tax(c.income) FROM c", new CosmosQueryRequestOptions(), JsonNode.class)
            .stream().map(JsonNode::asDouble).sorted().collect(Collectors.toList());
        assertEquals(List.of(0.0, 100.0, 200.0, 300.0, 400.0, 500.0, 600.0, 700.0), cross);
        List<String> evens = c.queryItems("SELECT VALUE c.id FROM c WHERE udf.isEven(c) = true", new CosmosQueryRequestOptions(), String.class)
            .stream().sorted().collect(Collectors.toList());
        assertEquals(List.of("i0", "i2", "i4", "i6"), evens);
        CosmosException unknown = expectError(400, () -> c.queryItems("SELECT VALUE udf.noSuchUdf(c.n) FROM c",
            new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("p1")), JsonNode.class).stream().count());
        assertTrue(unknown.getMessage().contains("SC2005"), unknown.getMessage());
        // resources
        assertEquals(2, c.getScripts().readAllUserDefinedFunctions().stream().count());
        assertEquals(204, c.getScripts().getUserDefinedFunction("tax").delete().getStatusCode());
        expectError(404, () -> c.getScripts().getUserDefinedFunction("tax").read());
    }
}
