package org.apache.dubbo.interop.fastjson2;

import com.alibaba.fastjson2.JSONB;
import com.alibaba.fastjson2.JSONReader;
import com.alibaba.fastjson2.JSONWriter;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.dubbo.interop.User;

/**
 * fastjson2 JSONB golden files for dubbo-rs (crates/fastjson2/tests/golden.rs).
 *
 * <pre>
 *   Golden write DIR   writes DIR/java-CASE.bin for every case
 *   Golden check DIR   reads DIR/rust-CASE.bin for every case and compares it with the case's value
 * </pre>
 *
 * Each file is one value as Java Dubbo 3.2's FastJson2ObjectOutput frames it: a 4-byte big-endian
 * length, then JSONB.toBytes(value, features) with the writer features Dubbo passes; reading
 * uses the reader features FastJson2ObjectInput passes (readObject(Object.class)), with an
 * auto-type filter that admits the contract's classes as Dubbo's security manager does.
 */
public final class Golden {

    /** JSONWriter features of Dubbo 3.2/3.3 FastJson2ObjectOutput.writeObject. */
    static final JSONWriter.Feature[] WRITE = {
        JSONWriter.Feature.WriteClassName,
        JSONWriter.Feature.FieldBased,
        JSONWriter.Feature.ErrorOnNoneSerializable,
        JSONWriter.Feature.ReferenceDetection,
        JSONWriter.Feature.WriteNulls,
        JSONWriter.Feature.NotWriteDefaultValue,
        JSONWriter.Feature.NotWriteHashMapArrayListClassName,
        JSONWriter.Feature.WriteNameAsSymbol,
    };

    /** JSONReader features of Dubbo 3.2/3.3 FastJson2ObjectInput.readObject. */
    static final JSONReader.Feature[] READ = {
        JSONReader.Feature.UseDefaultConstructorAsPossible,
        JSONReader.Feature.ErrorOnNoneSerializable,
        JSONReader.Feature.IgnoreAutoTypeNotMatch,
        JSONReader.Feature.UseNativeObject,
        JSONReader.Feature.FieldBased,
    };

    static Map<String, Object> cases() {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("null", null);
        c.put("true", Boolean.TRUE);
        c.put("false", Boolean.FALSE);
        c.put("int_0", 0);
        c.put("int_47", 47);
        c.put("int_-16", -16);
        c.put("int_48", 48);
        c.put("int_-2048", -2048);
        c.put("int_2047", 2047);
        c.put("int_262143", 262143);
        c.put("int_-262144", -262144);
        c.put("int_max", Integer.MAX_VALUE);
        c.put("int_min", Integer.MIN_VALUE);
        c.put("long_0", 0L);
        c.put("long_15", 15L);
        c.put("long_-8", -8L);
        c.put("long_2047", 2047L);
        c.put("long_-262144", -262144L);
        c.put("long_2e9", 2_000_000_000L);
        c.put("long_1e12", 1_000_000_000_000L);
        c.put("long_max", Long.MAX_VALUE);
        c.put("long_min", Long.MIN_VALUE);
        c.put("double_0", 0.0d);
        c.put("double_1", 1.0d);
        c.put("double_3.5", 3.5d);
        c.put("double_-2.25", -2.25d);
        c.put("double_1e300", 1e300d);
        c.put("double_100", 100.0d);
        c.put("string_empty", "");
        c.put("string_hello", "hello");
        c.put("string_latin1", "caf\u00e9");
        c.put("string_unicode", "h\u00e9llo \u4e16\u754c \ud83d\ude00");
        c.put("string_long", "x".repeat(300));
        c.put("bytes", new byte[] {1, 2, 3, (byte) 0xff, 0});
        c.put("bytes_empty", new byte[0]);
        List<String> list = new ArrayList<>();
        list.add("a");
        list.add("b");
        list.add(null);
        c.put("list", list);
        c.put("list_empty", new ArrayList<String>());
        Map<String, Integer> map = new HashMap<>();
        map.put("one", 1);
        map.put("two", 2);
        c.put("map", map);
        c.put("user", User.of(7));
        c.put("user_nulls", new User(0, null, 0, null, null));
        List<User> users = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            users.add(User.of(i));
        }
        c.put("users", users);
        // The same instance twice: ReferenceDetection writes the second as a reference.
        User shared = User.of(5);
        List<User> twice = new ArrayList<>();
        twice.add(shared);
        twice.add(shared);
        c.put("users_shared", twice);
        // A reference into a field of an earlier element ("$[0].tags").
        User owner = User.of(3);
        List<Object> field = new ArrayList<>();
        field.add(owner);
        field.add(owner.getTags());
        c.put("field_shared", field);
        c.put("date", new Date(1_700_000_000_123L));
        c.put("decimal", new BigDecimal("123.45"));
        return c;
    }

    static byte[] frame(byte[] jsonb) {
        return ByteBuffer.allocate(4 + jsonb.length).putInt(jsonb.length).put(jsonb).array();
    }

    static boolean same(Object want, Object got) {
        if (want instanceof byte[] && got instanceof byte[]) {
            return Arrays.equals((byte[]) want, (byte[]) got);
        }
        if (want instanceof User && got instanceof User) {
            User a = (User) want;
            User b = (User) got;
            return a.getId() == b.getId()
                    && Objects.equals(a.getName(), b.getName())
                    && a.getAge() == b.getAge()
                    && Objects.equals(a.getTags(), b.getTags())
                    && Objects.equals(a.getAttrs(), b.getAttrs());
        }
        if (want instanceof List && got instanceof List) {
            List<?> a = (List<?>) want;
            List<?> b = (List<?>) got;
            if (a.size() != b.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                if (!same(a.get(i), b.get(i))) {
                    return false;
                }
            }
            return true;
        }
        // Boxed types must match exactly: an Integer read back as a Long is a wire difference.
        return Objects.equals(want, got) && (want == null || want.getClass() == got.getClass());
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: Golden write|check DIR");
            System.exit(2);
        }
        Path dir = Path.of(args[1]);
        Map<String, Object> cases = cases();
        if (args[0].equals("write")) {
            Files.createDirectories(dir);
            for (Map.Entry<String, Object> e : cases.entrySet()) {
                byte[] jsonb = JSONB.toBytes(e.getValue(), WRITE);
                Files.write(dir.resolve("java-" + e.getKey() + ".bin"), frame(jsonb));
            }
            System.out.println("wrote " + cases.size() + " cases to " + dir);
            return;
        }
        if (!args[0].equals("check")) {
            System.err.println("usage: Golden write|check DIR");
            System.exit(2);
        }
        // Dubbo's security manager admits the contract's classes and the JDK's; "[B" is the
        // name Java writes before a top-level byte[].
        JSONReader.AutoTypeBeforeHandler filter = JSONReader.autoTypeFilter("org.apache.dubbo.interop.", "[B");
        int failed = 0;
        for (Map.Entry<String, Object> e : cases.entrySet()) {
            Path file = dir.resolve("rust-" + e.getKey() + ".bin");
            byte[] framed = Files.readAllBytes(file);
            int len = ByteBuffer.wrap(framed).getInt();
            if (len != framed.length - 4) {
                System.out.println("FAIL " + e.getKey() + ": frame length " + len + " but " + (framed.length - 4) + " bytes follow");
                failed++;
                continue;
            }
            byte[] jsonb = Arrays.copyOfRange(framed, 4, framed.length);
            Object got;
            try {
                got = JSONB.parseObject(jsonb, Object.class, filter, READ);
            } catch (RuntimeException ex) {
                System.out.println("FAIL " + e.getKey() + ": " + ex);
                failed++;
                continue;
            }
            if (!same(e.getValue(), got)) {
                System.out.println("FAIL " + e.getKey() + ": want " + describe(e.getValue()) + ", got " + describe(got));
                failed++;
            }
        }
        if (failed > 0) {
            System.out.println(failed + " of " + cases.size() + " cases failed");
            System.exit(1);
        }
        System.out.println("ok " + cases.size() + " cases");
    }

    static String describe(Object o) {
        if (o == null) {
            return "null";
        }
        if (o instanceof byte[]) {
            return "byte[]" + Arrays.toString((byte[]) o);
        }
        return o.getClass().getName() + " " + JSONB.toJSONString(JSONB.toBytes(o, WRITE));
    }
}
