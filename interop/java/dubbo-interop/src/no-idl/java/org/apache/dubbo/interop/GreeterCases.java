package org.apache.dubbo.interop;

import java.util.function.BiConsumer;

import org.apache.dubbo.config.ReferenceConfig;

/**
 * Builds without the Greeter IDL stubs (Dubbo 3.2, 2.7; see IdlServices) have no Greeter cases:
 * the Consumer then runs InteropService only, over tri:// too.
 */
final class GreeterCases {

    ReferenceConfig<?> reference(String url, int timeout) {
        return null;
    }

    void bind(ReferenceConfig<?> ref, int timeout) {
    }

    void define(BiConsumer<String, Consumer.Body> addTriple) {
    }
}
