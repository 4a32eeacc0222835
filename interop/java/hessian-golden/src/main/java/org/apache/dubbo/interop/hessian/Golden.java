package org.apache.dubbo.interop.hessian;

import com.alibaba.com.caucho.hessian.io.Hessian2Input;
import com.alibaba.com.caucho.hessian.io.Hessian2Output;
import com.alibaba.com.caucho.hessian.io.SerializerFactory;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.dubbo.interop.User;

/**
 * Hessian 2 golden files, as described by {@code interop/hessian-cases.md}.
 *
 * <pre>
 *   Golden write DIR   writes every case to DIR/&lt;case&gt;.bin with hessian-lite's Hessian2Output
 *   Golden check DIR   decodes every DIR/&lt;case&gt;.bin that exists and compares it with the table
 * </pre>
 *
 * <p>{@code check} prints {@code PASS <case>} or {@code FAIL <case>: <why>} per file and a last line
 * {@code N passed, N failed}; it exits 1 if anything failed or no file was found.
 *
 * <p>Besides value equality, {@code check} compares the <em>shape</em> of what it decoded (the
 * concrete collection/map/array classes and which objects are shared references) with what Java
 * decodes from its own encoding of the same case, so a file that uses an untyped map where Java
 * writes a typed {@code LinkedHashMap}, or two copies where Java writes a back-reference, fails.
 */
public final class Golden {

    private Golden() {
    }

    // ------------------------------------------------------------------------------------------
    // The case table
    // ------------------------------------------------------------------------------------------

    /** How one value is written. Reading always uses {@code readObject()}. */
    enum How {
        OBJECT, INT, LONG, DOUBLE, UTF
    }

    /** One value of a case: how to write it, what to write, and what decoding must give back. */
    record Val(How how, Object value, Object expected) {
    }

    /** One golden file. */
    record Case(String name, boolean exact, List<Val> values) {
    }

    private static Val obj(Object v) {
        return new Val(How.OBJECT, v, v);
    }

    private static Val objAs(Object v, Object expected) {
        return new Val(How.OBJECT, v, expected);
    }

    private static Val i32(int v) {
        return new Val(How.INT, v, v);
    }

    private static Val i64(long v) {
        return new Val(How.LONG, v, v);
    }

    private static Val f64(double v) {
        return new Val(How.DOUBLE, v, v);
    }

    private static Val utf(String v) {
        return new Val(How.UTF, v, v);
    }

    private static Case c(String name, boolean exact, Val... values) {
        return new Case(name, exact, List.of(values));
    }

    /** {@code str(n)}: the first n chars of "abcdefghij" repeated. */
    static String str(int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append((char) ('a' + i % 10));
        }
        return sb.toString();
    }

    /** {@code bin(n)}: bytes {@code i % 251} for i in 0..n. */
    static byte[] bin(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i % 251);
        }
        return b;
    }

    @SafeVarargs
    private static <T> ArrayList<T> arrayList(T... items) {
        return new ArrayList<>(Arrays.asList(items));
    }

    private static <E extends Throwable> E noStack(E t) {
        t.setStackTrace(new StackTraceElement[0]);
        return t;
    }

    private static Val[] ints(int... vs) {
        return Arrays.stream(vs).mapToObj(Golden::i32).toArray(Val[]::new);
    }

    private static Val[] longs(long... vs) {
        return Arrays.stream(vs).mapToObj(Golden::i64).toArray(Val[]::new);
    }

    private static Val[] doubles(double... vs) {
        return Arrays.stream(vs).mapToObj(Golden::f64).toArray(Val[]::new);
    }

    private static Val[] objs(Object... vs) {
        return Arrays.stream(vs).map(Golden::obj).toArray(Val[]::new);
    }

    /** Builds fresh objects on every call (identity matters for the shared-reference case). */
    static List<Case> cases() {
        List<Case> cs = new ArrayList<>();

        cs.add(c("null", true, obj(null)));
        cs.add(c("bool", true, obj(true), obj(false)));
        cs.add(c("int", true, ints(0, 1, -1, -16, 47, 48, -17, -2048, 2047, 2048, -2049, -262144, 262143,
                262144, -262145, Integer.MIN_VALUE, Integer.MAX_VALUE)));
        cs.add(c("long", true, longs(0, -8, 15, 16, -9, -2048, 2047, 2048, -2049, -262144, 262143, 262144,
                -262145, 2147483647L, -2147483648L, 2147483648L, -2147483649L, Long.MIN_VALUE, Long.MAX_VALUE)));
        // hessian-lite's writeDouble takes the "(int) v == v" shortcut for -0.0 and writes 0x5b
        // (double zero): -0.0 does not survive, it decodes as +0.0.
        List<Val> doubles = new ArrayList<>(Arrays.asList(doubles(0.0, 1.0, 2.0, -128.0, 127.0, -129.0, 128.0,
                -32768.0, 32767.0, 32768.0, 0.1, 12.25, -0.001, 3.14159265358979, 1.0e300)));
        doubles.add(new Val(How.DOUBLE, -0.0, 0.0));
        doubles.addAll(Arrays.asList(doubles(Double.MIN_VALUE, Double.POSITIVE_INFINITY,
                Double.NEGATIVE_INFINITY, 2147483.647, 2147483.648)));
        cs.add(new Case("double", true, List.copyOf(doubles)));
        // hessian-lite writes a Float as writeDouble(Double.parseDouble(String.valueOf(f))), i.e. the
        // double with the float's shortest decimal form: 0.1f decodes as 0.1, not 0.10000000149011612.
        cs.add(c("float", true, objAs(1.5f, 1.5d), objAs(0.1f, 0.1d)));
        cs.add(c("string", true, objs("", "hello", "\u00fc", "\u4e2d\u6587", "\uD83D\uDE00", "a\uD83D\uDE00b",
                str(31), str(32), str(1023), str(1024), str(32768), str(40000))));
        cs.add(c("string_surrogate_chunk", true, obj("a".repeat(32767) + "\uD83D\uDE00")));
        cs.add(c("binary", true, objs(bin(0), bin(3), bin(15), bin(16), bin(1023), bin(1024), bin(40960))));
        cs.add(c("date", true, objs(new Date(0L), new Date(1700000000000L), new Date(1700000000123L),
                new Date(-1000L))));

        ArrayList<Integer> zeroToNine = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            zeroToNine.add(i);
        }
        cs.add(c("list", true, objs(arrayList("a", "b"), new ArrayList<>(), zeroToNine,
                arrayList("x", null, 1, 2L, true), new LinkedList<>(List.of("q")))));

        cs.add(c("set", true, objs(new HashSet<>(Set.of("a")), Collections.emptyList())));
        cs.add(c("array", true, objs(new int[] {1, 2}, new String[] {"x", "y"}, new Object[] {1, "a", null},
                new long[] {1, 2}, new boolean[] {true}, new double[] {1.5}, new int[0])));

        HashMap<String, Integer> m1 = new HashMap<>();
        m1.put("a", 1);
        HashMap<Integer, String> m3 = new HashMap<>();
        m3.put(1, "one");
        LinkedHashMap<String, String> m4 = new LinkedHashMap<>();
        m4.put("x", "1");
        m4.put("y", "2");
        TreeMap<String, Integer> m5 = new TreeMap<>();
        m5.put("b", 2);
        m5.put("a", 1);
        ConcurrentHashMap<String, String> m6 = new ConcurrentHashMap<>();
        m6.put("k", "v");
        HashMap<String, Object> inner = new HashMap<>();
        inner.put("inner", arrayList(1, 2));
        HashMap<String, Object> m7 = new HashMap<>();
        m7.put("outer", inner);
        cs.add(c("map", true, objs(m1, new HashMap<>(), m3, m4, m5, m6, m7)));

        User alice = User.of(7);
        alice.setName("alice");
        cs.add(c("user", true, obj(alice)));
        cs.add(c("users", true, obj(arrayList(User.of(0), User.of(1), User.of(2)))));
        cs.add(c("user_null_fields", true, obj(new User(1L, null, 0, null, null))));
        User u5 = User.of(5);
        cs.add(c("shared_ref", true, obj(arrayList(u5, u5))));

        cs.add(c("exception", true, obj(noStack(new IllegalStateException("boom")))));
        cs.add(c("exception_cause", true,
                obj(noStack(new RuntimeException("outer", noStack(new IllegalArgumentException("inner")))))));

        cs.add(c("bigdecimal", true, objs(new BigDecimal("12.34"), new BigDecimal("1E+3"),
                new BigDecimal("-0.000001"), new BigInteger("123456789012345678901234567890"))));
        cs.add(c("enum", true, objs(TimeUnit.SECONDS, TimeUnit.SECONDS, TimeUnit.MINUTES)));

        HashMap<String, Object> reqAttachments = new HashMap<>();
        reqAttachments.put("path", "org.apache.dubbo.demo.DemoService");
        reqAttachments.put("interface", "org.apache.dubbo.demo.DemoService");
        reqAttachments.put("version", "0.0.0");
        reqAttachments.put("timeout", "3000");
        cs.add(c("say_hello_request", false, utf("2.0.2"), utf("org.apache.dubbo.demo.DemoService"),
                utf("0.0.0"), utf("sayHello"), utf("Ljava/lang/String;"), obj("world"), obj(reqAttachments)));

        HashMap<String, Object> respAttachments = new HashMap<>();
        respAttachments.put("dubbo", "2.0.2");
        cs.add(c("say_hello_response", true, i32(4), obj("Hello world"), obj(respAttachments)));

        cs.add(c("generic_invoke", true, utf("$invoke"),
                utf("Ljava/lang/String;[Ljava/lang/String;[Ljava/lang/Object;"), obj("sayHello"),
                obj(new String[] {"java.lang.String"}), obj(new Object[] {"world"})));
        return cs;
    }

    // ------------------------------------------------------------------------------------------
    // Hessian plumbing
    // ------------------------------------------------------------------------------------------

    /**
     * A fresh SerializerFactory. hessian-lite 4.x has a class allow/deny list (ClassFactory): it
     * is not a whitelist by default, but allow the interop classes explicitly so a future default
     * change (or a stricter deny list) cannot silently turn a User into a HashMap.
     */
    static SerializerFactory factory() {
        SerializerFactory f = new SerializerFactory();
        f.getClassFactory().allow("org.apache.dubbo.interop.*");
        return f;
    }

    static byte[] encode(Case cs) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        Hessian2Output out = new Hessian2Output(bos);
        out.setSerializerFactory(factory());
        for (Val v : cs.values()) {
            switch (v.how()) {
                case INT -> out.writeInt((Integer) v.value());
                case LONG -> out.writeLong((Long) v.value());
                case DOUBLE -> out.writeDouble((Double) v.value());
                // Dubbo's Hessian2ObjectOutput.writeUTF is Hessian2Output.writeString.
                case UTF -> out.writeString((String) v.value());
                case OBJECT -> out.writeObject(v.value());
                default -> throw new IllegalStateException(v.how().toString());
            }
        }
        out.flush();
        return bos.toByteArray();
    }

    /** Decodes {@code count} values with readObject(); reports trailing bytes as an error. */
    static List<Object> decode(byte[] bytes, int count) throws IOException {
        Hessian2Input in = new Hessian2Input(new ByteArrayInputStream(bytes));
        in.setSerializerFactory(factory());
        List<Object> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            try {
                values.add(in.readObject());
            } catch (IOException | RuntimeException e) {
                throw new IOException("value #" + i + ": " + e, e);
            }
        }
        if (!in.isEnd()) {
            throw new IOException("unexpected bytes after the " + count + " expected value(s)");
        }
        return values;
    }

    // ------------------------------------------------------------------------------------------
    // Comparison
    // ------------------------------------------------------------------------------------------

    /** Returns null if {@code actual} deep-equals {@code expected}, else a description. */
    static String diff(Object expected, Object actual, String path) {
        if (expected == null || actual == null) {
            return expected == actual ? null : mismatch(path, expected, actual);
        }
        if (expected instanceof Throwable te) {
            if (!(actual instanceof Throwable ta)) {
                return mismatch(path, expected, actual);
            }
            Throwable x = te;
            Throwable y = ta;
            for (int depth = 0; x != null || y != null; depth++) {
                String where = path + (depth == 0 ? "" : ".cause".repeat(depth));
                if (x == null || y == null || depth > 16) {
                    return mismatch(where, x, y);
                }
                if (!x.getClass().equals(y.getClass())) {
                    return where + ": expected class " + x.getClass().getName() + " got " + y.getClass().getName();
                }
                if (!java.util.Objects.equals(x.getMessage(), y.getMessage())) {
                    return where + ": expected message " + show(x.getMessage()) + " got " + show(y.getMessage());
                }
                try {
                    y.getStackTrace();
                    y.getSuppressed();
                } catch (RuntimeException e) {
                    return where + ": decoded exception is unusable (stackTrace/suppressedExceptions): " + e;
                }
                x = x.getCause();
                y = y.getCause();
            }
            return null;
        }
        if (expected.getClass().isArray()) {
            if (!Arrays.deepEquals(new Object[] {expected}, new Object[] {actual})) {
                return mismatch(path, expected, actual);
            }
            return null;
        }
        if (expected instanceof Date de) {
            if (!(actual instanceof Date da) || de.getTime() != da.getTime()) {
                return mismatch(path, expected, actual);
            }
            return null;
        }
        if (expected instanceof List<?> le) {
            if (!(actual instanceof List<?> la)) {
                return mismatch(path, expected, actual);
            }
            if (le.size() != la.size()) {
                return path + ": expected a list of " + le.size() + " got " + la.size() + ": " + show(actual);
            }
            for (int i = 0; i < le.size(); i++) {
                String d = diff(le.get(i), la.get(i), path + "[" + i + "]");
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (expected instanceof Set<?> se) {
            if (!(actual instanceof Set<?> sa) || !se.equals(sa)) {
                return mismatch(path, expected, actual);
            }
            return null;
        }
        if (expected instanceof Map<?, ?> me) {
            if (!(actual instanceof Map<?, ?> ma)) {
                return mismatch(path, expected, actual);
            }
            if (me.size() != ma.size() || !ma.keySet().containsAll(me.keySet())) {
                return mismatch(path, expected, actual);
            }
            for (Map.Entry<?, ?> e : me.entrySet()) {
                String d = diff(e.getValue(), ma.get(e.getKey()), path + "[" + show(e.getKey()) + "]");
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        // Leaves (String, boxed numbers incl. -0.0/NaN via Double.equals, Boolean, BigDecimal with
        // its scale, BigInteger, enums, User): same class and equals().
        if (!expected.getClass().equals(actual.getClass()) || !expected.equals(actual)) {
            return mismatch(path, expected, actual);
        }
        return null;
    }

    private static String mismatch(String path, Object expected, Object actual) {
        return path + ": expected " + show(expected) + " got " + show(actual);
    }

    static String show(Object o) {
        if (o == null) {
            return "null";
        }
        String s;
        if (o instanceof String str) {
            s = '"' + str + '"';
        } else if (o.getClass().isArray()) {
            s = Arrays.deepToString(new Object[] {o});
            s = s.substring(1, s.length() - 1);
        } else if (o instanceof Date d) {
            s = "Date(" + d.getTime() + ")";
        } else {
            s = String.valueOf(o);
        }
        if (s.length() > 120) {
            s = s.substring(0, 100) + "...(" + s.length() + " chars)";
        }
        String cls = o.getClass().getName();
        return s + " <" + cls + ">";
    }

    /**
     * The structure of decoded values: concrete container classes, and back-references (an object
     * met a second time is written as {@code @n}). Leaf values are compared by {@link #diff}.
     */
    static String shape(Object o, IdentityHashMap<Object, Integer> seen) {
        if (o == null) {
            return "N";
        }
        if (o instanceof String || o instanceof Number || o instanceof Boolean || o instanceof Character
                || o instanceof Date || o instanceof Enum<?>) {
            return o.getClass().getSimpleName();
        }
        Integer ref = seen.get(o);
        if (ref != null) {
            return "@" + ref;
        }
        seen.put(o, seen.size());
        StringBuilder sb = new StringBuilder(o.getClass().getName());
        if (o instanceof Object[] arr) {
            sb.append('[');
            for (Object e : arr) {
                sb.append(shape(e, seen)).append(',');
            }
            sb.append(']');
        } else if (o instanceof Collection<?> col) {
            sb.append('[');
            for (Object e : col) {
                sb.append(shape(e, seen)).append(',');
            }
            sb.append(']');
        } else if (o instanceof Map<?, ?> map) {
            sb.append('{');
            List<Map.Entry<?, ?>> entries = new ArrayList<>(map.entrySet());
            entries.sort((a, b) -> String.valueOf(a.getKey()).compareTo(String.valueOf(b.getKey())));
            for (Map.Entry<?, ?> e : entries) {
                sb.append(shape(e.getKey(), seen)).append('=').append(shape(e.getValue(), seen)).append(',');
            }
            sb.append('}');
        } else if (o instanceof User u) {
            sb.append('(').append(shape(u.getName(), seen)).append(',').append(shape(u.getTags(), seen))
                    .append(',').append(shape(u.getAttrs(), seen)).append(')');
        } else if (o instanceof Throwable t) {
            sb.append("(cause=").append(t.getCause() == null ? "N" : shape(t.getCause(), seen)).append(')');
        }
        return sb.toString();
    }

    static String shape(List<Object> values) {
        IdentityHashMap<Object, Integer> seen = new IdentityHashMap<>();
        StringBuilder sb = new StringBuilder();
        for (Object v : values) {
            sb.append(shape(v, seen)).append(" | ");
        }
        return sb.toString();
    }

    /** Returns null if the file matches the case, else why not. */
    static String check(Case cs, byte[] bytes) {
        List<Object> actual;
        try {
            actual = decode(bytes, cs.values().size());
        } catch (IOException | RuntimeException e) {
            return "decode failed: " + e.getMessage();
        }
        for (int i = 0; i < cs.values().size(); i++) {
            String d = diff(cs.values().get(i).expected(), actual.get(i), "value #" + i);
            if (d != null) {
                return d;
            }
        }
        List<Object> reference;
        try {
            reference = decode(encode(cs), cs.values().size());
        } catch (IOException | RuntimeException e) {
            return "internal error: Java cannot round-trip its own case: " + e;
        }
        String want = shape(reference);
        String got = shape(actual);
        if (!want.equals(got)) {
            return "structure differs from Java's own encoding (container classes / shared refs): expected "
                    + want + " got " + got;
        }
        return null;
    }

    // ------------------------------------------------------------------------------------------
    // Commands
    // ------------------------------------------------------------------------------------------

    static int write(Path dir, PrintStream out) throws IOException {
        Files.createDirectories(dir);
        int n = 0;
        for (Case cs : cases()) {
            Files.write(dir.resolve(cs.name() + ".bin"), encode(cs));
            n++;
        }
        out.println("wrote " + n + " files to " + dir);
        return 0;
    }

    static int check(Path dir, PrintStream out) throws IOException {
        int passed = 0;
        int failed = 0;
        Set<String> known = new LinkedHashSet<>();
        List<String> missing = new ArrayList<>();
        for (Case cs : cases()) {
            known.add(cs.name() + ".bin");
            Path file = dir.resolve(cs.name() + ".bin");
            if (!Files.isRegularFile(file)) {
                missing.add(cs.name());
                continue;
            }
            String why = check(cs, Files.readAllBytes(file));
            if (why == null) {
                out.println("PASS " + cs.name());
                passed++;
            } else {
                out.println("FAIL " + cs.name() + ": " + why);
                failed++;
            }
        }
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                files.map(p -> p.getFileName().toString())
                        .filter(n -> n.endsWith(".bin") && !known.contains(n))
                        .sorted()
                        .forEach(n -> System.err.println("WARN unknown file ignored: " + n));
            }
        }
        if (!missing.isEmpty()) {
            System.err.println("skipped (no file in " + dir + "): " + String.join(", ", missing));
        }
        if (passed + failed == 0) {
            System.err.println("no golden files found in " + dir);
        }
        out.println(passed + " passed, " + failed + " failed");
        return failed == 0 && passed > 0 ? 0 : 1;
    }

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        if (args.length == 2 && "write".equals(args[0])) {
            System.exit(write(Paths.get(args[1]), out));
        } else if (args.length == 2 && "check".equals(args[0])) {
            System.exit(check(Paths.get(args[1]), out));
        } else if (args.length == 1 && "list".equals(args[0])) {
            for (Case cs : cases()) {
                out.println(cs.name() + (cs.exact() ? "" : " (not exact)"));
            }
            System.exit(0);
        } else {
            System.err.println("usage: Golden write DIR | check DIR | list");
            System.exit(2);
        }
    }
}
