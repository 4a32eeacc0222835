package org.apache.dubbo.interop;

import java.util.ArrayList;
import java.util.List;

import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.interop.tri.Greeter;

/** The Provider's IDL services (the Greeter over Triple), in builds that have the generated stubs. */
final class IdlServices {

    private IdlServices() {
    }

    /**
     * Services served over Triple only (IDL style): the contract's
     * {@code org.apache.dubbo.interop.tri.Greeter} ({@link GreeterImpl} on the stubs generated from
     * {@code interop/proto/greeter.proto}). No version and no group, as for a gRPC service: requests
     * go to {@code /org.apache.dubbo.interop.tri.Greeter/Greet} (and {@code GreetServerStream},
     * {@code GreetClientStream}, {@code GreetBiStream}) without {@code tri-service-version}; and {@link StreamingService}, the
     * contract's interface-mode streams, the same way.
     */
    static List<ServiceConfig<?>> tripleOnlyServices(ProtocolConfig tri) {
        List<ServiceConfig<?>> services = new ArrayList<>();
        ServiceConfig<Greeter> greeter = new ServiceConfig<>();
        greeter.setInterface(Greeter.class);
        greeter.setRef(new GreeterImpl());
        greeter.setProtocol(tri);
        services.add(greeter);
        // The contract's StreamObserver interface (wrapper mode), beside the IDL Greeter.
        ServiceConfig<StreamingService> streaming = new ServiceConfig<>();
        streaming.setInterface(StreamingService.class);
        streaming.setRef(new StreamingServiceImpl());
        streaming.setProtocol(tri);
        services.add(streaming);
        return services;
    }
}
