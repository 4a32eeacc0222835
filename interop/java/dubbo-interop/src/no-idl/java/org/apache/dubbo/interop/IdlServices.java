package org.apache.dubbo.interop;

import java.util.Collections;
import java.util.List;

import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ServiceConfig;

/**
 * Builds without the Greeter IDL stubs (Dubbo 3.2: no dubbo-compiler release generates code for
 * its StubMethodDescriptor; Dubbo 2.7: no Triple): no IDL services.
 */
final class IdlServices {

    private IdlServices() {
    }

    static List<ServiceConfig<?>> tripleOnlyServices(ProtocolConfig tri) {
        return Collections.emptyList();
    }
}
