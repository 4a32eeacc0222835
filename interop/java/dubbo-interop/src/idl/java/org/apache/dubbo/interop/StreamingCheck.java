package org.apache.dubbo.interop;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.dubbo.common.stream.StreamObserver;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.protocol.tri.CancelableStreamObserver;

/**
 * Java Dubbo 3.3 calling a {@link StreamingService} provider at a tri:// URL: every stream kind,
 * an error mid-stream of each, and a consumer cancelling a server stream and a bidirectional
 * stream (the provider's {@code serverStream("cancelled")} count must grow).
 *
 * <pre>java -cp dubbo-interop.jar org.apache.dubbo.interop.StreamingCheck --url tri://127.0.0.1:P [--version V]</pre>
 *
 * With {@code --version V} the reference is of version V, and the check is instead that the
 * provider of version V answers each stream kind: a {@code "version"} request stands for the
 * provider's version in its answers (a Rust interop provider started with
 * {@code --streaming-versions} serves 1.0.0 and 2.0.0 of the interface on one port).
 *
 * Prints {@code PASS case} or {@code FAIL case: why} for each; exits 1 when any fails.
 */
public final class StreamingCheck {

    private static final long WAIT_S = 10;

    private StreamingService service;
    private int failures;

    public static void main(String[] args) throws Exception {
        String url = null;
        String version = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if ("--url".equals(args[i])) {
                url = args[i + 1];
            } else if ("--version".equals(args[i])) {
                version = args[i + 1];
            }
        }
        if (url == null) {
            System.err.println("usage: StreamingCheck --url tri://HOST:PORT [--version V]");
            System.exit(2);
        }
        if (System.getProperty("java.net.preferIPv4Stack") == null) {
            System.setProperty("java.net.preferIPv4Stack", "true");
        }
        ReferenceConfig<StreamingService> ref = new ReferenceConfig<>();
        ref.setInterface(StreamingService.class);
        // A direct 127.0.0.1 URL would be turned into the machine's address (see Consumer).
        ref.setUrl(Consumer.loopbackSafe(url));
        ref.setTimeout(10_000);
        ref.setRetries(0);
        ref.setCheck(false);
        if (version != null) {
            ref.setVersion(version);
        }
        DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                .application(new ApplicationConfig("streaming-check"))
                .reference(ref);
        bootstrap.start();
        StreamingCheck check = new StreamingCheck();
        check.service = ref.get();
        if (version != null) {
            check.runVersion(version);
        } else {
            check.run();
        }
        bootstrap.stop();
        System.exit(check.failures == 0 ? 0 : 1);
    }

    private void run() {
        test("server_stream", () -> {
            Collected c = serverStream("3");
            expect(c.items, List.of("item-0", "item-1", "item-2"));
            expect(c.error, null);
        });
        test("server_stream_error_mid_stream", () -> {
            Collected c = serverStream("2:fail");
            expect(c.items, List.of("item-0", "item-1"));
            expectError(c.error, "failed after 2");
        });
        test("server_stream_cancel", () -> {
            int before = cancelledCount();
            LinkedBlockingQueue<String> got = new LinkedBlockingQueue<>();
            CancelableStreamObserver<String> out = new CancelableStreamObserver<String>() {
                public void onNext(String m) { got.add(m); }
                public void onError(Throwable t) { }
                public void onCompleted() { }
            };
            service.serverStream("forever", out);
            for (int i = 0; i < 3; i++) {
                String m = got.poll(WAIT_S, TimeUnit.SECONDS);
                expect(m, "tick-" + i);
            }
            out.cancel(new RuntimeException("consumer cancels"));
            awaitCancelled(before);
        });
        test("client_stream", () -> {
            Collected c = new Collected();
            StreamObserver<String> in = service.clientStream(c);
            for (String m : Arrays.asList("a", "b", "c")) {
                in.onNext(m);
            }
            in.onCompleted();
            c.await();
            expect(c.items, List.of("a,b,c"));
            expect(c.error, null);
        });
        test("client_stream_error_mid_stream", () -> {
            Collected c = new Collected();
            StreamObserver<String> in = service.clientStream(c);
            in.onNext("a");
            in.onNext("fail");
            c.await();
            in.onCompleted();
            expect(c.items, List.of());
            expectError(c.error, "refused fail");
        });
        test("bi_stream", () -> {
            Collected c = new Collected();
            StreamObserver<String> in = service.biStream(c);
            in.onNext("x");
            in.onNext("y");
            in.onCompleted();
            c.await();
            expect(c.items, List.of("echo:x", "echo:y"));
            expect(c.error, null);
        });
        test("bi_stream_error_mid_stream", () -> {
            Collected c = new Collected();
            StreamObserver<String> in = service.biStream(c);
            in.onNext("x");
            in.onNext("fail");
            c.await();
            in.onCompleted();
            expect(c.items, List.of("echo:x"));
            expectError(c.error, "refused fail");
        });
        test("bi_stream_cancel", () -> {
            int before = cancelledCount();
            LinkedBlockingQueue<String> got = new LinkedBlockingQueue<>();
            StreamObserver<String> in = service.biStream(new StreamObserver<String>() {
                public void onNext(String m) { got.add(m); }
                public void onError(Throwable t) { }
                public void onCompleted() { }
            });
            in.onNext("x");
            expect(got.poll(WAIT_S, TimeUnit.SECONDS), "echo:x");
            // onError on the request side cancels the call (RST_STREAM CANCEL).
            in.onError(new RuntimeException("consumer cancels"));
            awaitCancelled(before);
        });
    }

    /** Each stream kind answered by the provider of {@code version}. */
    private void runVersion(String version) {
        test("version_" + version + ".server_stream", () -> {
            Collected c = serverStream("version");
            expect(c.items, List.of(version));
            expect(c.error, null);
        });
        test("version_" + version + ".client_stream", () -> {
            Collected c = new Collected();
            StreamObserver<String> in = service.clientStream(c);
            in.onNext("a");
            in.onNext("version");
            in.onCompleted();
            c.await();
            expect(c.items, List.of("a," + version));
            expect(c.error, null);
        });
        test("version_" + version + ".bi_stream", () -> {
            Collected c = new Collected();
            StreamObserver<String> in = service.biStream(c);
            in.onNext("version");
            in.onNext("x");
            in.onCompleted();
            c.await();
            expect(c.items, List.of("echo:" + version, "echo:x"));
            expect(c.error, null);
        });
    }

    private Collected serverStream(String request) throws Exception {
        Collected c = new Collected();
        service.serverStream(request, c);
        c.await();
        return c;
    }

    private int cancelledCount() throws Exception {
        Collected c = serverStream("cancelled");
        if (c.error != null || c.items.size() != 1) {
            throw new AssertionError("serverStream(\"cancelled\") answered " + c.items + " / " + c.error);
        }
        return Integer.parseInt(c.items.get(0));
    }

    private void awaitCancelled(int before) throws Exception {
        long end = System.currentTimeMillis() + WAIT_S * 1000;
        int now = before;
        while (System.currentTimeMillis() < end) {
            now = cancelledCount();
            if (now > before) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the provider saw no cancelled stream (count stays " + now + ")");
    }

    private void test(String name, Case c) {
        try {
            c.run();
            System.out.println("PASS " + name);
        } catch (Throwable t) {
            failures++;
            System.out.println("FAIL " + name + ": " + t);
        }
    }

    private static void expect(Object got, Object want) {
        if (want == null ? got != null : !want.equals(got)) {
            throw new AssertionError("expected " + want + ", got " + got);
        }
    }

    private static void expectError(Throwable e, String fragment) {
        if (e == null) {
            throw new AssertionError("expected an error containing \"" + fragment + "\", the stream completed");
        }
        String all = e + " " + e.getMessage();
        if (!all.contains(fragment)) {
            throw new AssertionError("expected an error containing \"" + fragment + "\", got " + all);
        }
    }

    private interface Case {
        void run() throws Exception;
    }

    /** A response observer that keeps what it receives until the stream ends. */
    private static final class Collected implements StreamObserver<String> {
        final List<String> items = new ArrayList<>();
        volatile Throwable error;
        private final CompletableFuture<Void> done = new CompletableFuture<>();

        public synchronized void onNext(String m) { items.add(m); }
        public void onError(Throwable t) { error = t; done.complete(null); }
        public void onCompleted() { done.complete(null); }

        void await() throws Exception {
            done.get(WAIT_S, TimeUnit.SECONDS);
        }
    }
}
