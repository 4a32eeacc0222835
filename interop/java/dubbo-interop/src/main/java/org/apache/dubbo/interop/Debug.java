package org.apache.dubbo.interop;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Logging switches shared by Provider and Consumer.
 *
 * <p>Dubbo has no logging backend on this classpath and falls back to java.util.logging, whose
 * INFO output is very chatty; it is cut to WARNING unless {@code INTEROP_VERBOSE=1}. With
 * {@code INTEROP_DEBUG=1} the programs print extra diagnostics (attachments seen) to stderr.
 */
final class Debug {

    static final boolean ENABLED = flag("INTEROP_DEBUG");
    static final boolean VERBOSE = flag("INTEROP_VERBOSE");

    private Debug() {
    }

    private static boolean flag(String name) {
        String v = System.getenv(name);
        return v != null && !v.isEmpty() && !"0".equals(v) && !"false".equalsIgnoreCase(v);
    }

    static void configureLogging() {
        if (System.getProperty("dubbo.application.logger") == null) {
            System.setProperty("dubbo.application.logger", "jdk");
        }
        // Initialise Dubbo's logger adapter now: it (re)reads logging.properties from the classpath.
        org.apache.dubbo.common.logger.LoggerFactory.getLogger(Debug.class);
        Logger.getLogger("").setLevel(VERBOSE ? Level.INFO : Level.WARNING);
    }

    static void log(String msg) {
        System.err.println("[debug] " + msg);
    }
}
