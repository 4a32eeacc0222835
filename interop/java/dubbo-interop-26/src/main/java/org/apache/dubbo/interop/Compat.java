package org.apache.dubbo.interop;

import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

import com.alibaba.dubbo.rpc.RpcContext;

/**
 * What differs between the Dubbo lines the interop programs are built against: this is the
 * com.alibaba:dubbo 2.6 version, for the parts of the shared sources the 2.6 provider compiles
 * (InteropServiceImpl) and Consumer26. One RpcContext per thread holds the request attachments,
 * the server context the response attachments (2.6.12 speaks dubbo protocol version 2.0.2, whose
 * responses may carry attachments).
 */
final class Compat {

    /** The Dubbo line these sources were compiled for. */
    static final String LINE = "2.6";

    private Compat() {
    }

    /** Request attachment {@code key}, inside the provider. */
    static String serverAttachment(String key) {
        return RpcContext.getContext().getAttachment(key);
    }

    static Map<String, String> serverAttachments() {
        return RpcContext.getContext().getAttachments();
    }

    /** The provider's ContextFilter copies the server context's attachments into the response. */
    static void setResponseAttachment(String key, String value) {
        RpcContext.getServerContext().setAttachment(key, value);
    }

    static void setClientAttachment(String key, String value) {
        RpcContext.getContext().setAttachment(key, value);
    }

    static void clearClientAttachments() {
        RpcContext.getContext().clearAttachments();
    }

    /** Response attachments of the last call, as the consumer sees them. */
    static Map<String, String> responseAttachments() {
        return RpcContext.getServerContext().getAttachments();
    }
}

/**
 * The 2.6 form of the shared Debug (which initialises Dubbo 3's logger): the same switches, with
 * 2.6's logger adapter set to the JDK's.
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
        com.alibaba.dubbo.common.logger.LoggerFactory.getLogger(Debug.class);
        Logger.getLogger("").setLevel(VERBOSE ? Level.INFO : Level.WARNING);
    }

    static void log(String msg) {
        System.err.println("[debug] " + msg);
    }
}
