package org.apache.dubbo.interop;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Date;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import com.alibaba.dubbo.config.ApplicationConfig;
import com.alibaba.dubbo.config.ReferenceConfig;
import com.alibaba.dubbo.rpc.RpcException;
import com.alibaba.dubbo.rpc.service.EchoService;
import com.alibaba.dubbo.rpc.service.GenericService;

/**
 * A com.alibaba:dubbo 2.6 consumer of InteropService over dubbo:// with a direct URL: the
 * dubbo:// cases of the shared Consumer (same names, same expectations), written against 2.6's
 * API, which the shared source cannot compile against (org.apache.dubbo packages, DubboBootstrap).
 *
 * <pre>
 *   Consumer26 --url dubbo://HOST:PORT [--only CASE,...] [--known-client-bug CASE,...]
 * </pre>
 *
 * <p>Prints {@code PASS NAME} / {@code FAIL NAME: why} per case, then {@code N passed, N failed};
 * exits 0 when nothing failed.
 */
public final class Consumer26 {

    static final String USAGE = "usage: Consumer26 --url dubbo://HOST:PORT [--only CASE,...] [--known-client-bug CASE,...]";
    static final String USER_CLASS = "org.apache.dubbo.interop.User";

    /** A case's failed expectation (as opposed to an unexpected exception). */
    static final class Mismatch extends RuntimeException {
        Mismatch(String message) {
            super(message);
        }
    }

    interface Body {
        void run() throws Exception;
    }

    private final Map<String, Body> cases = new LinkedHashMap<>();
    private InteropService svc;
    private InteropService shortTimeout;
    private InteropService v2;
    private InteropService missingVersion;
    private GenericService generic;

    private Consumer26() {
    }

    public static void main(String[] argv) {
        if (System.getProperty("java.net.preferIPv4Stack") == null) {
            System.setProperty("java.net.preferIPv4Stack", "true");
        }
        Args args = Args.parse(argv, Set.of("url", "only", "known-client-bug"), USAGE);
        String url = args.get("url", null);
        if (url == null || !url.startsWith("dubbo://")) {
            Args.die("--url dubbo://HOST:PORT is required (Dubbo 2.6 has no Triple)", USAGE);
        }
        url = loopbackSafe(url);
        Set<String> only = list(args.get("only", null));
        Set<String> bugs = list(args.get("known-client-bug", null));
        Debug.configureLogging();
        Consumer26 c = new Consumer26();
        int code;
        try {
            c.connect(url);
            c.defineCases();
            code = c.runAll(only, bugs);
        } catch (Throwable t) {
            System.out.println("FAIL setup: " + describe(t));
            System.out.println("0 passed, 1 failed");
            code = 1;
        }
        System.out.flush();
        // Skip Dubbo's shutdown hook (it only delays the exit of a consumer).
        Runtime.getRuntime().halt(code);
    }

    /**
     * Dubbo 2.6 passes a direct URL's host through {@code NetUtils.filterLocalHost}, which turns
     * "127.0.0.1" (any four-part 127.* and "localhost") into the machine's first non-loopback
     * address, and its URL parser cannot read an IPv6 literal such as {@code [::ffff:127.0.0.1]}
     * (the way round the same filter in 3.x). The two-part IPv4 form {@code 127.N} is no match for
     * the filter and Java resolves it to 127.0.0.N, so {@code 127.0.0.N} is rewritten to it.
     */
    static String loopbackSafe(String url) {
        return url.replaceFirst("^dubbo://(?:127\\.0\\.0\\.(\\d{1,3})|localhost)(:\\d+)", "dubbo://127.$1$2")
                .replace("dubbo://127.:", "dubbo://127.1:");
    }

    private static Set<String> list(String csv) {
        if (csv == null) {
            return null;
        }
        return Set.of(csv.split(","));
    }

    private <T> ReferenceConfig<T> reference(ApplicationConfig app, String url, String version, int timeout) {
        ReferenceConfig<T> ref = new ReferenceConfig<>();
        ref.setApplication(app);
        ref.setInterface(InteropService.class);
        ref.setUrl(url);
        ref.setVersion(version);
        ref.setTimeout(timeout);
        ref.setRetries(0); // failover would otherwise retry timeouts and failures twice
        ref.setCheck(false);
        return ref;
    }

    private void connect(String url) {
        ApplicationConfig app = new ApplicationConfig("interop-consumer-java26");
        app.setQosEnable(false);
        ReferenceConfig<InteropService> main = reference(app, url, "1.0.0", 5000);
        ReferenceConfig<InteropService> fast = reference(app, url, "1.0.0", 300);
        ReferenceConfig<InteropService> second = reference(app, url, "2.0.0", 5000);
        ReferenceConfig<InteropService> missing = reference(app, url, "9.9.9", 5000);
        ReferenceConfig<GenericService> gen = new ReferenceConfig<>();
        gen.setApplication(app);
        gen.setInterface(InteropService.class.getName());
        gen.setGeneric(true);
        gen.setUrl(url);
        gen.setVersion("1.0.0");
        gen.setTimeout(5000);
        gen.setRetries(0);
        gen.setCheck(false);
        svc = main.get();
        shortTimeout = fast.get();
        v2 = second.get();
        missingVersion = missing.get();
        generic = gen.get();
    }

    private int runAll(Set<String> only, Set<String> bugs) {
        int passed = 0;
        int failed = 0;
        for (Map.Entry<String, Body> c : cases.entrySet()) {
            String name = c.getKey();
            if (only != null && !only.contains(name)) {
                continue;
            }
            if (bugs != null && bugs.contains(name)) {
                System.out.println("SKIP " + name + ": Java client bug (see docs/protocols.md)");
                continue;
            }
            try {
                c.getValue().run();
                System.out.println("PASS " + name);
                passed++;
            } catch (Mismatch m) {
                System.out.println("FAIL " + name + ": " + m.getMessage());
                failed++;
            } catch (Throwable t) {
                System.out.println("FAIL " + name + ": unexpected exception " + describe(t));
                failed++;
            } finally {
                Compat.clearClientAttachments();
            }
        }
        System.out.println(passed + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }

    static String str(int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append((char) ('a' + i % 10));
        }
        return sb.toString();
    }

    static byte[] bin(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i % 251);
        }
        return b;
    }

    private void add(String name, Body body) {
        cases.put(name, body);
    }

    private void defineCases() {
        add("sayHello", () -> expect("Hello world", svc.sayHello("world")));
        add("sayHello_unicode", () -> expect("Hello \u4e16\u754c \uD83D\uDE00", svc.sayHello("\u4e16\u754c \uD83D\uDE00")));
        add("addInt", () -> {
            expect(3, svc.addInt(1, 2));
            expect(-2, svc.addInt(-5, 3));
            expect(0, svc.addInt(0, 0));
        });
        add("addInt_overflow", () -> {
            expect(Integer.MIN_VALUE, svc.addInt(Integer.MAX_VALUE, 1));
            expect(Integer.MAX_VALUE, svc.addInt(Integer.MIN_VALUE, -1));
        });
        add("echoLong", () -> {
            for (long v : new long[] {0, 1, -1, -8, 15, 16, -2048, 2047, 262143, -262144, 2147483647L,
                    2147483648L, -2147483649L, Long.MIN_VALUE, Long.MAX_VALUE}) {
                expect("echoLong(" + v + ")", v, svc.echoLong(v));
            }
        });
        add("echoDouble", () -> {
            for (double v : new double[] {0.0, 1.0, -1.5, 0.1, 12.25, -0.001, Math.PI, 1.0e300, -1.0e-300,
                    Double.MIN_VALUE, Double.MAX_VALUE, 2147483.648, Double.POSITIVE_INFINITY,
                    Double.NEGATIVE_INFINITY, Double.NaN}) {
                expect("echoDouble(" + v + ")", v, svc.echoDouble(v));
            }
        });
        add("echoBool", () -> {
            expect(true, svc.echoBool(true));
            expect(false, svc.echoBool(false));
        });
        add("echoString", () -> expect("hello", svc.echoString("hello")));
        add("echoString_empty", () -> expect("", svc.echoString("")));
        add("echoString_null", () -> expect(null, svc.echoString(null)));
        add("echoString_unicode", () -> {
            for (String s : new String[] {"\u00fc", "h\u00e9llo w\u00f6rld", "\u4e2d\u6587", "\u0645\u0631\u062d\u0628\u0627",
                    "\u0000nul\u0000", "tab\tnew\nline"}) {
                expect("echoString(" + s + ")", s, svc.echoString(s));
            }
        });
        add("echoString_surrogate_pairs", () -> {
            for (String s : new String[] {"\uD83D\uDE00", "a\uD83D\uDE00b", "\uD834\uDD1E music",
                    "\uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67", "\uD83D\uDE00".repeat(100)}) {
                expect("echoString(" + s + ")", s, svc.echoString(s));
            }
        });
        add("echoString_long", () -> {
            expect("echoString(str(40000))", str(40000), svc.echoString(str(40000)));
            String straddle = "a".repeat(32767) + "\uD83D\uDE00";
            expect("echoString(32767 x 'a' + U+1F600)", straddle, svc.echoString(straddle));
        });
        add("echoBytes", () -> {
            for (byte[] b : new byte[][] {new byte[0], {1, 2, 3}, bin(256), bin(100_000)}) {
                expect("echoBytes(" + b.length + " bytes)", b, svc.echoBytes(b));
            }
        });
        add("echoBytes_null", () -> expect(null, svc.echoBytes(null)));
        add("echoList", () -> {
            expect(List.of("a", "b"), svc.echoList(new ArrayList<>(List.of("a", "b"))));
            expect(List.of(), svc.echoList(new ArrayList<>()));
            List<String> withNull = new ArrayList<>(Arrays.asList("x", null, "\uD83D\uDE00"));
            expect(withNull, svc.echoList(withNull));
        });
        add("echoList_null", () -> expect(null, svc.echoList(null)));
        add("echoMap", () -> {
            Map<String, Integer> m = new HashMap<>();
            m.put("a", 1);
            m.put("b", -2);
            m.put("max", Integer.MAX_VALUE);
            expect(m, svc.echoMap(m));
            expect(Map.of(), svc.echoMap(new HashMap<>()));
        });
        add("echoMap_null", () -> expect(null, svc.echoMap(null)));
        add("echoUser", () -> {
            User u = User.of(3);
            expectUser(u, svc.echoUser(u));
        });
        add("echoUser_null_fields", () -> {
            User u = new User(1L, null, 0, null, null);
            expectUser(u, svc.echoUser(u));
        });
        add("echoUser_null", () -> expect(null, svc.echoUser(null)));
        add("listUsers_0", () -> {
            List<User> users = svc.listUsers(0);
            if (users == null || !users.isEmpty()) {
                throw new Mismatch("expected an empty list got " + users);
            }
        });
        add("listUsers_3", () -> {
            List<User> users = svc.listUsers(3);
            if (users == null || users.size() != 3) {
                throw new Mismatch("expected 3 users got " + users);
            }
            for (int i = 0; i < 3; i++) {
                Object o = users.get(i);
                if (!(o instanceof User)) {
                    throw new Mismatch("users[" + i + "]: expected a User got " + show(o));
                }
                User u = (User) o;
                String at = "users[" + i + "].";
                expect(at + "id", (long) i, u.getId());
                expect(at + "name", "user-" + i, u.getName());
                expect(at + "age", 20 + i % 50, u.getAge());
                expect(at + "tags", List.of("t" + i), u.getTags());
                expect(at + "attrs", Map.of("k", "v" + i), u.getAttrs());
            }
        });
        add("echoDecimal", () -> {
            for (String s : new String[] {"12.34", "1E+3", "-0.000001", "0", "123456789012345678901234567890.5"}) {
                BigDecimal d = new BigDecimal(s);
                expect("echoDecimal(" + s + ")", d, svc.echoDecimal(d));
            }
        });
        add("echoDecimal_null", () -> expect(null, svc.echoDecimal(null)));
        add("echoDate", () -> {
            for (long ms : new long[] {1700000000123L, 1700000000000L, 0L, -1000L}) {
                Date got = svc.echoDate(new Date(ms));
                if (got == null || got.getTime() != ms) {
                    throw new Mismatch("echoDate(" + ms + "): expected millis " + ms + " got "
                            + (got == null ? "null" : got.getTime()));
                }
            }
        });
        add("echoDate_null", () -> expect(null, svc.echoDate(null)));
        add("fail", () -> {
            try {
                svc.fail("boom");
            } catch (Throwable t) {
                Throwable e = t;
                while (e instanceof RpcException && e.getCause() != null && e.getCause() != e) {
                    e = e.getCause();
                }
                if (!(e instanceof IllegalStateException) || !"boom".equals(e.getMessage())) {
                    throw new Mismatch("expected java.lang.IllegalStateException(\"boom\") got " + describe(t));
                }
                return;
            }
            throw new Mismatch("expected java.lang.IllegalStateException(\"boom\") got a normal return");
        });
        add("attachment_request", () -> {
            Compat.setClientAttachment("k1", "v1");
            expect("v1", svc.getAttachment("k1"));
        });
        add("attachment_response", () -> {
            Compat.setClientAttachment("k1", "v1");
            expect("v1", svc.getAttachment("k1"));
            Map<String, String> back = Compat.responseAttachments();
            expect("response attachment echo.k1", "v1", back == null ? null : back.get("echo.k1"));
        });
        add("attachment_missing", () -> expect(null, svc.getAttachment("missing")));
        add("sleep", () -> expect("slept 10", svc.sleep(10)));
        add("timeout", () -> {
            long t0 = System.nanoTime();
            try {
                String r = shortTimeout.sleep(2000);
                throw new Mismatch("expected a timeout RpcException got a normal return " + show(r));
            } catch (RpcException e) {
                long ms = (System.nanoTime() - t0) / 1_000_000;
                if (!e.isTimeout()) {
                    throw new Mismatch("expected RpcException.isTimeout() got code " + e.getCode() + ": " + describe(e));
                }
                if (ms >= 2000) {
                    throw new Mismatch("timed out, but only after " + ms + " ms (timeout 300 ms, sleep 2000 ms)");
                }
            }
        });
        add("generic_sayHello", () -> expect("Hello world",
                generic.$invoke("sayHello", new String[] {"java.lang.String"}, new Object[] {"world"})));
        add("generic_echoUser", () -> {
            Map<String, Object> user = new LinkedHashMap<>();
            user.put("id", 3L);
            user.put("name", "user-3");
            user.put("age", 23);
            user.put("tags", new ArrayList<>(List.of("t3")));
            user.put("attrs", new HashMap<>(Map.of("k", "v3")));
            Object r = generic.$invoke("echoUser", new String[] {USER_CLASS}, new Object[] {user});
            if (!(r instanceof Map)) {
                throw new Mismatch("expected a Map got " + show(r));
            }
            Map<?, ?> m = (Map<?, ?>) r;
            expect("id", 3L, m.get("id"));
            expect("name", "user-3", m.get("name"));
            expect("age", 23, m.get("age"));
            expect("tags", List.of("t3"), m.get("tags"));
            expect("attrs", Map.of("k", "v3"), m.get("attrs"));
            if (m.containsKey("class")) {
                expect("class", USER_CLASS, m.get("class"));
            }
        });
        add("echo_service", () -> expect("ping", ((EchoService) svc).$echo("ping")));
        add("version_2_0_0", () -> expect("Hello v2 world", v2.sayHello("world")));
        add("version_missing", () -> {
            try {
                String r = missingVersion.sayHello("world");
                throw new Mismatch("expected an RpcException got a normal return " + show(r));
            } catch (RpcException e) {
                // refused: what dubbo:// does with an unknown version
            }
        });
    }

    static void expect(Object expected, Object actual) {
        expect(null, expected, actual);
    }

    static void expect(String what, Object expected, Object actual) {
        if (!deepEquals(expected, actual)) {
            throw new Mismatch((what == null ? "" : what + ": ") + "expected " + show(expected) + " got " + show(actual));
        }
    }

    private static void expectUser(User expected, Object actual) {
        if (!(actual instanceof User) || !expected.equals(actual)) {
            throw new Mismatch("echoUser: expected " + expected + " got " + show(actual));
        }
    }

    static boolean deepEquals(Object expected, Object actual) {
        if (expected == null || actual == null) {
            return expected == actual;
        }
        if (expected.getClass().isArray() || actual.getClass().isArray()) {
            return Arrays.deepEquals(new Object[] {expected}, new Object[] {actual});
        }
        if (expected instanceof List<?> le && actual instanceof List<?> la) {
            if (le.size() != la.size()) {
                return false;
            }
            for (int i = 0; i < le.size(); i++) {
                if (!deepEquals(le.get(i), la.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (expected instanceof Map<?, ?> me && actual instanceof Map<?, ?> ma) {
            if (me.size() != ma.size()) {
                return false;
            }
            for (Map.Entry<?, ?> e : me.entrySet()) {
                if (!ma.containsKey(e.getKey()) || !deepEquals(e.getValue(), ma.get(e.getKey()))) {
                    return false;
                }
            }
            return true;
        }
        // Boxed numbers must match in type too (Integer 1 is not Long 1).
        return expected.getClass().equals(actual.getClass()) && Objects.equals(expected, actual);
    }

    static String show(Object o) {
        if (o == null) {
            return "null";
        }
        String s;
        if (o instanceof String str) {
            s = '"' + str + '"';
        } else if (o instanceof byte[] b) {
            s = "byte[" + b.length + "]" + (b.length <= 16 ? Arrays.toString(b) : "");
        } else {
            s = String.valueOf(o);
        }
        if (s.length() > 120) {
            s = s.substring(0, 100) + "...(" + s.length() + " chars)";
        }
        return s + " <" + o.getClass().getName() + ">";
    }

    static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable e = t; e != null && seen.add(e); e = e.getCause()) {
            if (sb.length() > 0) {
                sb.append(" <- caused by ");
            }
            String msg = String.valueOf(e.getMessage());
            int nl = msg.indexOf('\n');
            if (nl >= 0) {
                msg = msg.substring(0, nl) + " ...";
            }
            if (msg.length() > 300) {
                msg = msg.substring(0, 300) + "...";
            }
            sb.append(e.getClass().getName()).append('(').append(msg).append(')');
        }
        return sb.toString();
    }
}
