package org.apache.dubbo.interop;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The authentication flags of the interop Provider and Consumer (CONTRACT.md section 5):
 * {@code --auth accesskey --ak ID --sk SECRET} and {@code --auth basic --user U --password P},
 * turned into the service / reference parameters Java's dubbo-auth plugin reads
 * ({@code auth}, {@code authenticator}, {@code .accessKeyId}, {@code .secretAccessKey},
 * {@code username}, {@code password}). The plugin itself (org.apache.dubbo:dubbo-auth) is on the
 * classpath of dubbo-interop-auth.jar only; with --auth and without it the program refuses to start.
 */
final class AuthFlags {

    static final Set<String> FLAGS = Set.of("auth", "ak", "sk", "user", "password");
    static final String USAGE = "[--auth accesskey --ak ID --sk SECRET | --auth basic --user U --password P]";

    private AuthFlags() {
    }

    /** The parameters --auth asks for; empty without --auth. */
    static Map<String, String> params(Args args, String usage) {
        Map<String, String> out = new LinkedHashMap<>();
        String auth = args.get("auth", null);
        if (auth == null) {
            for (String f : new String[] {"ak", "sk", "user", "password"}) {
                if (args.get(f, null) != null) {
                    Args.die("--" + f + " goes with --auth", usage);
                }
            }
            return out;
        }
        try {
            Class.forName("org.apache.dubbo.auth.filter.ProviderAuthFilter");
        } catch (ClassNotFoundException e) {
            Args.die("--auth needs Dubbo's auth plugin (org.apache.dubbo:dubbo-auth) on the classpath: "
                    + "run dubbo-interop-auth.jar", usage);
        }
        out.put("auth", "true");
        switch (auth) {
            case "accesskey":
                out.put("authenticator", "accesskey");
                out.put(".accessKeyId", need(args, "ak", auth, usage));
                out.put(".secretAccessKey", need(args, "sk", auth, usage));
                break;
            case "basic":
                out.put("authenticator", "basic");
                out.put("username", need(args, "user", auth, usage));
                out.put("password", need(args, "password", auth, usage));
                break;
            default:
                Args.die("--auth " + auth + ": expected accesskey or basic", usage);
        }
        return out;
    }

    private static String need(Args args, String flag, String scheme, String usage) {
        String v = args.get(flag, null);
        if (v == null || v.isEmpty()) {
            Args.die("--auth " + scheme + " needs --" + flag, usage);
        }
        return v;
    }

    /**
     * Whether t or one of its causes is an authentication refusal: dubbo-auth's
     * RpcAuthenticationException (over dubbo://, with its message), or over tri:// the
     * UNAUTHENTICATED status (Java's "No Auth.", or a dubbo-rs provider's "Failed to authenticate ...").
     */
    static boolean isAuthRefusal(Throwable t) {
        Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Throwable e = t; e != null && seen.add(e); e = e.getCause()) {
            if (e.getClass().getName().equals("org.apache.dubbo.auth.exception.RpcAuthenticationException")) {
                return true;
            }
            String m = String.valueOf(e.getMessage());
            if (m.contains("Failed to authenticate") || m.contains("No Auth.") || m.contains("UNAUTHENTICATED")) {
                return true;
            }
        }
        return false;
    }
}
