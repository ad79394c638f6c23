// Testcontainers for Go against the cosmos-emulator image.
//
// The Go module for the emulator lives at github.com/testcontainers/testcontainers-go/modules/azure/cosmosdb
// (Go module github.com/testcontainers/testcontainers-go/modules/azure), and its users connect with
// github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos. Neither is served by the Go module proxy this
// project can reach (both answer 404 there), so this test cannot import them. It runs instead the
// testcontainers-go library itself (pinned in go.mod), with the options the module's Run passes to
// testcontainers.Run, as its source states them:
//
//	WithExposedPorts("8081/tcp"), WithCmdArgs("--enable-explorer", "false"),
//	WithWaitStrategy(wait.ForAll(wait.ForLog("Started"), wait.ForListeningPort("8081/tcp")))
//
// and the module's ConnectionString ("AccountEndpoint=http://HOST:PORT;AccountKey=KEY;"). Without
// azcosmos, the test speaks the Cosmos DB REST API with master-key signatures (net/http): create a
// database, a container, items, read one, a cross-partition query.
//
//	go test ./...      (tests/docker/modules.sh sets COSMOS_IMAGE, DOCKER_HOST, TESTCONTAINERS_RYUK_DISABLED)
package tcgo

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

const emulatorKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

func image() string {
	if v := os.Getenv("COSMOS_IMAGE"); v != "" {
		return v
	}
	return "cosmos-emulator:test"
}

func tcVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "github.com/testcontainers/testcontainers-go" {
				return d.Version
			}
		}
	}
	return "unknown"
}

// client is a minimal Cosmos DB REST client: master-key authorization, JSON bodies.
type client struct {
	endpoint string
	key      []byte
	http     *http.Client
}

func (c *client) do(t *testing.T, method, resourceType, resourceLink, path string, headers map[string]string, body any) (int, http.Header, []byte) {
	t.Helper()
	var reader io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		reader = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.endpoint+path, reader)
	if err != nil {
		t.Fatal(err)
	}
	date := strings.ToLower(time.Now().UTC().Format(http.TimeFormat))
	payload := strings.ToLower(method) + "\n" + strings.ToLower(resourceType) + "\n" + resourceLink + "\n" + date + "\n\n"
	mac := hmac.New(sha256.New, c.key)
	mac.Write([]byte(payload))
	sig := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	req.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+sig))
	req.Header.Set("x-ms-date", date)
	req.Header.Set("x-ms-version", "2020-07-15")
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, out
}

func expect(t *testing.T, what string, want, got int, body []byte) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: HTTP %d, want %d: %s", what, got, want, body)
	}
}

func TestModuleOptionsStartImageAndRestWritesReadsQueries(t *testing.T) {
	ctx := context.Background()
	t.Logf("testcontainers-go %s, image %s", tcVersion(), image())

	started := time.Now()
	ctr, err := testcontainers.Run(ctx, image(),
		testcontainers.WithExposedPorts("8081/tcp"),
		testcontainers.WithCmdArgs("--enable-explorer", "false"),
		testcontainers.WithWaitStrategy(wait.ForAll(
			wait.ForLog("Started"),
			wait.ForListeningPort("8081/tcp"),
		)),
	)
	testcontainers.CleanupContainer(t, ctr)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("started in %d ms", time.Since(started).Milliseconds())

	// The module's ConnectionString.
	endpoint, err := ctr.PortEndpoint(ctx, "8081/tcp", "http")
	if err != nil {
		t.Fatal(err)
	}
	connString := fmt.Sprintf("AccountEndpoint=%s;AccountKey=%s;", endpoint, emulatorKey)
	t.Logf("connection string: %s", connString)
	parts := map[string]string{}
	for _, kv := range strings.Split(strings.TrimSuffix(connString, ";"), ";") {
		k, v, _ := strings.Cut(kv, "=")
		parts[k] = v
	}
	key, err := base64.StdEncoding.DecodeString(parts["AccountKey"])
	if err != nil {
		t.Fatal(err)
	}
	c := &client{endpoint: strings.TrimSuffix(parts["AccountEndpoint"], "/"), key: key, http: &http.Client{Timeout: 30 * time.Second}}

	status, _, body := c.do(t, "GET", "", "", "/", nil, nil)
	expect(t, "GET / (account)", 200, status, body)

	status, _, body = c.do(t, "POST", "dbs", "", "/dbs", nil, map[string]any{"id": "tcdb"})
	expect(t, "create database", 201, status, body)
	status, _, body = c.do(t, "POST", "colls", "dbs/tcdb", "/dbs/tcdb/colls", nil, map[string]any{
		"id":           "items",
		"partitionKey": map[string]any{"paths": []string{"/pk"}, "kind": "Hash", "version": 2},
	})
	expect(t, "create container", 201, status, body)

	docs := []map[string]any{{"id": "a", "pk": "p1", "n": 1}, {"id": "b", "pk": "p2", "n": 2}, {"id": "c", "pk": "p3", "n": 3}}
	for _, d := range docs {
		pk := fmt.Sprintf(`[%q]`, d["pk"])
		status, _, body = c.do(t, "POST", "docs", "dbs/tcdb/colls/items", "/dbs/tcdb/colls/items/docs",
			map[string]string{"x-ms-documentdb-partitionkey": pk}, d)
		expect(t, fmt.Sprintf("create item %s", d["id"]), 201, status, body)
	}

	status, _, body = c.do(t, "GET", "docs", "dbs/tcdb/colls/items/docs/b", "/dbs/tcdb/colls/items/docs/b",
		map[string]string{"x-ms-documentdb-partitionkey": `["p2"]`}, nil)
	expect(t, "read item", 200, status, body)
	var read map[string]any
	if err := json.Unmarshal(body, &read); err != nil {
		t.Fatal(err)
	}
	if read["pk"] != "p2" || read["n"] != float64(2) {
		t.Fatalf("read item: %s", body)
	}

	// Cross-partition query: no partition key header, all pages followed.
	var ids []string
	continuation := ""
	for page := 0; ; page++ {
		headers := map[string]string{
			"Content-Type":                               "application/query+json",
			"x-ms-documentdb-isquery":                    "True",
			"x-ms-documentdb-query-enablecrosspartition": "True",
		}
		if continuation != "" {
			headers["x-ms-continuation"] = continuation
		}
		status, hdr, body := c.do(t, "POST", "docs", "dbs/tcdb/colls/items", "/dbs/tcdb/colls/items/docs", headers,
			map[string]any{"query": "SELECT c.id, c.n FROM c WHERE c.n >= @min", "parameters": []map[string]any{{"name": "@min", "value": 2}}})
		expect(t, "cross-partition query", 200, status, body)
		var res struct {
			Documents []map[string]any `json:"Documents"`
		}
		if err := json.Unmarshal(body, &res); err != nil {
			t.Fatalf("query body: %v: %s", err, body)
		}
		for _, d := range res.Documents {
			ids = append(ids, fmt.Sprint(d["id"]))
		}
		continuation = hdr.Get("x-ms-continuation")
		if continuation == "" || page > 20 {
			break
		}
	}
	sort.Strings(ids)
	if strings.Join(ids, ",") != "b,c" {
		t.Fatalf("cross-partition query: got %v, want [b c]", ids)
	}

	status, _, body = c.do(t, "DELETE", "dbs", "dbs/tcdb", "/dbs/tcdb", nil, nil)
	expect(t, "delete database", 204, status, body)
}
