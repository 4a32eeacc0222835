package org.apache.dubbo.interop.scale;

import org.apache.dubbo.common.URL;
import org.apache.dubbo.rpc.Exporter;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.Protocol;
import org.apache.dubbo.rpc.Result;
import org.apache.dubbo.rpc.RpcException;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The protocol the directory refers providers with: {@code refer} returns an invoker that only
 * holds its URL (no connection, no filter chain), as the Rust benchmark's invoker factory does.
 * Counts the refers, so that the benchmark can tell how many providers the directory saw as new.
 */
final class StubProtocol implements Protocol {

    final AtomicLong refers = new AtomicLong();

    @Override
    public int getDefaultPort() {
        return 20880;
    }

    @Override
    public <T> Exporter<T> export(Invoker<T> invoker) {
        throw new UnsupportedOperationException("consumer only");
    }

    @Override
    public <T> Invoker<T> refer(Class<T> type, URL url) {
        refers.incrementAndGet();
        return new StubInvoker<>(type, url);
    }

    @Override
    public void destroy() {}

    static final class StubInvoker<T> implements Invoker<T> {
        private final Class<T> type;
        private final URL url;

        StubInvoker(Class<T> type, URL url) {
            this.type = type;
            this.url = url;
        }

        @Override
        public Class<T> getInterface() {
            return type;
        }

        @Override
        public Result invoke(Invocation invocation) {
            throw new RpcException(RpcException.FORBIDDEN_EXCEPTION, "stub invoker");
        }

        @Override
        public URL getUrl() {
            return url;
        }

        @Override
        public boolean isAvailable() {
            return true;
        }

        @Override
        public void destroy() {}
    }
}
