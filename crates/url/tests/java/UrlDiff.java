// Prints how Java Dubbo parses and formats Urls, for tests/java_differential.rs.
//
//   java -cp <dubbo jars>:. UrlDiff parse <file>   one hex-encoded UTF-8 input per line
//   java -cp <dubbo jars>:. UrlDiff layers <file>  lines "consumer|provider|override"
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.URLStrParser;
import org.apache.dubbo.common.url.component.DubboServiceAddressURL;
import org.apache.dubbo.common.url.component.ServiceConfigURL;
import org.apache.dubbo.rpc.cluster.support.merger.DefaultProviderURLMergeProcessor;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Map;
import java.util.TreeMap;

public class UrlDiff {
    static String hex(String s) {
        if (s == null) return "-";
        StringBuilder sb = new StringBuilder("x");
        for (byte x : s.getBytes(StandardCharsets.UTF_8)) sb.append(String.format("%02x", x));
        return sb.toString();
    }

    static String unhex(String h) {
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        return new String(b, StandardCharsets.UTF_8);
    }

    static String describe(URL u) {
        StringBuilder p = new StringBuilder();
        for (Map.Entry<String, String> e : new TreeMap<>(u.getParameters()).entrySet()) {
            p.append(e.getKey()).append('\u0001').append(e.getValue()).append('\u0002');
        }
        return String.join(" ", "OK", hex(u.getProtocol()), hex(u.getUsername()), hex(u.getPassword()),
                hex(u.getHost()), String.valueOf(u.getPort()), hex(u.getPath()), hex(p.toString()),
                hex(u.toFullString()), hex(u.toString()), hex(u.toIdentityString()), hex(u.getServiceKey()),
                hex(u.getColonSeparatedKey()));
    }

    interface Parser {
        URL parse(String s);
    }

    static String attempt(Parser p, String s) {
        try {
            return describe(p.parse(s));
        } catch (Throwable t) {
            return "ERR";
        }
    }

    public static void main(String[] args) throws Exception {
        StringBuilder out = new StringBuilder();
        if (args[0].equals("parse")) {
            for (String line : Files.readAllLines(Paths.get(args[1]))) {
                String in = unhex(line.trim());
                out.append("D ").append(attempt(URL::valueOf, in)).append('\n');
                out.append("E ").append(attempt(URLStrParser::parseEncodedStr, in)).append('\n');
                out.append("R ").append(attempt(s -> URLStrParser.parseEncodedStr(URL.encode(s)), in)).append('\n');
                out.append("ENC ").append(hex(URL.encode(in))).append('\n');
                String dec;
                try {
                    dec = hex(URL.decode(in));
                } catch (Throwable t) {
                    dec = "ERR";
                }
                out.append("DEC ").append(dec).append('\n');
            }
        } else {
            String[] keys = {"timeout", "retries", "loadbalance", "group", "version", "application", "side", "category"};
            String[] methods = {null, "sayHello", "bye", "a", "b", "other"};
            for (String line : Files.readAllLines(Paths.get(args[1]))) {
                String[] c = line.split("\\|", -1);
                URL consumer = URL.valueOf(c[0]);
                ServiceConfigURL override = c[2].isEmpty() ? null : (ServiceConfigURL) URL.valueOf(c[2]);
                DubboServiceAddressURL provider = DubboServiceAddressURL.valueOf(URL.encode(c[1]), consumer, override);
                for (String m : methods) {
                    for (String k : keys) {
                        String v = m == null ? provider.getParameter(k) : provider.getMethodParameter(m, k);
                        out.append(m).append('|').append(k).append('|').append(v == null || v.isEmpty() ? "-" : v).append('\n');
                    }
                }
                URL merged = new DefaultProviderURLMergeProcessor().mergeUrl(URL.valueOf(c[1]), consumer.getParameters());
                out.append("merge|").append(merged.toFullString()).append('\n');
            }
        }
        System.out.print(out);
    }
}
