package org.apache.dubbo.interop;

import java.util.ArrayList;
import java.util.List;
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

    /** The TLS flags need the Dubbo 3 builds of the interop programs. */
    static void ssl(Object bootstrap, String serverCert, String serverKey, String serverTrust,
            String clientCert, String clientKey, String clientTrust) {
        throw new UnsupportedOperationException("the --tls-* flags need the Dubbo 3 interop build");
    }

    static void setClientAttachment(String key, String value) {
        RpcContext.getContext().setAttachment(key, value);
    }

    static void clearClientAttachments() {
        RpcContext.getContext().clearAttachments();
    }

    /** The provider ({@code HOST:PORT}) that answered the last call, as the consumer sees it. */
    static String remoteAddress() {
        return RpcContext.getContext().getRemoteAddressString();
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


    /**
     * Dubbo 2.7 finds providers through a registry at the interface level only
     * ({@code /dubbo/IFACE/providers}): no application-level discovery by default, no migration step.
     */
    static final boolean APPLICATION_LEVEL = false;

    /**
     * The reference's invoker: Dubbo 2.7's {@code ReferenceConfig.getInvoker()} is package-private,
     * so through reflection; null if it cannot be had.
     */
    private static org.apache.dubbo.rpc.Invoker<?> invoker(org.apache.dubbo.config.ReferenceConfig<?> ref) {
        try {
            java.lang.reflect.Method m = org.apache.dubbo.config.ReferenceConfig.class.getDeclaredMethod("getInvoker");
            m.setAccessible(true);
            return (org.apache.dubbo.rpc.Invoker<?>) m.invoke(ref);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Whether the reference has an available provider (after {@code get()}). */
    static boolean hasProvider(org.apache.dubbo.config.ReferenceConfig<?> ref) {
        org.apache.dubbo.rpc.Invoker<?> invoker = invoker(ref);
        return invoker != null && invoker.isAvailable();
    }

    /**
     * Where the reference's provider addresses come from: the simple class name of its directory
     * ({@code RegistryDirectory}: interface-level), then the URL of every provider invoker; null if
     * it is not a cluster.
     */
    static List<String> addressSource(org.apache.dubbo.config.ReferenceConfig<?> ref) {
        org.apache.dubbo.rpc.Invoker<?> invoker = invoker(ref);
        if (!(invoker instanceof org.apache.dubbo.rpc.cluster.ClusterInvoker<?> cluster)
                || cluster.getDirectory() == null) {
            return null;
        }
        List<String> out = new ArrayList<>();
        out.add(cluster.getDirectory().getClass().getSimpleName());
        for (org.apache.dubbo.rpc.Invoker<?> provider : cluster.getDirectory().getAllInvokers()) {
            out.add(describeProvider(provider.getUrl()));
        }
        return out;
    }

    /**
     * PROTOCOL://ADDRESS of a provider URL as the consumer holds it, then the serialization
     * parameters it came with and what this consumer sends it:
     * {@code [serialization=S prefer.serialization=P sends N]}.
     */
    static String describeProvider(org.apache.dubbo.common.URL url) {
        return url.getProtocol() + "://" + url.getAddress() + " [serialization=" + url.getParameter("serialization")
                + " prefer.serialization=" + url.getParameter("prefer.serialization") + " sends "
                + serializationSent(url) + "]";
    }

    /**
     * What this consumer serializes requests to {@code url}'s provider with: Dubbo 2.7's choice
     * ({@code serialization}, else hessian2; 2.7 knows no {@code prefer.serialization}).
     */
    static String serializationSent(org.apache.dubbo.common.URL url) {
        return url.getParameter("serialization", "hessian2");
    }
}
