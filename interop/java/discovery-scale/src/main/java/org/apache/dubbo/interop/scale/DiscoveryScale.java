package org.apache.dubbo.interop.scale;

import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.Version;
import org.apache.dubbo.common.url.component.ServiceConfigURL;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.interop.InteropService;
import org.apache.dubbo.registry.integration.RegistryDirectory;
import org.apache.dubbo.registry.integration.RegistryProtocol;
import org.apache.dubbo.rpc.model.ApplicationModel;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.apache.dubbo.rpc.model.ModuleModel;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Java Dubbo 3.3's interface-level consumer on the push of docs/discovery.md: 100,000 ZooKeeper
 * child names of {@code /dubbo/{interface}/providers}, in-process, no network, no registry server.
 *
 * <pre>
 * java [JVM flags] -jar discovery-scale.jar --nodes crates/registry/tests/fixtures/java-3.3/nodes.json
 *      [--providers 100000] [--reps 5] [--warmup 3] [--names-only yes]
 * </pre>
 *
 * <p>Inputs are the Rust benchmark's (crates/registry/benches/discovery_scale.rs), byte for byte:
 * the first {@code dubbo://} provider node of the captured Java 3.3.6 fixture plus {@code pid},
 * {@code anyhost}, {@code background} and {@code executor-management-mode}, with provider i at host
 * {@code 10.(i>>16&255).(i>>8&255).(i&255)}, port {@code 20880 + i%64}, its own {@code timestamp}
 * and {@code pid}, parameters sorted by key, the whole URL-encoded as a ZooKeeper child name. The
 * program prints a checksum of the names (FNV-1a 64 over the names joined by newlines) to compare
 * with the Rust side.
 *
 * <p>Per repetition: a fresh {@link InMemoryRegistry} (Dubbo's CacheableFailbackRegistry, with
 * {@code file-cache=false}) and a fresh {@link RegistryDirectory} wired as Dubbo's RegistryProtocol
 * wires it (registry, protocol, router chain built from the consumer URL), with {@link StubProtocol}
 * as its protocol. Then
 * <ul>
 *   <li>first push: {@code toUrlsWithEmpty} on the listing, then {@code notify} (AbstractRegistry →
 *       RegistryDirectory.notify: invokers, router chain);</li>
 *   <li>three re-applies of the listing with one provider restarted (new {@code timestamp} and
 *       {@code pid}), the same two calls each.</li>
 * </ul>
 * Times are wall clock, the benchmark thread's CPU time (GC threads excluded) and the whole JVM's CPU
 * time (GC and JIT threads included); allocated bytes
 * are the thread's allocations. Retained bytes: used heap after repeated {@code System.gc()} once
 * the first push is applied, minus the same before the registry and directory were created (the
 * names exist in both), divided by the providers.
 */
public final class DiscoveryScale {

    static final long START_MS = 1_796_079_976_076L;
    static final String APP = "discovery-scale-consumer";
    static final String CONSUMER_HOST = "10.255.0.1";

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = parseArgs(argv);
        System.setProperty("dubbo.application.logger", "jdk");
        org.apache.dubbo.common.logger.LoggerFactory.getLogger(DiscoveryScale.class);
        Logger.getLogger("").setLevel(Level.WARNING);

        int providers = Integer.parseInt(args.getOrDefault("providers", "100000"));
        int reps = Math.max(1, Integer.parseInt(args.getOrDefault("reps", "5")));
        int warmup = Math.max(0, Integer.parseInt(args.getOrDefault("warmup", "3")));
        String nodes = args.getOrDefault("nodes", "crates/registry/tests/fixtures/java-3.3/nodes.json");

        Template template = Template.fromFixture(Path.of(nodes));
        List<String> names = new ArrayList<>(providers);
        for (int i = 0; i < providers; i++) {
            names.add(template.providerName(i, 0));
        }
        System.out.printf("names: %d, %d parameters, first %d bytes, fnv1a64 %016x%n",
                names.size(), template.params.size() + 2, names.get(0).length(), fnv1a(names));
        if ("yes".equals(args.get("names-only"))) {
            System.out.println(names.get(0));
            System.out.println(names.get(names.size() - 1));
            return;
        }

        FrameworkModel framework = new FrameworkModel();
        ApplicationModel app = framework.newApplication();
        app.getApplicationConfigManager().setApplication(new ApplicationConfig(APP));
        ModuleModel module = app.newModule();

        Scenario scenario = new Scenario(module, template, names);
        for (int w = 0; w < warmup; w++) {
            scenario.run(reps + w, null);
        }
        Rows rows = new Rows(providers);
        for (int rep = 0; rep < reps; rep++) {
            scenario.run(rep, rows);
        }

        System.out.printf("%nJava Dubbo %s, %s %s, %s; heap max %d MB, GC %s; %d warm-up + %d measured repetitions%n",
                Version.getVersion(), System.getProperty("java.vm.name"), System.getProperty("java.version"),
                System.getProperty("os.arch"), Runtime.getRuntime().maxMemory() >> 20, gcNames(), warmup, reps);
        System.out.printf("JVM flags: %s%n", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        System.out.printf("load average before/after: %.2f / %.2f%n%n", scenario.loadBefore, loadAverage());
        rows.print();
        System.out.printf("%nrefers: first push %d, re-apply %d per push (a restarted provider %s)%n",
                scenario.refersFirst, scenario.refersReapply,
                scenario.refersReapply == 0 ? "keeps its URL and invoker: timestamp and pid are stripped before caching"
                        : "is referred again");
        System.out.printf("registry cache: %d URLs, %d distinct parameter sets (URLParam)%n",
                scenario.cachedUrls, scenario.cachedParams);
        framework.destroy();
    }

    // ------------------------------------------------------------------ the scenario

    static final class Scenario {
        final ModuleModel module;
        final Template template;
        final List<String> names;
        final String path;
        final Map<String, String> refer;
        final double loadBefore = loadAverage();
        long refersFirst;
        long refersReapply;
        int cachedUrls;
        int cachedParams;

        Scenario(ModuleModel module, Template template, List<String> names) {
            this.module = module;
            this.template = template;
            this.names = names;
            this.path = "/dubbo/" + template.iface + "/providers";
            // What a Java 3.3 reference of the fixture's service puts in its consumer URL.
            refer = new HashMap<>();
            refer.put("interface", template.iface);
            refer.put("version", "1.0.0");
            refer.put("side", "consumer");
            refer.put("application", APP);
            refer.put("register.ip", CONSUMER_HOST);
            refer.put("methods", template.params.get("methods"));
            refer.put("dubbo", "2.0.2");
            refer.put("release", Version.getVersion());
            refer.put("pid", "4242");
            refer.put("timestamp", Long.toString(START_MS));
        }

        void run(int rep, Rows rows) {
            Meter before = rows == null ? null : Meter.retainedBaseline();
            URL registryUrl = URL.valueOf("zookeeper://127.0.0.1:2181/org.apache.dubbo.registry.RegistryService"
                            + "?application=" + APP + "&file-cache=false&interface=org.apache.dubbo.registry.RegistryService")
                    .setScopeModel(module);
            InMemoryRegistry registry = new InMemoryRegistry(registryUrl);
            StubProtocol protocol = new StubProtocol();
            // As RegistryProtocol.doRefer / doCreateInvoker wire an interface-level directory.
            RegistryDirectory<InteropService> directory = new RegistryDirectory<>(
                    InteropService.class, registryUrl.putAttribute("refer", refer));
            directory.setRegistry(registry);
            directory.setProtocol(protocol);
            Map<String, String> params = new HashMap<>(directory.getConsumerUrl().getParameters());
            URL toRegistry = new ServiceConfigURL("consumer", params.remove("register.ip"), 0, template.iface, params)
                    .setScopeModel(directory.getConsumerUrl().getScopeModel());
            directory.buildRouterChain(toRegistry);
            URL subscribed = RegistryProtocol.toSubscribeUrl(toRegistry);
            directory.setSubscribeUrl(subscribed);

            Meter start = Meter.now();
            Meter m = Meter.now();
            List<URL> urls = registry.childNamesToUrls(subscribed, path, names);
            Cost parse = m.since();
            m = Meter.now();
            registry.deliver(subscribed, directory, urls);
            Cost notify = m.since();
            Cost total = start.since();
            check(directory.getInvokers().size() == names.size(), "first push: invokers " + directory.getInvokers().size());
            refersFirst = protocol.refers.get();
            if (rows != null) {
                total.retained = Meter.retainedBaseline().heap - before.heap;
                rows.parse.add(parse);
                rows.notify.add(notify);
                rows.total.add(total);
            }

            // One provider restarts (new timestamp and pid) per re-apply.
            List<String> current = new ArrayList<>(names);
            long refersBefore = protocol.refers.get();
            for (int gen = 1; gen <= 3; gen++) {
                int i = (int) (((long) rep * 7919 + (long) gen * 104_729) % names.size());
                current.set(i, template.providerName(i, gen));
                start = Meter.now();
                urls = registry.childNamesToUrls(subscribed, path, current);
                Cost reparse = start.since();
                m = Meter.now();
                registry.deliver(subscribed, directory, urls);
                Cost renotify = m.since();
                Cost retotal = start.since();
                check(directory.getInvokers().size() == names.size(), "re-apply: invokers " + directory.getInvokers().size());
                if (rows != null) {
                    rows.reparse.add(reparse);
                    rows.renotify.add(renotify);
                    rows.retotal.add(retotal);
                }
            }
            refersReapply = (protocol.refers.get() - refersBefore) / 3;
            cachedUrls = registry.cachedUrls(subscribed);
            cachedParams = registry.cachedParams();
            directory.destroy();
            registry.destroy();
        }
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    // ------------------------------------------------------------------ inputs

    /** The decoded fixture provider URL, as protocol, path and sorted parameters. */
    static final class Template {
        final String iface;
        final TreeMap<String, String> params;

        Template(String iface, TreeMap<String, String> params) {
            this.iface = iface;
            this.params = params;
        }

        /** The first dubbo:// child of a providers node, in key order (the Rust side reads the
         *  fixture into a sorted map), plus the four parameters the Rust benchmark adds. */
        static Template fromFixture(Path nodesJson) throws Exception {
            String json = Files.readString(nodesJson);
            Matcher m = Pattern.compile("\"(/[^\"]*/providers/([^\"/]+))\"\\s*:").matcher(json);
            TreeSet<String> keys = new TreeSet<>();
            while (m.find()) {
                if (m.group(2).startsWith("dubbo%3A")) {
                    keys.add(m.group(1));
                }
            }
            check(!keys.isEmpty(), "no dubbo:// provider node in " + nodesJson);
            String name = keys.first().substring(keys.first().indexOf("/providers/") + "/providers/".length());
            String url = URLDecoder.decode(name, StandardCharsets.UTF_8);
            int q = url.indexOf('?');
            String address = url.substring(0, q);
            String iface = address.substring(address.indexOf('/', "dubbo://".length()) + 1);
            TreeMap<String, String> params = new TreeMap<>();
            for (String pair : url.substring(q + 1).split("&")) {
                int eq = pair.indexOf('=');
                params.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
            params.put("pid", "4242");
            params.put("anyhost", "true");
            params.put("background", "false");
            params.put("executor-management-mode", "isolation");
            // Set per provider below.
            params.remove("timestamp");
            params.remove("pid");
            return new Template(iface, params);
        }

        String providerName(int i, int gen) {
            TreeMap<String, String> p = new TreeMap<>(params);
            p.put("timestamp", Long.toString(START_MS + (long) i * 7 + (long) gen * 1_000_003));
            p.put("pid", Integer.toString(1000 + (i * 13 + gen) % 60_000));
            StringBuilder b = new StringBuilder(800);
            b.append("dubbo://").append(host(i)).append(':').append(20880 + i % 64).append('/').append(iface);
            char sep = '?';
            for (Map.Entry<String, String> e : p.entrySet()) {
                b.append(sep).append(e.getKey()).append('=').append(e.getValue());
                sep = '&';
            }
            return URLEncoder.encode(b.toString(), StandardCharsets.UTF_8);
        }

        static String host(int i) {
            return "10." + ((i >> 16) & 255) + "." + ((i >> 8) & 255) + "." + (i & 255);
        }
    }

    static long fnv1a(List<String> names) {
        long h = 0xcbf29ce484222325L;
        boolean first = true;
        for (String n : names) {
            if (!first) {
                h = (h ^ '\n') * 0x100000001b3L;
            }
            first = false;
            for (byte b : n.getBytes(StandardCharsets.UTF_8)) {
                h = (h ^ (b & 0xff)) * 0x100000001b3L;
            }
        }
        return h;
    }

    // ------------------------------------------------------------------ measuring

    static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    static final class Cost {
        double ms;
        double cpuMs;
        double processCpuMs;
        long allocated;
        long retained;
    }

    static final class Meter {
        final long at = System.nanoTime();
        final long cpu = THREADS.getCurrentThreadCpuTime();
        final long processCpu = processCpuNanos();
        final long allocated = ((com.sun.management.ThreadMXBean) THREADS).getCurrentThreadAllocatedBytes();
        long heap;

        static Meter now() {
            return new Meter();
        }

        /** Used heap after full collections: the lowest of several, once it stops falling. */
        static Meter retainedBaseline() {
            long best = Long.MAX_VALUE;
            for (int i = 0; i < 4; i++) {
                System.gc();
                best = Math.min(best, MEMORY.getHeapMemoryUsage().getUsed());
            }
            Meter m = new Meter();
            m.heap = best;
            return m;
        }

        Cost since() {
            long nowAt = System.nanoTime();
            long nowCpu = THREADS.getCurrentThreadCpuTime();
            long nowAllocated = ((com.sun.management.ThreadMXBean) THREADS).getCurrentThreadAllocatedBytes();
            Cost c = new Cost();
            c.ms = (nowAt - at) / 1e6;
            c.cpuMs = (nowCpu - cpu) / 1e6;
            c.processCpuMs = (processCpuNanos() - processCpu) / 1e6;
            c.allocated = nowAllocated - allocated;
            return c;
        }
    }

    static final class Row {
        final String name;
        final List<Cost> costs = new ArrayList<>();

        Row(String name) {
            this.name = name;
        }

        void add(Cost c) {
            costs.add(c);
        }

        double median(java.util.function.ToDoubleFunction<Cost> f) {
            double[] v = costs.stream().mapToDouble(f).toArray();
            Arrays.sort(v);
            return v[v.length / 2];
        }
    }

    static final class Rows {
        final int n;
        final Row parse = new Row("registry: names -> URLs (toUrlsWithEmpty)");
        final Row notify = new Row("notify (AbstractRegistry -> RegistryDirectory)");
        final Row total = new Row("first push, end to end");
        final Row reparse = new Row("re-apply 1 changed: names -> URLs");
        final Row renotify = new Row("re-apply 1 changed: notify");
        final Row retotal = new Row("re-apply 1 changed: end to end");

        Rows(int n) {
            this.n = n;
        }

        void print() {
            System.out.printf("| %-46s | %9s | %10s | %10s | %11s | %19s | %12s | %12s |%n",
                    "step", "n", "p50 ms", "CPU p50 ms", "JVM CPU ms", "min-max ms", "alloc B/URL", "retained B");
            System.out.printf("|%s|%s|%s|%s|%s|%s|%s|%s|%n", "-".repeat(48), "-".repeat(11), "-".repeat(12),
                    "-".repeat(12), "-".repeat(13), "-".repeat(21), "-".repeat(14), "-".repeat(14));
            for (Row r : List.of(parse, notify, total, reparse, renotify, retotal)) {
                double min = r.costs.stream().mapToDouble(c -> c.ms).min().orElse(0);
                double max = r.costs.stream().mapToDouble(c -> c.ms).max().orElse(0);
                String retained = r == total ? String.format("%.0f /URL", r.median(c -> c.retained) / n) : "-";
                System.out.printf("| %-46s | %9d | %10.2f | %10.2f | %11.2f | %8.2f-%-10.2f | %12.0f | %12s |%n",
                        r.name, n, r.median(c -> c.ms), r.median(c -> c.cpuMs), r.median(c -> c.processCpuMs), min, max,
                        r.median(c -> c.allocated) / n, retained);
            }
        }
    }

    /** CPU time of the whole JVM: the benchmark thread plus GC and JIT compiler threads. */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    static String gcNames() {
        List<String> out = new ArrayList<>();
        ManagementFactory.getGarbageCollectorMXBeans().forEach(b -> out.add(b.getName()));
        return String.join(", ", out);
    }

    static Map<String, String> parseArgs(String[] argv) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < argv.length; i++) {
            if (!argv[i].startsWith("--") || i + 1 >= argv.length) {
                throw new IllegalArgumentException("usage: --nodes FILE [--providers N] [--reps N] [--warmup N] [--names-only yes]");
            }
            out.put(argv[i].substring(2), argv[++i]);
        }
        return out;
    }
}
