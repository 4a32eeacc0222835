package org.apache.dubbo.interop.rest;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * CONTRACT.md §5's REST table checked with {@code java.net.http} (no Dubbo): each row's status,
 * body and headers, one {@code PASS}/{@code FAIL} line per case and a last line
 * {@code N passed, N failed}; exits 0 only if none failed.
 *
 * <pre>
 *   RestCheck http://127.0.0.1:PORT [--http2]
 * </pre>
 *
 * <p>{@code --http2} asks for HTTP/2 (java.net.http upgrades from HTTP/1.1 with h2c; a server
 * that does not upgrade answers over HTTP/1.1).
 */
public final class RestCheck {

    private static int passed;
    private static int failed;

    private RestCheck() {
    }

    public static void main(String[] argv) throws Exception {
        if (argv.length < 1) {
            System.err.println("usage: RestCheck http://HOST:PORT [--http2]");
            System.exit(2);
        }
        String base = argv[0].replaceAll("/+$", "");
        boolean h2 = argv.length > 1 && "--http2".equals(argv[1]);
        HttpClient client = HttpClient.newBuilder()
                .version(h2 ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        String user7 = "{\"id\":7,\"name\":\"user-7\",\"age\":27,\"tags\":[\"t7\"],\"attrs\":{\"k\":\"v7\"}}";

        HttpResponse<String> r = send(client, get(base + "/users/7"));
        check("GET /users/7", r, 200, "^" + Pattern.quote(user7) + "$", "content-type", "application/json.*");

        r = send(client, get(base + "/users?limit=3&prefix=user-1"));
        check("GET /users?limit=3&prefix=user-1", r, 200,
                "^\\[\\{\"id\":1,\"name\":\"user-1\".*\\{\"id\":10,.*\\{\"id\":11,\"name\":\"user-11\",\"age\":31.*\\]$", null, null);

        r = send(client, get(base + "/users"));
        check("GET /users (defaults)", r, 200,
                "^\\[\\{\"id\":0,\"name\":\"user-0\",.*\\{\"id\":9,\"name\":\"user-9\",\"age\":29,\"tags\":\\[\"t9\"\\],\"attrs\":\\{\"k\":\"v9\"\\}\\}\\]$",
                null, null);

        String posted = "{\"id\":42,\"name\":\"new\",\"age\":33,\"tags\":[\"a\"],\"attrs\":{\"x\":\"y\"}}";
        r = send(client, HttpRequest.newBuilder(URI.create(base + "/users"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(posted)).build());
        check("POST /users", r, 201, "^" + Pattern.quote(posted) + "$", "location", "/users/42");

        r = send(client, HttpRequest.newBuilder(URI.create(base + "/users/form"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("id=3&name=bob&age=40")).build());
        check("POST /users/form", r, 200, "^\\{\"id\":3,\"name\":\"bob\",\"age\":40(,\"tags\":null,\"attrs\":null)?\\}$", null, null);

        r = send(client, HttpRequest.newBuilder(URI.create(base + "/users/5/greeting"))
                .header("Accept-Language", "fr").GET().build());
        check("GET /users/5/greeting (fr)", r, 200, "^Bonjour user-5$", "content-type", "text/plain.*");

        r = send(client, get(base + "/users/5/greeting"));
        check("GET /users/5/greeting", r, 200, "^Hello user-5$", "content-type", "text/plain.*");

        r = send(client, get(base + "/users/-3"));
        check("GET /users/-3", r, 404, ".*\"message\":\"no user with id -3\".*", null, null);

        r = send(client, HttpRequest.newBuilder(URI.create(base + "/users/8")).DELETE().build());
        check("DELETE /users/8", r, 204, "^$", null, null);

        String iface = base + "/org.apache.dubbo.interop.InteropService";
        r = send(client, HttpRequest.newBuilder(URI.create(iface + "/sayHello"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("[\"world\"]")).build());
        check("POST InteropService/sayHello [\"world\"]", r, 200, "^\"Hello world\"$", null, null);

        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    private static HttpRequest get(String url) {
        return HttpRequest.newBuilder(URI.create(url)).GET().build();
    }

    private static HttpResponse<String> send(HttpClient client, HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            System.out.println("FAIL " + request.method() + " " + request.uri() + ": " + e);
            failed++;
            return null;
        }
    }

    private static void check(String name, HttpResponse<String> r, int status, String bodyRegex,
            String header, String headerRegex) {
        if (r == null) {
            return;
        }
        String body = r.body() == null ? "" : r.body();
        StringBuilder why = new StringBuilder();
        if (r.statusCode() != status) {
            why.append("status ").append(r.statusCode()).append(" (expected ").append(status).append(") ");
        }
        if (!Pattern.compile(bodyRegex, Pattern.DOTALL).matcher(body).matches()) {
            why.append("body ").append(body.length() > 300 ? body.substring(0, 300) + "..." : body).append(' ');
        }
        if (header != null) {
            String v = r.headers().firstValue(header).orElse("");
            if (!v.matches(headerRegex)) {
                why.append(header).append(": ").append(v).append(' ');
            }
        }
        if (why.length() == 0) {
            System.out.println("PASS " + name + " (" + r.version() + ")");
            passed++;
        } else {
            System.out.println("FAIL " + name + ": " + why.toString().trim());
            failed++;
        }
    }
}
