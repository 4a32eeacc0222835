package org.apache.dubbo.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.dubbo.common.stream.StreamObserver;
import org.apache.dubbo.remoting.http12.h2.Http2CancelableStreamObserver;
import org.apache.dubbo.rpc.CancellationContext;

/** {@link StreamingService} as its javadoc says. */
public class StreamingServiceImpl implements StreamingService {

    private final AtomicInteger cancelled = new AtomicInteger();

    @Override
    public void serverStream(String request, StreamObserver<String> out) {
        if ("cancelled".equals(request)) {
            out.onNext(Integer.toString(cancelled.get()));
            out.onCompleted();
            return;
        }
        if ("forever".equals(request)) {
            CancellationContext ctx = out instanceof Http2CancelableStreamObserver
                    ? ((Http2CancelableStreamObserver<String>) out).getCancellationContext()
                    : null;
            Thread t = new Thread(() -> {
                long end = System.currentTimeMillis() + 30_000;
                for (int i = 0; System.currentTimeMillis() < end; i++) {
                    if (ctx != null && ctx.isCancelled()) {
                        cancelled.incrementAndGet();
                        return;
                    }
                    try {
                        out.onNext("tick-" + i);
                        Thread.sleep(20);
                    } catch (Throwable e) {
                        cancelled.incrementAndGet();
                        return;
                    }
                }
                out.onCompleted();
            }, "server-stream-forever");
            t.setDaemon(true);
            t.start();
            return;
        }
        boolean fail = request.endsWith(":fail");
        int n = Integer.parseInt(fail ? request.substring(0, request.length() - 5) : request);
        for (int i = 0; i < n; i++) {
            out.onNext("item-" + i);
        }
        if (fail) {
            out.onError(new IllegalStateException("failed after " + n));
        } else {
            out.onCompleted();
        }
    }

    @Override
    public StreamObserver<String> clientStream(StreamObserver<String> out) {
        return new StreamObserver<String>() {
            private final List<String> items = new ArrayList<>();
            private boolean failed;

            @Override
            public void onNext(String m) {
                if (failed) {
                    return;
                }
                if ("fail".equals(m)) {
                    failed = true;
                    out.onError(new IllegalArgumentException("refused fail"));
                    return;
                }
                items.add(m);
            }

            @Override
            public void onError(Throwable t) {
                cancelled.incrementAndGet();
            }

            @Override
            public void onCompleted() {
                if (!failed) {
                    out.onNext(String.join(",", items));
                    out.onCompleted();
                }
            }
        };
    }

    @Override
    public StreamObserver<String> biStream(StreamObserver<String> out) {
        return new StreamObserver<String>() {
            private boolean failed;

            @Override
            public void onNext(String m) {
                if (failed) {
                    return;
                }
                if ("fail".equals(m)) {
                    failed = true;
                    out.onError(new IllegalArgumentException("refused fail"));
                    return;
                }
                out.onNext("echo:" + m);
            }

            @Override
            public void onError(Throwable t) {
                cancelled.incrementAndGet();
            }

            @Override
            public void onCompleted() {
                if (!failed) {
                    out.onCompleted();
                }
            }
        };
    }
}
