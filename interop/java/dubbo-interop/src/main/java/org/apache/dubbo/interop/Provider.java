package org.apache.dubbo.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;

/**
 * A Java Dubbo 3.3 provider of the interop services, with no registry or with one.
 *
 * <pre>
 *   Provider [--dubbo-port P] [--tri-port Q] [--app NAME] [--shutdown-wait MS] [--token T]
 *            [--registry zookeeper://HOST:PORT] [--tls-cert FILE --tls-key FILE [--tls-ca FILE]]
 * </pre>
 *
 * <p>With {@code --tls-cert}/{@code --tls-key} both ports serve TLS (Dubbo's {@code dubbo.ssl}
 * server keys, PEM); with {@code --tls-ca} too, clients must present a certificate signed by that
 * CA. Java's dubbo:// port then refuses plaintext; its tri:// port (port unification) still
 * takes plaintext beside TLS.
 *
 * <p>With {@code --registry URL} it registers with Java Dubbo's defaults for a plain registry
 * address (register-mode {@code all}): every service URL, per protocol, under
 * {@code /dubbo/IFACE/providers}, and the application NAME ({@code --app}) as an instance under
 * {@code /services/NAME} with its metadata revision, served by its MetadataService; the registry
 * also serves as metadata report (the service-name mapping {@code /dubbo/mapping/IFACE}) and config
 * center. Registered addresses are DUBBO_IP_TO_REGISTRY's, by default {@code ::ffff:127.0.0.1}
 * (so {@code [::ffff:127.0.0.1]:PORT}). Without it: no registry. Built against Dubbo 3.2 the same
 * (3.2's default is register-mode all too); against Dubbo 2.7 only the interface-level URLs (2.7's
 * default; it writes the host unbracketed, {@code dubbo://::ffff:127.0.0.1:PORT/...}).
 *
 * <ul>
 *   <li>InteropService 1.0.0 ({@link InteropServiceImpl}) and 2.0.0 ({@link InteropServiceV2Impl})
 *       over dubbo:// on 127.0.0.1:P (default 20880), and also over tri:// on 127.0.0.1:Q when
 *       Q &gt; 0 (default 0: no Triple). No registry.</li>
 *   <li>With Q &gt; 0 also the IDL service {@code org.apache.dubbo.interop.tri.Greeter}
 *       ({@link GreeterImpl}, protobuf, no version) over tri:// only.</li>
 *   <li>With {@code --token T} every service requires Dubbo's token T ({@code ServiceConfig.setToken}):
 *       a call without it, or with another one, is refused by Dubbo's TokenFilter / TokenHeaderFilter.</li>
 *   <li>QoS is off unless {@code --qos-port Q} turns it on at 127.0.0.1:Q. Prints {@code READY} on stdout once everything is exported; on SIGTERM or
 *       SIGINT it stops Dubbo (graceful shutdown) and exits with status 0.</li>
 * </ul>
 */
public final class Provider {

    static final String USAGE = "usage: Provider [--dubbo-port P] [--tri-port Q] [--app NAME] [--shutdown-wait MS] [--token T] [--qos-port Q] " + AuthFlags.USAGE + " "
            + "[--registry zookeeper://HOST:PORT] [--tls-cert FILE --tls-key FILE [--tls-ca FILE]]";
    /**
     * Dubbo 3.3 treats every "127.*" / "localhost" address as "no host configured": it then binds
     * 0.0.0.0 (anyhost) and advertises the machine's first non-loopback address, and refuses such a
     * value in DUBBO_IP_TO_BIND. The IPv4-mapped IPv6 form of 127.0.0.1 passes those checks and Java
     * binds it as the IPv4 loopback, so the provider listens on 127.0.0.1 only.
     */
    static final String BIND_HOST = System.getProperty("interop.bind", "::ffff:127.0.0.1");

    private Provider() {
    }

    public static void main(String[] argv) throws Exception {
        // IPv4 sockets, so the loopback-only address below is plain 127.0.0.1 (not a v4-mapped v6 socket).
        if (System.getProperty("java.net.preferIPv4Stack") == null) {
            System.setProperty("java.net.preferIPv4Stack", "true");
        }
        Set<String> known = new java.util.HashSet<>(Set.of("dubbo-port", "tri-port", "app", "shutdown-wait", "token", "registry", "qos-port",
                "tls-cert", "tls-key", "tls-ca"));
        known.addAll(AuthFlags.FLAGS);
        Args args = Args.parse(argv, known, USAGE);
        int dubboPort = args.getInt("dubbo-port", 20880, USAGE);
        int triPort = args.getInt("tri-port", 0, USAGE);
        String app = args.get("app", "interop-provider-java");
        String token = args.get("token", null);
        // --auth ...: Dubbo's auth plugin checks every call (parameters of every service).
        auth = AuthFlags.params(args, USAGE);
        String registry = args.get("registry", null);
        // Graceful-shutdown wait: Dubbo's default is 10000 ms (a SIGTERM then takes ~6 s to exit);
        // 2000 ms keeps test teardown quick and still goes through the same graceful steps.
        String shutdownWait = args.get("shutdown-wait", null);
        if (shutdownWait != null || System.getProperty("dubbo.service.shutdown.wait") == null) {
            System.setProperty("dubbo.service.shutdown.wait", shutdownWait != null ? shutdownWait : "2000");
        }
        Debug.configureLogging();

        ApplicationConfig application = new ApplicationConfig(app);
        // --qos-port Q: Java's QoS on 127.0.0.1:Q (its HTTP commands, /metrics among them), as an
        // admin console or Prometheus reads it; off otherwise.
        int qosPort = args.getInt("qos-port", 0, USAGE);
        application.setQosEnable(qosPort > 0);
        if (qosPort > 0) {
            application.setQosPort(qosPort);
            application.setQosAcceptForeignIp(false);
        }
        // STRICT is Dubbo 3.3's default; say so explicitly. User is allowed because it appears in the
        // InteropService signatures (Dubbo registers the types of exported interfaces).
        Compat.strictSerializeCheck(application);

        // Through the property rather than ProtocolConfig.setHost, whose validation logs an error for
        // a host with ':' in it (it works either way).
        if (System.getProperty("DUBBO_IP_TO_BIND") == null && System.getenv("DUBBO_IP_TO_BIND") == null) {
            System.setProperty("DUBBO_IP_TO_BIND", BIND_HOST);
        }
        // What a registry gets: the loopback too, not the machine's first interface.
        if (registry != null && System.getProperty("DUBBO_IP_TO_REGISTRY") == null
                && System.getenv("DUBBO_IP_TO_REGISTRY") == null) {
            System.setProperty("DUBBO_IP_TO_REGISTRY", BIND_HOST);
        }

        ProtocolConfig dubbo = new ProtocolConfig("dubbo", dubboPort);
        List<ProtocolConfig> interopProtocols = new ArrayList<>();
        interopProtocols.add(dubbo);
        ProtocolConfig tri = null;
        if (triPort > 0) {
            tri = new ProtocolConfig("tri", triPort);
            interopProtocols.add(tri);
        }

        DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                .application(application)
                .registry(new RegistryConfig(registry != null ? registry : RegistryConfig.NO_AVAILABLE))
                .protocols(interopProtocols)
                .service(withToken(interopService("1.0.0", new InteropServiceImpl(), interopProtocols), token))
                .service(withToken(interopService("2.0.0", new InteropServiceV2Impl(), interopProtocols), token));

        if (tri != null) {
            for (ServiceConfig<?> s : IdlServices.tripleOnlyServices(tri)) {
                bootstrap.service(withToken(s, token));
            }
        }

        String tlsCert = args.get("tls-cert", null);
        String tlsKey = args.get("tls-key", null);
        if (tlsCert != null || tlsKey != null) {
            if (tlsCert == null || tlsKey == null) {
                Args.die("--tls-cert and --tls-key go together", USAGE);
            }
            Compat.ssl(bootstrap, tlsCert, tlsKey, args.get("tls-ca", null), null, null, null);
        } else if (args.get("tls-ca", null) != null) {
            Args.die("--tls-ca needs --tls-cert and --tls-key", USAGE);
        }

        installSignalHandlers(bootstrap);
        try {
            bootstrap.start();
        } catch (Throwable e) {
            System.err.println("provider failed to start: " + e);
            e.printStackTrace();
            Runtime.getRuntime().halt(1);
        }

        System.out.println("READY");
        System.out.flush();
        new CountDownLatch(1).await(); // the signal handler exits the JVM
    }

    /** The service parameters of --auth (empty without it). */
    private static java.util.Map<String, String> auth = java.util.Map.of();

    /**
     * Requires Dubbo's token {@code token} on {@code service}, when one is given, and the
     * credentials of --auth, when given.
     */
    static <T extends ServiceConfig<?>> T withToken(T service, String token) {
        if (token != null) {
            service.setToken(token);
        }
        if (!auth.isEmpty()) {
            java.util.Map<String, String> p = new java.util.HashMap<>();
            if (service.getParameters() != null) {
                p.putAll(service.getParameters());
            }
            p.putAll(auth);
            service.setParameters(p);
        }
        return service;
    }

    static ServiceConfig<InteropService> interopService(String version, InteropService impl,
            List<ProtocolConfig> protocols) {
        ServiceConfig<InteropService> service = new ServiceConfig<>();
        // Distinct ids: Dubbo 2.7's config manager keeps one ServiceConfig per id, and without one
        // the second version would replace the first.
        service.setId("interop-" + version);
        service.setInterface(InteropService.class);
        service.setRef(impl);
        service.setVersion(version);
        service.setProtocols(protocols);
        return service;
    }

    /**
     * SIGTERM / SIGINT: stop Dubbo (unexport, graceful close of servers) and exit 0. Without this the
     * JVM would still run Dubbo's own shutdown hook, but exit with status 143 / 130.
     */
    @SuppressWarnings("restriction")
    private static void installSignalHandlers(DubboBootstrap bootstrap) {
        AtomicBoolean stopping = new AtomicBoolean();
        sun.misc.SignalHandler handler = sig -> {
            if (!stopping.compareAndSet(false, true)) {
                return;
            }
            Thread t = new Thread(() -> {
                try {
                    bootstrap.stop();
                } catch (Throwable e) {
                    System.err.println("error during shutdown: " + e);
                }
                System.exit(0);
            }, "interop-shutdown");
            t.start();
        };
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name), handler);
            } catch (IllegalArgumentException e) {
                System.err.println("cannot handle SIG" + name + ": " + e.getMessage());
            }
        }
    }
}
