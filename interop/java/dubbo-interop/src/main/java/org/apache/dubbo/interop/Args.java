package org.apache.dubbo.interop;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Minimal {@code --key value} / {@code --key=value} command-line parsing. */
final class Args {

    private final Map<String, String> values = new HashMap<>();
    /** Every value given to each option, in order (for repeatable options; see {@link #getAll}). */
    private final Map<String, List<String>> all = new HashMap<>();

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
            parsed.all.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
        }
        return parsed;
    }

    String get(String key, String dflt) {
        return values.getOrDefault(key, dflt);
    }

    /**
     * Every value of a repeatable option, each split at commas ({@code --k a --k b,c} gives a, b, c);
     * empty if the option was not given.
     */
    List<String> getAll(String key) {
        List<String> out = new ArrayList<>();
        for (String v : all.getOrDefault(key, List.of())) {
            for (String part : v.split(",")) {
                if (!part.isEmpty()) {
                    out.add(part);
                }
            }
        }
        return out;
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
