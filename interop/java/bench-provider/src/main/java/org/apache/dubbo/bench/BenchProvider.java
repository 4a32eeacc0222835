package org.apache.dubbo.bench;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;

/**
 * The Java Dubbo 3.3 provider of the benchmark suite (scripts/bench.sh), with no registry.
 *
 * <pre>
 *   BenchProvider [--dubbo-port 20890] [--tri-port 50061] [--threads 256]
 * </pre>
 *
 * <ul>
 *   <li>{@link EchoService} (interface mode, no version) over dubbo:// on 127.0.0.1:P and over
 *       tri:// on 127.0.0.1:Q;</li>
 *   <li>the IDL service {@code org.apache.dubbo.bench.BenchService} ({@link BenchServiceImpl}) over
 *       tri:// only.</li>
 *   <li>QoS off, a fixed pool of {@code --threads} service threads per protocol (Dubbo's default is
 *       200), the same 127.0.0.1 bind workaround as interop/java's Provider. Prints {@code READY}
 *       once exported; SIGTERM / SIGINT stop Dubbo and exit 0.</li>
 * </ul>
 */
public final class BenchProvider {

    static final String USAGE = "usage: BenchProvider [--dubbo-port P] [--tri-port Q] [--threads N]";

    private BenchProvider() {
    }

    public static void main(String[] argv) throws Exception {
        if (System.getProperty("java.net.preferIPv4Stack") == null) {
            System.setProperty("java.net.preferIPv4Stack", "true");
        }
        int dubboPort = 20890;
        int triPort = 50061;
        int threads = 256;
        for (int i = 0; i < argv.length; i += 2) {
            if (i + 1 >= argv.length) {
                fail(USAGE);
            }
            int v;
            try {
                v = Integer.parseInt(argv[i + 1]);
            } catch (NumberFormatException e) {
                fail("bad value for " + argv[i] + "\n" + USAGE);
                return;
            }
            switch (argv[i]) {
                case "--dubbo-port" -> dubboPort = v;
                case "--tri-port" -> triPort = v;
                case "--threads" -> threads = v;
                default -> fail("unknown flag " + argv[i] + "\n" + USAGE);
            }
        }
        if (System.getProperty("dubbo.service.shutdown.wait") == null) {
            System.setProperty("dubbo.service.shutdown.wait", "2000");
        }
        if (System.getProperty("dubbo.application.logger") == null) {
            System.setProperty("dubbo.application.logger", "jdk");
        }
        org.apache.dubbo.common.logger.LoggerFactory.getLogger(BenchProvider.class);
        Logger.getLogger("").setLevel(Level.WARNING);

        ApplicationConfig application = new ApplicationConfig("bench-provider-java");
        application.setQosEnable(false);
        // Dubbo 3.3 treats 127.* as "no host": it would bind 0.0.0.0. The IPv4-mapped form passes
        // its checks and binds plain 127.0.0.1 (see interop/java/README.md, "Loopback addresses").
        if (System.getProperty("DUBBO_IP_TO_BIND") == null && System.getenv("DUBBO_IP_TO_BIND") == null) {
            System.setProperty("DUBBO_IP_TO_BIND", System.getProperty("bench.bind", "::ffff:127.0.0.1"));
        }

        ProtocolConfig dubbo = new ProtocolConfig("dubbo", dubboPort);
        dubbo.setThreads(threads);
        ProtocolConfig tri = new ProtocolConfig("tri", triPort);
        tri.setThreads(threads);

        ServiceConfig<EchoService> echo = new ServiceConfig<>();
        echo.setInterface(EchoService.class);
        echo.setRef(new EchoServiceImpl());
        echo.setProtocols(List.of(dubbo, tri));

        ServiceConfig<BenchService> idl = new ServiceConfig<>();
        idl.setInterface(BenchService.class);
        idl.setRef(new BenchServiceImpl());
        idl.setProtocol(tri);

        DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                .application(application)
                .registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE))
                .protocols(List.of(dubbo, tri))
                .service(echo)
                .service(idl);
        installSignalHandlers(bootstrap);
        try {
            bootstrap.start();
        } catch (Throwable e) {
            System.err.println("bench provider failed to start: " + e);
            e.printStackTrace();
            Runtime.getRuntime().halt(1);
        }
        System.out.println("READY");
        System.out.flush();
        new CountDownLatch(1).await();
    }

    private static void fail(String message) {
        System.err.println(message);
        System.exit(2);
    }

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
            }, "bench-shutdown");
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
