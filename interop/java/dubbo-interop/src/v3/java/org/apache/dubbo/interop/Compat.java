package org.apache.dubbo.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.SslConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.RpcContext;

/**
 * What differs between the Dubbo lines the interop programs are built against: this is the
 * Dubbo 3.x (3.2, 3.3) version; interop/java/dubbo-interop-27 has the Dubbo 2.7 one.
 */
final class Compat {

    /** The Dubbo line these sources were compiled for. */
    static final String LINE = "3.x";

    private Compat() {
    }

    /** STRICT is the default from Dubbo 3.2 on; say so explicitly (User is in the signatures). */
    static void strictSerializeCheck(ApplicationConfig application) {
        application.setSerializeCheckStatus("STRICT");
    }

    /**
     * TLS through Dubbo's {@code dubbo.ssl} keys ({@link SslConfig}); null leaves a key unset.
     * Java's consumer dials TLS only when both client-key-cert-chain-path and
     * client-private-key-path are set; its provider requires a client certificate when
     * server-trust-cert-collection-path is set.
     */
    static void ssl(DubboBootstrap bootstrap, String serverCert, String serverKey, String serverTrust,
            String clientCert, String clientKey, String clientTrust) {
        SslConfig ssl = new SslConfig();
        ssl.setServerKeyCertChainPath(serverCert);
        ssl.setServerPrivateKeyPath(serverKey);
        ssl.setServerTrustCertCollectionPath(serverTrust);
        ssl.setClientKeyCertChainPath(clientCert);
        ssl.setClientPrivateKeyPath(clientKey);
        ssl.setClientTrustCertCollectionPath(clientTrust);
        bootstrap.ssl(ssl);
    }

    static void setClientAttachment(String key, String value) {
        RpcContext.getClientAttachment().setAttachment(key, value);
    }

    static void clearClientAttachments() {
        RpcContext.removeClientAttachment();
    }

    /** The provider ({@code HOST:PORT}) that answered the last call, as the consumer sees it. */
    static String remoteAddress() {
        return RpcContext.getServiceContext().getRemoteAddressString();
    }

    /** Response attachments of the last call, as the consumer sees them. */
    static Map<String, Object> responseAttachments() {
        return RpcContext.getServerContext().getObjectAttachments();
    }

    /** Request attachment {@code key}, inside the provider. */
    static String serverAttachment(String key) {
        return RpcContext.getServerAttachment().getAttachment(key);
    }

    static Map<String, Object> serverAttachments() {
        return RpcContext.getServerAttachment().getObjectAttachments();
    }

    static void setResponseAttachment(String key, String value) {
        RpcContext.getServerResponseContext().setAttachment(key, value);
    }


    /**
     * Dubbo 3.x finds providers through a registry at the interface and/or the application level,
     * as the migration step says.
     */
    static final boolean APPLICATION_LEVEL = true;

    /** Whether the reference has an available provider (after {@code get()}). */
    static boolean hasProvider(org.apache.dubbo.config.ReferenceConfig<?> ref) {
        return ref.getInvoker() != null && ref.getInvoker().isAvailable();
    }

    /**
     * Where the reference's provider addresses come from: the simple class name of its directory
     * ({@code ServiceDiscoveryRegistryDirectory}: application-level, {@code RegistryDirectory}:
     * interface-level), then the URL of every provider invoker; null if it is not a cluster.
     */
    static List<String> addressSource(org.apache.dubbo.config.ReferenceConfig<?> ref) {
        if (!(ref.getInvoker() instanceof org.apache.dubbo.rpc.cluster.ClusterInvoker<?> cluster)
                || cluster.getDirectory() == null) {
            return null;
        }
        List<String> out = new ArrayList<>();
        out.add(cluster.getDirectory().getClass().getSimpleName());
        for (org.apache.dubbo.rpc.Invoker<?> invoker : cluster.getDirectory().getAllInvokers()) {
            out.add(describeProvider(invoker.getUrl()));
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
     * What this consumer serializes requests to {@code url}'s provider with: Dubbo 3.x's own choice
     * (the first known of {@code prefer.serialization}, else {@code serialization}, else hessian2).
     */
    static String serializationSent(org.apache.dubbo.common.URL url) {
        return org.apache.dubbo.remoting.utils.UrlUtils.serializationOrDefault(url);
    }
}
