package org.apache.dubbo.interop.hessian;

import com.alibaba.com.caucho.hessian.io.Hessian2Input;
import com.alibaba.com.caucho.hessian.io.Hessian2Output;
import com.alibaba.com.caucho.hessian.io.SerializerFactory;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.apache.dubbo.interop.BenchPojo;
import org.apache.dubbo.interop.User;

/**
 * hessian-lite 4.0.4 encode/decode timings, to compare with the Rust crate's benches: same case
 * names and values as {@code crates/hessian2/benches/common/mod.rs}, timed with the same method by
 * {@code crates/hessian2/benches/compare.rs}; {@code scripts/bench-hessian.sh} runs both.
 *
 * <pre>
 *   Bench [--warmup-ms 3000] [--measure-ms 5000] [--csv FILE] [--only CASE,...] [--list yes] [--dump DIR]
 * </pre>
 *
 * <p>Cases (one value each, written with {@code writeObject}):
 * <ul>
 *   <li>{@code pojo_1k}: {@link BenchPojo#of(long) BenchPojo(1)}, 690 bytes encoded (see
 *       {@link BenchPojo} for its exact definition, shared with the Rust bench)</li>
 *   <li>{@code pojos_100}: {@code ArrayList} of BenchPojo(0) .. BenchPojo(99)</li>
 *   <li>{@code users_100}: {@code ArrayList} of {@link User#of(int) User(0)} .. User(99)
 *       (interop/hessian-cases.md: id=i, name="user-"+i, age=20+i%50, tags=["t"+i],
 *       attrs={"k":"v"+i})</li>
 *   <li>{@code string_64k}: a 65536-char String, {@code "abcdefghij"} repeated</li>
 *   <li>{@code binary_64k}: a 65536-byte {@code byte[]}, byte i = i % 251</li>
 * </ul>
 *
 * <p>Operations:
 * <ul>
 *   <li>{@code encode}: {@code bos.reset()} of one reused ByteArrayOutputStream, {@code new
 *       Hessian2Output(bos)}, {@code writeObject(value)}, {@code flush()}</li>
 *   <li>{@code decode}: {@code new Hessian2Input(new ByteArrayInputStream(bytes))}, {@code
 *       readObject()} (into the Java classes: BenchPojo, User, String, byte[])</li>
 *   <li>{@code copy} ({@code binary_64k} only, a reference, not a codec operation): {@code
 *       System.arraycopy} of the 64 KiB array into a reused array, the machine's cost of one copy
 *       of it, which any encoder producing the bytes must pay at least once</li>
 * </ul>
 * Both use one shared {@link SerializerFactory}, as Dubbo does (it caches its factory per class
 * loader); a fresh factory per call would mostly time the factory's reflection caches.
 *
 * <p>Method: for each case and op, first a check (decode(encode(v)) equals v), then
 * {@code --warmup-ms} of warm-up (JIT), during which a batch size is chosen so that one sample
 * takes about 50 ms; then samples of that batch size for {@code --measure-ms}. {@code ns/op} is
 * the <em>median</em> over the samples (robust against other load on a shared machine),
 * {@code ops/s} = 1e9 / ns/op, {@code bytes} the encoded size. {@code spread} is the p10..p90 range
 * of the samples relative to the median. {@code cpu_ns/op} is the median of the benchmark thread's
 * CPU time per op: on a busy shared machine it stays close to the unloaded wall-clock figure while
 * {@code ns/op} grows with the time the thread waited for a CPU (it leaves out GC work done by
 * other threads). {@code cpu_p10} is the 10th percentile of the same CPU times per op: on a
 * virtual machine shared with other work, time stolen by the hypervisor or lost to contended
 * caches inflates even CPU time, and only ever upwards, so the best decile is the most stable
 * estimate of the undisturbed cost. All cases run in one JVM, in the order above; use
 * {@code --only} to time a case alone.
 *
 * <p>Output: a table on stdout (and {@code # case op} on stderr as each measurement starts); with
 * {@code --csv FILE} also CSV with header
 * {@code case,op,ns_per_op,ops_per_s,bytes,samples,spread_pct,cpu_ns_per_op,cpu_p10_ns_per_op}.
 * {@code --dump DIR}
 * writes each selected case's encoding to {@code DIR/<case>.bin} (the Rust side checks that they
 * decode to its own values: {@code scripts/bench-hessian.sh}).
 */
public final class Bench {

    static final String USAGE = "usage: Bench [--warmup-ms 3000] [--measure-ms 5000] [--csv FILE] [--only CASE,...] [--list yes] [--dump DIR]";

    /** Target duration of one measured sample. */
    static final long SAMPLE_NS = 50_000_000L;

    /** Results the JIT must not be able to discard. */
    static volatile Object sink;
    static long sinkBytes;

    private record Case(String name, Object value) {
    }

    record Result(String name, String op, double nsPerOp, int bytes, int samples, double spreadPct, double cpuNsPerOp,
            double cpuP10) {
    }

    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    /** CPU time of this thread, or -1 when the JVM cannot tell. */
    static long cpuNow() {
        return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
    }

    private static final SerializerFactory FACTORY = Golden.factory();
    private static final ByteArrayOutputStream BOS = new ByteArrayOutputStream(1 << 17);

    private Bench() {
    }

    static String str64k() {
        return "abcdefghij".repeat(6554).substring(0, 65536);
    }

    static byte[] bin64k() {
        byte[] b = new byte[65536];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i % 251);
        }
        return b;
    }

    static List<Case> cases() {
        List<Case> cs = new ArrayList<>();
        cs.add(new Case("pojo_1k", BenchPojo.of(1)));
        ArrayList<BenchPojo> pojos = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            pojos.add(BenchPojo.of(i));
        }
        cs.add(new Case("pojos_100", pojos));
        ArrayList<User> users = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            users.add(User.of(i));
        }
        cs.add(new Case("users_100", users));
        cs.add(new Case("string_64k", str64k()));
        cs.add(new Case("binary_64k", bin64k()));
        return cs;
    }

    // ------------------------------------------------------------------------------------------
    // The two timed operations
    // ------------------------------------------------------------------------------------------

    static int encode(Object value) throws IOException {
        BOS.reset();
        Hessian2Output out = new Hessian2Output(BOS);
        out.setSerializerFactory(FACTORY);
        out.writeObject(value);
        out.flush();
        return BOS.size();
    }

    static Object decode(byte[] bytes) throws IOException {
        Hessian2Input in = new Hessian2Input(new ByteArrayInputStream(bytes));
        in.setSerializerFactory(FACTORY);
        return in.readObject();
    }

    static Op copyOp(byte[] src) {
        byte[] dst = new byte[src.length];
        return n -> {
            for (int i = 0; i < n; i++) {
                System.arraycopy(src, 0, dst, 0, src.length);
            }
            sink = dst;
        };
    }

    @FunctionalInterface
    interface Op {
        /** Runs the operation n times. */
        void run(int n) throws IOException;
    }

    static Op encodeOp(Object value) {
        return n -> {
            long total = 0;
            for (int i = 0; i < n; i++) {
                total += encode(value);
            }
            sinkBytes += total;
        };
    }

    static Op decodeOp(byte[] bytes) {
        return n -> {
            Object last = null;
            for (int i = 0; i < n; i++) {
                last = decode(bytes);
            }
            sink = last;
        };
    }

    // ------------------------------------------------------------------------------------------
    // Timing
    // ------------------------------------------------------------------------------------------

    static Result time(String name, String opName, Op op, int bytes, long warmupMs, long measureMs) throws IOException {
        // Warm-up: grow the batch until one batch takes >= ~1/8 of a sample, keep running until
        // the warm-up time is over, then size the batch to about SAMPLE_NS.
        long warmupEnd = System.nanoTime() + warmupMs * 1_000_000L;
        int batch = 1;
        double nsPerOp = Double.NaN;
        do {
            long t0 = System.nanoTime();
            op.run(batch);
            long dt = System.nanoTime() - t0;
            nsPerOp = (double) dt / batch;
            if (dt < SAMPLE_NS / 8 && batch < (1 << 30)) {
                batch *= 2;
            }
        } while (System.nanoTime() < warmupEnd);
        batch = (int) Math.max(1, Math.min(Integer.MAX_VALUE, SAMPLE_NS / Math.max(nsPerOp, 1.0)));

        List<Double> samples = new ArrayList<>();
        List<Double> cpuSamples = new ArrayList<>();
        long measureEnd = System.nanoTime() + measureMs * 1_000_000L;
        do {
            long c0 = cpuNow();
            long t0 = System.nanoTime();
            op.run(batch);
            long dt = System.nanoTime() - t0;
            long dc = cpuNow() - c0;
            samples.add((double) dt / batch);
            cpuSamples.add((double) dc / batch);
        } while (System.nanoTime() < measureEnd || samples.size() < 3);

        double[] s = samples.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double median = percentile(s, 50);
        double spread = median > 0 ? (percentile(s, 90) - percentile(s, 10)) / median * 100 : 0;
        double[] cs = cpuSamples.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double cpuMedian = cpuNow() < 0 ? Double.NaN : percentile(cs, 50);
        double cpuP10 = cpuNow() < 0 ? Double.NaN : percentile(cs, 10);
        return new Result(name, opName, median, bytes, s.length, spread, cpuMedian, cpuP10);
    }

    static double percentile(double[] sorted, double p) {
        double pos = p / 100 * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = (int) Math.ceil(pos);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
    }

    static void check(Case c, byte[] bytes) throws IOException {
        Object back = decode(bytes);
        boolean same = c.value() instanceof byte[] b ? back instanceof byte[] bb && Arrays.equals(b, bb)
                : c.value().equals(back);
        if (!same) {
            throw new IllegalStateException(c.name() + ": decode(encode(v)) differs from v: " + back);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Main
    // ------------------------------------------------------------------------------------------

    public static void main(String[] argv) throws Exception {
        long warmupMs = 3000;
        long measureMs = 5000;
        String csv = null;
        String dump = null;
        Set<String> only = null;
        List<Case> all = cases();
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if ("-h".equals(a) || "--help".equals(a)) {
                System.out.println(USAGE);
                return;
            }
            String key = a;
            String value;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                key = a.substring(0, eq);
                value = a.substring(eq + 1);
            } else if (i + 1 < argv.length) {
                value = argv[++i];
            } else {
                die("missing value for " + a);
                return;
            }
            switch (key) {
                case "--warmup-ms" -> warmupMs = parseMs(key, value);
                case "--measure-ms" -> measureMs = parseMs(key, value);
                case "--csv" -> csv = value;
                case "--dump" -> dump = value;
                case "--only" -> only = new LinkedHashSet<>(Arrays.asList(value.split(",")));
                case "--list" -> {
                    all.forEach(c -> System.out.println(c.name()));
                    return;
                }
                default -> die("unknown option " + key);
            }
        }
        if (only != null) {
            for (String n : only) {
                if (all.stream().noneMatch(c -> c.name().equals(n))) {
                    die("unknown case " + n + " (use --list yes)");
                }
            }
        }

        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        out.printf(Locale.ROOT, "hessian-lite %s, Java %s (%s), %d CPUs, load average %.2f, warm-up %d ms, "
                + "measure %d ms per case and op%n", hessianLiteVersion(), System.getProperty("java.version"),
                System.getProperty("java.vm.name"), Runtime.getRuntime().availableProcessors(), loadAverage(), warmupMs,
                measureMs);
        String header = String.format(Locale.ROOT, "%-11s %-7s %12s %14s %8s %8s %8s %12s %12s",
                "case", "op", "ns/op", "ops/s", "bytes", "samples", "spread", "cpu_ns/op", "cpu_p10");
        out.println(header);

        List<Result> results = new ArrayList<>();
        for (Case c : all) {
            if (only != null && !only.contains(c.name())) {
                continue;
            }
            encode(c.value());
            byte[] bytes = BOS.toByteArray();
            check(c, bytes);
            if (dump != null) {
                Path d = Paths.get(dump);
                Files.createDirectories(d);
                Files.write(d.resolve(c.name() + ".bin"), bytes);
            }
            String[] ops = c.value() instanceof byte[] ? new String[] {"encode", "decode", "copy"}
                    : new String[] {"encode", "decode"};
            for (String opName : ops) {
                System.err.println("# " + c.name() + " " + opName);
                Op op = switch (opName) {
                    case "encode" -> encodeOp(c.value());
                    case "decode" -> decodeOp(bytes);
                    default -> copyOp((byte[]) c.value());
                };
                Result r = time(c.name(), opName, op, bytes.length, warmupMs, measureMs);
                results.add(r);
                out.printf(Locale.ROOT, "%-11s %-7s %12.1f %14.0f %8d %8d %7.1f%% %12.1f %12.1f%n", r.name(), r.op(),
                        r.nsPerOp(), 1e9 / r.nsPerOp(), r.bytes(), r.samples(), r.spreadPct(), r.cpuNsPerOp(),
                        r.cpuP10());
            }
        }

        // A load average well above the CPU count means the numbers are inflated by other work.
        out.printf(Locale.ROOT, "load average at the end %.2f%n", loadAverage());

        if (csv != null) {
            StringBuilder sb = new StringBuilder(
                    "case,op,ns_per_op,ops_per_s,bytes,samples,spread_pct,cpu_ns_per_op,cpu_p10_ns_per_op\n");
            for (Result r : results) {
                sb.append(String.format(Locale.ROOT, "%s,%s,%.1f,%.0f,%d,%d,%.1f,%.1f,%.1f%n", r.name(), r.op(),
                        r.nsPerOp(), 1e9 / r.nsPerOp(), r.bytes(), r.samples(), r.spreadPct(), r.cpuNsPerOp(),
                        r.cpuP10()));
            }
            Path p = Paths.get(csv);
            try {
                Files.writeString(p, sb.toString(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + p, e);
            }
        }
    }

    static long parseMs(String key, String value) {
        try {
            long v = Long.parseLong(value);
            if (v < 0) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            die(key + " needs a non-negative number of milliseconds, got " + value);
            return 0;
        }
    }

    static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    static String hessianLiteVersion() {
        Package p = Hessian2Output.class.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        if (v == null) {
            String where = String.valueOf(Hessian2Output.class.getProtectionDomain().getCodeSource().getLocation());
            int i = where.lastIndexOf("hessian-lite-");
            v = i >= 0 ? where.substring(i + "hessian-lite-".length()).replace(".jar", "") : "?";
        }
        return v;
    }

    static void die(String msg) {
        System.err.println(msg);
        System.err.println(USAGE);
        System.exit(2);
    }
}
