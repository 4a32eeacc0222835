package org.apache.dubbo.interop.rest;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.interop.InteropService;
import org.apache.dubbo.interop.InteropServiceImpl;

/**
 * A Java Dubbo 3.3 provider of CONTRACT.md §5's REST table: {@link UserResource} (Spring MVC
 * annotations, served by triple rest through dubbo-rest-spring) and InteropService (its default
 * {@code /{interface}/{method}} mapping), both version 1.0.0, on the tri port only.
 *
 * <pre>
 *   RestProvider --tri-port Q
 * </pre>
 *
 * <p>Binds DUBBO_IP_TO_BIND (default {@code ::ffff:127.0.0.1}, the IPv4 loopback), no registry,
 * QoS off. Prints {@code READY} once exported; on SIGTERM or SIGINT stops Dubbo and exits 0.
 */
public final class RestProvider {

    private static final String USAGE = "usage: RestProvider --tri-port Q";

    private RestProvider() {
    }

    public static void main(String[] argv) throws Exception {
        if (System.getProperty("java.net.preferIPv4Stack") == null) {
            System.setProperty("java.net.preferIPv4Stack", "true");
        }
        int triPort = 0;
        for (int i = 0; i < argv.length; i++) {
            if ("--tri-port".equals(argv[i]) && i + 1 < argv.length) {
                triPort = Integer.parseInt(argv[++i]);
            } else {
                System.err.println("unknown argument " + argv[i] + "\n" + USAGE);
                System.exit(2);
            }
        }
        if (triPort <= 0) {
            System.err.println(USAGE);
            System.exit(2);
        }
        if (System.getProperty("dubbo.service.shutdown.wait") == null) {
            System.setProperty("dubbo.service.shutdown.wait", "2000");
        }
        if (System.getProperty("DUBBO_IP_TO_BIND") == null && System.getenv("DUBBO_IP_TO_BIND") == null) {
            System.setProperty("DUBBO_IP_TO_BIND", "::ffff:127.0.0.1");
        }
        ApplicationConfig application = new ApplicationConfig("interop-rest-provider-java");
        application.setQosEnable(false);
        ProtocolConfig tri = new ProtocolConfig("tri", triPort);

        ServiceConfig<UserResource> users = new ServiceConfig<>();
        users.setId("user-resource");
        users.setInterface(UserResource.class);
        users.setRef(new UserResourceImpl());
        users.setVersion("1.0.0");
        users.setProtocol(tri);

        ServiceConfig<InteropService> interop = new ServiceConfig<>();
        interop.setId("interop-1.0.0");
        interop.setInterface(InteropService.class);
        interop.setRef(new InteropServiceImpl());
        interop.setVersion("1.0.0");
        interop.setProtocol(tri);

        DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                .application(application)
                .registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE))
                .protocol(tri)
                .service(users)
                .service(interop);
        AtomicBoolean stopping = new AtomicBoolean();
        sun.misc.SignalHandler handler = sig -> {
            if (stopping.compareAndSet(false, true)) {
                new Thread(() -> {
                    try {
                        bootstrap.stop();
                    } catch (Throwable e) {
                        System.err.println("error during shutdown: " + e);
                    }
                    System.exit(0);
                }, "rest-provider-shutdown").start();
            }
        };
        sun.misc.Signal.handle(new sun.misc.Signal("TERM"), handler);
        sun.misc.Signal.handle(new sun.misc.Signal("INT"), handler);
        try {
            bootstrap.start();
        } catch (Throwable e) {
            System.err.println("provider failed to start: " + e);
            e.printStackTrace();
            Runtime.getRuntime().halt(1);
        }
        System.out.println("READY");
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
