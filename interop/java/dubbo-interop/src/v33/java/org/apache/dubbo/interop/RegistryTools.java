package org.apache.dubbo.interop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.metadata.MetadataInfo;
import org.apache.dubbo.metadata.MetadataService;
import org.apache.zookeeper.data.Stat;

/**
 * Registry helpers for the Rust side's test vectors, on Java Dubbo 3.3's own classes.
 *
 * <pre>
 *   RegistryTools capture --registry zookeeper://HOST:PORT --app APP --out DIR
 *   RegistryTools revision            (lines on stdin, see below)
 * </pre>
 *
 * <p>JSON output has its object keys sorted. {@code capture} writes DIR/nodes.json: every node
 * under /dubbo and /services, as a JSON object path to
 * {@code {"ephemeral":bool,"base64":DATA,"text":DATA as UTF-8 (when it is)}}; then, for the
 * instance of APP found under /services/APP, calls {@code getMetadataInfo(revision)} of its
 * MetadataService ({@code org.apache.dubbo.metadata.MetadataService}, group APP, version 1.0.0),
 * first where the instance's {@code dubbo.metadata-service.url-params} point (with V2 exported that
 * is tri://, where Java serves V1 too), then at its dubbo:// endpoint, and writes
 * DIR/metadata-service.json: the MetadataInfo (app, revision, services by match key with name,
 * group, version, protocol, port, path, params) and {@code served_at}, where it answered (HOST for
 * the address).
 *
 * <p>{@code revision}: every stdin line is {@code APP(TAB SERVICE)*}, each field hex of its UTF-8
 * bytes; a SERVICE is {@code NAME,GROUP,VERSION,PROTOCOL,PORT,PATH,PARAMS} (PORT in decimal, GROUP
 * and VERSION {@code -} for none, PARAMS {@code -} or {@code K=V;K=V}). For each line it prints
 * {@code REVISION TAB hex(app + every service's toDescString in key order)}: the revision from
 * {@code MetadataInfo.calAndGetRevision} with the services stored under their match keys, as a
 * provider's MetadataInfo holds them.
 */
public final class RegistryTools {

    private static final String USAGE = "usage: RegistryTools capture --registry zookeeper://HOST:PORT --app APP --out DIR\n"
            + "       RegistryTools revision   (stdin lines: APP(TAB NAME,GROUP,VERSION,PROTOCOL,PORT,PATH,PARAMS)*, hex fields)";

    private RegistryTools() {
    }

    public static void main(String[] argv) throws Exception {
        if (System.getProperty("java.net.preferIPv4Stack") == null) {
            System.setProperty("java.net.preferIPv4Stack", "true");
        }
        if (argv.length == 0) {
            Args.die("a command is required", USAGE);
        }
        String[] rest = java.util.Arrays.copyOfRange(argv, 1, argv.length);
        switch (argv[0]) {
            case "capture" -> {
                Args args = Args.parse(rest, Set.of("registry", "app", "out"), USAGE);
                String registry = args.get("registry", null);
                String app = args.get("app", null);
                String out = args.get("out", null);
                if (registry == null || app == null || out == null) {
                    Args.die("capture needs --registry, --app and --out", USAGE);
                }
                Debug.configureLogging();
                int code = capture(registry, app, Path.of(out));
                Runtime.getRuntime().halt(code);
            }
            case "revision" -> revisions();
            default -> Args.die("unknown command " + argv[0], USAGE);
        }
    }

    // ------------------------------------------------------------------------------------------
    // capture
    // ------------------------------------------------------------------------------------------

    private static int capture(String registry, String app, Path dir) throws Exception {
        String connect = registry.replaceFirst("^zookeeper://", "").replaceFirst("[/?].*$", "");
        Files.createDirectories(dir);
        Map<String, Object> nodes = new TreeMap<>();
        String revision = null;
        String instanceJson = null;
        try (CuratorFramework zk = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new RetryNTimes(3, 500))) {
            zk.start();
            if (!zk.blockUntilConnected(10, TimeUnit.SECONDS)) {
                System.err.println("capture: cannot connect to ZooKeeper at " + connect);
                return 1;
            }
            for (String root : List.of("/dubbo", "/services")) {
                if (zk.checkExists().forPath(root) != null) {
                    walk(zk, root, nodes);
                }
            }
        }
        for (Map.Entry<String, Object> e : nodes.entrySet()) {
            if (e.getKey().startsWith("/services/" + app + "/")) {
                @SuppressWarnings("unchecked")
                Map<String, Object> node = (Map<String, Object>) e.getValue();
                instanceJson = (String) node.get("text");
            }
        }
        Files.writeString(dir.resolve("nodes.json"), Json.write(nodes) + "\n");
        System.out.println("wrote " + nodes.size() + " nodes to " + dir.resolve("nodes.json"));
        if (instanceJson == null) {
            System.err.println("capture: no instance under /services/" + app);
            return 1;
        }
        // The revision and the MetadataService's protocol and port, from the instance's metadata.
        Map<String, Object> instance = com.alibaba.fastjson2.JSON.parseObject(instanceJson);
        @SuppressWarnings("unchecked")
        Map<String, Object> metadata = (Map<String, Object>) ((Map<String, Object>) instance.get("payload")).get("metadata");
        revision = (String) metadata.get("dubbo.metadata.revision");
        Map<String, Object> params = com.alibaba.fastjson2.JSON.parseObject(
                (String) metadata.get("dubbo.metadata-service.url-params"));
        // Where V1 (org.apache.dubbo.metadata.MetadataService) may be: the url-params' protocol and
        // port (with MetadataServiceV2 exported they describe V2, served over tri:// beside V1), and
        // the instance's dubbo:// endpoint.
        String address = "[" + String.valueOf(instance.get("address")).replaceAll("^\\[|\\]$", "") + "]";
        List<String> urls = new ArrayList<>();
        urls.add(params.get("protocol") + "://" + address + ":" + params.get("port"));
        for (Object e : com.alibaba.fastjson2.JSON.parseArray((String) metadata.get("dubbo.endpoints"))) {
            Map<?, ?> endpoint = (Map<?, ?>) e;
            if ("dubbo".equals(endpoint.get("protocol"))) {
                urls.add("dubbo://" + address + ":" + endpoint.get("port"));
            }
        }
        if (System.getProperty("DUBBO_IP_TO_REGISTRY") == null && System.getenv("DUBBO_IP_TO_REGISTRY") == null) {
            System.setProperty("DUBBO_IP_TO_REGISTRY", Provider.BIND_HOST);
        }
        ApplicationConfig application = new ApplicationConfig("interop-capture-java");
        application.setQosEnable(false);
        DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                .application(application)
                .registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE));
        List<ReferenceConfig<MetadataService>> refs = new ArrayList<>();
        for (String url : urls) {
            ReferenceConfig<MetadataService> ref = new ReferenceConfig<>();
            ref.setId("metadata-" + refs.size());
            ref.setInterface(MetadataService.class);
            ref.setGroup(app);
            ref.setVersion("1.0.0");
            ref.setUrl(url);
            ref.setTimeout(5000);
            ref.setRetries(0);
            ref.setCheck(false);
            refs.add(ref);
            bootstrap.reference(ref);
        }
        bootstrap.start();
        MetadataInfo answer = null;
        String servedAt = null;
        for (int i = 0; i < urls.size() && servedAt == null; i++) {
            try {
                answer = refs.get(i).get().getMetadataInfo(revision);
                servedAt = urls.get(i);
                System.out.println("MetadataService 1.0.0 at " + servedAt + " answered for revision " + revision);
            } catch (RuntimeException e) {
                System.out.println("MetadataService 1.0.0 at " + urls.get(i) + ": " + e.getMessage().split("\n")[0]);
            }
        }
        if (servedAt == null) {
            System.err.println("capture: no MetadataService 1.0.0 answered at " + urls);
            return 1;
        }
        if (answer == null) {
            System.err.println("capture: getMetadataInfo(" + revision + ") answered null");
            return 1;
        }
        Map<String, Object> clean = new LinkedHashMap<>();
        clean.put("served_at", servedAt.replace(address, "HOST"));
        clean.put("app", answer.getApp());
        clean.put("revision", answer.getRevision());
        Map<String, Object> services = new TreeMap<>();
        for (Map.Entry<String, MetadataInfo.ServiceInfo> e : answer.getServices().entrySet()) {
            MetadataInfo.ServiceInfo si = e.getValue();
            Map<String, Object> service = new LinkedHashMap<>();
            service.put("name", si.getName());
            service.put("group", si.getGroup());
            service.put("version", si.getVersion());
            service.put("protocol", si.getProtocol());
            service.put("port", si.getPort());
            service.put("path", si.getPath());
            service.put("params", si.getParams());
            services.put(e.getKey(), service);
        }
        clean.put("services", services);
        Files.writeString(dir.resolve("metadata-service.json"), Json.write(clean) + "\n");
        System.out.println("wrote " + dir.resolve("metadata-service.json") + " (" + services.size() + " services)");
        return 0;
    }

    private static void walk(CuratorFramework zk, String path, Map<String, Object> out) throws Exception {
        Stat stat = new Stat();
        byte[] data = zk.getData().storingStatIn(stat).forPath(path);
        Map<String, Object> node = new LinkedHashMap<>();
        node.put("ephemeral", stat.getEphemeralOwner() != 0);
        node.put("base64", Base64.getEncoder().encodeToString(data == null ? new byte[0] : data));
        String text = utf8(data);
        if (text != null) {
            node.put("text", text);
        }
        out.put(path, node);
        for (String child : zk.getChildren().forPath(path)) {
            walk(zk, path + "/" + child, out);
        }
    }

    private static String utf8(byte[] data) {
        if (data == null) {
            return "";
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(data)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------------------------------
    // revision
    // ------------------------------------------------------------------------------------------

    private static void revisions() throws Exception {
        HexFormat hex = HexFormat.of();
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            // An empty line is an application with an empty name and no service.
            String[] fields = line.split("\t", -1);
            String app = unhex(hex, fields[0]);
            Map<String, MetadataInfo.ServiceInfo> services = new HashMap<>();
            for (int i = 1; i < fields.length; i++) {
                String[] f = fields[i].split(",", -1);
                Map<String, String> params = new HashMap<>();
                if (!f[6].equals("-")) {
                    for (String kv : f[6].split(";", -1)) {
                        int eq = kv.indexOf('=');
                        params.put(unhex(hex, kv.substring(0, eq)), unhex(hex, kv.substring(eq + 1)));
                    }
                }
                MetadataInfo.ServiceInfo s = new MetadataInfo.ServiceInfo(unhex(hex, f[0]), optional(hex, f[1]),
                        optional(hex, f[2]), unhex(hex, f[3]), Integer.parseInt(f[4]), unhex(hex, f[5]), params);
                services.put(s.getMatchKey(), s);
            }
            MetadataInfo info = new MetadataInfo(app, null, services);
            String revision = info.calAndGetRevision();
            StringBuilder text = new StringBuilder(app);
            for (MetadataInfo.ServiceInfo s : new TreeMap<>(services).values()) {
                text.append(s.toDescString());
            }
            out.println(revision + "\t" + hex.formatHex(text.toString().getBytes(StandardCharsets.UTF_8)));
        }
        out.flush();
    }

    private static String unhex(HexFormat hex, String s) {
        return new String(hex.parseHex(s), StandardCharsets.UTF_8);
    }

    private static String optional(HexFormat hex, String s) {
        return s.equals("-") ? null : unhex(hex, s);
    }

    // ------------------------------------------------------------------------------------------
    // JSON (sorted keys, two-space indent)
    // ------------------------------------------------------------------------------------------

    static final class Json {
        private Json() {
        }

        static String write(Object value) {
            StringBuilder sb = new StringBuilder();
            write(sb, value, "");
            return sb.toString();
        }

        private static void write(StringBuilder sb, Object v, String indent) {
            if (v == null) {
                sb.append("null");
            } else if (v instanceof Boolean || v instanceof Number) {
                sb.append(v);
            } else if (v instanceof Map<?, ?> m) {
                if (m.isEmpty()) {
                    sb.append("{}");
                    return;
                }
                Map<String, Object> order = new TreeMap<>();
                m.forEach((k, val) -> order.put(String.valueOf(k), val));
                sb.append("{\n");
                int i = 0;
                for (Map.Entry<String, Object> e : order.entrySet()) {
                    sb.append(indent).append("  ");
                    string(sb, e.getKey());
                    sb.append(": ");
                    write(sb, e.getValue(), indent + "  ");
                    sb.append(++i < order.size() ? ",\n" : "\n");
                }
                sb.append(indent).append('}');
            } else if (v instanceof Collection<?> c) {
                if (c.isEmpty()) {
                    sb.append("[]");
                    return;
                }
                List<Object> items = new ArrayList<>(c);
                sb.append("[\n");
                for (int i = 0; i < items.size(); i++) {
                    sb.append(indent).append("  ");
                    write(sb, items.get(i), indent + "  ");
                    sb.append(i + 1 < items.size() ? ",\n" : "\n");
                }
                sb.append(indent).append(']');
            } else {
                string(sb, String.valueOf(v));
            }
        }

        private static void string(StringBuilder sb, String s) {
            sb.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> sb.append("\\\"");
                    case '\\' -> sb.append("\\\\");
                    case '\n' -> sb.append("\\n");
                    case '\r' -> sb.append("\\r");
                    case '\t' -> sb.append("\\t");
                    default -> {
                        if (c < 0x20) {
                            sb.append(String.format("\\u%04x", (int) c));
                        } else {
                            sb.append(c);
                        }
                    }
                }
            }
            sb.append('"');
        }
    }
}
