package org.apache.dubbo.interop;

import java.util.Map;

import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.rpc.RpcContext;

/**
 * What differs between the Dubbo lines the interop programs are built against: this is the
 * Dubbo 2.7 version (one RpcContext per thread for request attachments, the server context for
 * response attachments, no serialization check setting, no Triple).
 */
final class Compat {

    /** The Dubbo line these sources were compiled for. */
    static final String LINE = "2.7";

    private Compat() {
    }

    /** Dubbo 2.7 has no serialization check setting: nothing to do. */
    static void strictSerializeCheck(ApplicationConfig application) {
    }

    static void setClientAttachment(String key, String value) {
        RpcContext.getContext().setAttachment(key, value);
    }

    static void clearClientAttachments() {
        RpcContext.getContext().clearAttachments();
    }

    /** Response attachments of the last call, as the consumer sees them. */
    static Map<String, Object> responseAttachments() {
        return RpcContext.getServerContext().getObjectAttachments();
    }

    /** Request attachment {@code key}, inside the provider. */
    static String serverAttachment(String key) {
        return RpcContext.getContext().getAttachment(key);
    }

    static Map<String, Object> serverAttachments() {
        return RpcContext.getContext().getObjectAttachments();
    }

    /** Dubbo 2.7's provider ContextFilter sends the server context's attachments back. */
    static void setResponseAttachment(String key, String value) {
        RpcContext.getServerContext().setAttachment(key, value);
    }


    /** Dubbo 2.7 does not expose the reference's invoker: assumed (the first call tells). */
    static boolean hasProvider(org.apache.dubbo.config.ReferenceConfig<?> ref) {
        return true;
    }

    /** Dubbo 2.7 does not expose the reference's invoker: unknown. */
    static java.util.List<String> addressSource(org.apache.dubbo.config.ReferenceConfig<?> ref) {
        return null;
    }
}
