package org.apache.dubbo.interop;

/**
 * InteropService exported as version 2.0.0, for version-selection tests: identical to 1.0.0 except
 * that {@code sayHello} returns {@code "Hello v2 " + name}.
 */
public class InteropServiceV2Impl extends InteropServiceImpl {

    @Override
    protected String greeting() {
        return "Hello v2 ";
    }
}
