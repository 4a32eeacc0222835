package org.apache.dubbo.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import com.alibaba.dubbo.config.ApplicationConfig;
import com.alibaba.dubbo.config.ProtocolConfig;
import com.alibaba.dubbo.config.RegistryConfig;
import com.alibaba.dubbo.config.ServiceConfig;

/**
 * A com.alibaba:dubbo 2.6 provider of InteropService 1.0.0 and 2.0.0 over dubbo:// on
 * 127.0.0.1:P (default 20880), no registry. 2.6 has no DubboBootstrap: each ServiceConfig is
 * exported on its own.
 *
 * <pre>
 *   Provider26 [--dubbo-port P] [--app NAME]
 * </pre>
 *
 * <p>Prints {@code READY} on stdout once both versions are exported; on SIGTERM or SIGINT it
 * unexports them, closes the server (DubboShutdownHook.destroyAll) and exits with status 0.
 */
public final class Provider26 {

    static final String USAGE = "usage: Provider26 [--dubbo-port P] [--app NAME]";

    private Provider26() {
    }

    public static void main(String[] argv) throws Exception {
        // IPv4 sockets, so the loopback-only bind address is plain 127.0.0.1.
        if (System.getProperty("java.net.preferIPv4Stack") == null) {
            System.setProperty("java.net.preferIPv4Stack", "true");
        }
        Args args = Args.parse(argv, Set.of("dubbo-port", "app"), USAGE);
        int dubboPort = args.getInt("dubbo-port", 20880, USAGE);
        String app = args.get("app", "interop-provider-java26");
        Debug.configureLogging();

        ApplicationConfig application = new ApplicationConfig(app);
        application.setQosEnable(false);
        ProtocolConfig dubbo = new ProtocolConfig("dubbo", dubboPort);
        RegistryConfig registry = new RegistryConfig(RegistryConfig.NO_AVAILABLE);

        List<ServiceConfig<InteropService>> services = new ArrayList<>();
        services.add(service("1.0.0", new InteropServiceImpl(), application, registry, dubbo));
        services.add(service("2.0.0", new InteropServiceV2Impl(), application, registry, dubbo));
        installSignalHandlers(services);
        try {
            for (ServiceConfig<InteropService> s : services) {
                s.export();
            }
        } catch (Throwable e) {
            System.err.println("provider failed to start: " + e);
            e.printStackTrace();
            Runtime.getRuntime().halt(1);
        }
        System.out.println("READY");
        System.out.flush();
        new CountDownLatch(1).await(); // the signal handler exits the JVM
    }

    private static ServiceConfig<InteropService> service(String version, InteropService impl,
            ApplicationConfig application, RegistryConfig registry, ProtocolConfig protocol) {
        ServiceConfig<InteropService> service = new ServiceConfig<>();
        service.setApplication(application);
        service.setRegistry(registry);
        service.setProtocol(protocol);
        service.setInterface(InteropService.class);
        service.setRef(impl);
        service.setVersion(version);
        return service;
    }

    @SuppressWarnings("restriction")
    private static void installSignalHandlers(List<ServiceConfig<InteropService>> services) {
        AtomicBoolean stopping = new AtomicBoolean();
        sun.misc.SignalHandler handler = sig -> {
            if (!stopping.compareAndSet(false, true)) {
                return;
            }
            Thread t = new Thread(() -> {
                try {
                    for (ServiceConfig<InteropService> s : services) {
                        s.unexport();
                    }
                    // 2.6: registries and protocols (the dubbo:// server) go down through the shutdown hook object.
                    com.alibaba.dubbo.config.DubboShutdownHook.getDubboShutdownHook().destroyAll();
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
