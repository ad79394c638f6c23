package emulator.harness;

import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Master-key signed REST requests (docs/protocol.md §2), for what the SDK cannot send. */
public final class Raw {
    private Raw() {}

    private static HttpClient http;

    private static synchronized HttpClient http() {
        if (http == null) {
            http = HttpClient.newBuilder().sslContext(Trust.sslContext()).connectTimeout(Duration.ofSeconds(10)).build();
        }
        return http;
    }

    public static final class Response {
        public final int status;
        public final Map<String, List<String>> headers;
        public final String body;

        Response(int status, Map<String, List<String>> headers, String body) {
            this.status = status;
            this.headers = headers;
            this.body = body;
        }

        public String header(String name) {
            for (Map.Entry<String, List<String>> e : headers.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) return e.getValue().get(0);
            }
            return null;
        }

        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    public static String rfc1123Now() {
        return DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
    }

    /** {type, link} of a path as the service derives them. */
    public static String[] resourceAddress(String path) {
        String p = path.split("\\?")[0];
        List<String> segs = new ArrayList<>();
        for (String s : p.split("/")) if (!s.isEmpty()) segs.add(URLDecoder.decode(s, StandardCharsets.UTF_8));
        if (segs.isEmpty()) return new String[] {"", ""};
        if (segs.size() % 2 == 0) return new String[] {segs.get(segs.size() - 2), String.join("/", segs)};
        return new String[] {segs.get(segs.size() - 1), String.join("/", segs.subList(0, segs.size() - 1))};
    }

    public static String signature(String key, String verb, String type, String link, String date) {
        try {
            String text = verb.toLowerCase(Locale.ROOT) + "\n" + type.toLowerCase(Locale.ROOT) + "\n" + link + "\n"
                + date.toLowerCase(Locale.ROOT) + "\n\n";
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(Base64.getDecoder().decode(key), "HmacSHA256"));
            String sig = Base64.getEncoder().encodeToString(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
            return java.net.URLEncoder.encode("type=master&ver=1.0&sig=" + sig, StandardCharsets.UTF_8);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public static Response request(Emulator emu, String method, String path, String body) {
        return request(emu, method, path, body, Map.of(), null);
    }

    /** A signed request; {@code sign} overrides {type, link}; null = derived from the path. */
    public static Response request(Emulator emu, String method, String path, String body,
                                   Map<String, String> extraHeaders, String[] sign) {
        String date = rfc1123Now();
        String[] addr = sign != null ? sign : resourceAddress(path);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("x-ms-version", "2020-07-15");
        headers.put("x-ms-date", date);
        headers.put("accept", "application/json");
        headers.put("authorization", signature(emu.key, method, addr[0], addr[1], date));
        if (body != null) headers.put("content-type", "application/json");
        headers.putAll(extraHeaders);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(emu.endpoint + path)).timeout(Duration.ofSeconds(60));
        for (Map.Entry<String, String> h : headers.entrySet()) b.header(h.getKey(), h.getValue());
        b.method(method.toUpperCase(Locale.ROOT),
            body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        try {
            HttpResponse<String> r = http().send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(r.statusCode(), r.headers().map(), r.body());
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + path + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** An unsigned GET (open endpoints such as /_emulator/clock, /_explorer/emulator.pem). */
    public static Response get(Emulator emu, String path) {
        HttpRequest r = HttpRequest.newBuilder(URI.create(emu.endpoint + path)).timeout(Duration.ofSeconds(30)).GET().build();
        try {
            HttpResponse<String> res = http().send(r, HttpResponse.BodyHandlers.ofString());
            return new Response(res.statusCode(), res.headers().map(), res.body());
        } catch (IOException e) {
            throw new IllegalStateException("GET " + path + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Splits a container's ranges (docs/faults.md): {} = every live range once, or one range id. */
    public static Response split(Emulator emu, String db, String coll, String rangeId) {
        String path = "/_emulator/containers/" + enc(db) + "/" + enc(coll) + "/split";
        String body = rangeId == null ? "{}" : "{\"partitionKeyRangeId\":\"" + rangeId + "\"}";
        return request(emu, "POST", path, body, Map.of(), new String[] {"split", "_emulator/containers/" + db + "/" + coll});
    }

    public static String enc(String s) {
        return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
