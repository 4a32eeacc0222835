package org.apache.dubbo.interop;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** Minimal {@code --key value} / {@code --key=value} command-line parsing. */
final class Args {

    private final Map<String, String> values = new HashMap<>();

    private Args() {
    }

    static Args parse(String[] args, Set<String> known, String usage) {
        return parse(args, known, Set.of(), usage);
    }

    /** As {@link #parse(String[], Set, String)}; {@code switches} take no value (their value is "yes"). */
    static Args parse(String[] args, Set<String> known, Set<String> switches, String usage) {
        Args parsed = new Args();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if ("-h".equals(a) || "--help".equals(a)) {
                System.out.println(usage);
                System.exit(0);
            }
            if (!a.startsWith("--")) {
                die("unexpected argument: " + a, usage);
            }
            String key;
            String value;
            int eq = a.indexOf('=');
            if (eq > 0) {
                key = a.substring(2, eq);
                value = a.substring(eq + 1);
            } else {
                key = a.substring(2);
                if (switches.contains(key)) {
                    parsed.values.put(key, "yes");
                    continue;
                }
                if (i + 1 >= args.length) {
                    die("missing value for --" + key, usage);
                }
                value = args[++i];
            }
            if (!known.contains(key)) {
                die("unknown option --" + key, usage);
            }
            parsed.values.put(key, value);
        }
        return parsed;
    }

    String get(String key, String dflt) {
        return values.getOrDefault(key, dflt);
    }

    int getInt(String key, int dflt, String usage) {
        String v = values.get(key);
        if (v == null) {
            return dflt;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            die("--" + key + " needs a number, got " + v, usage);
            return dflt;
        }
    }

    static void die(String msg, String usage) {
        System.err.println(msg);
        System.err.println(usage);
        System.exit(2);
    }
}
