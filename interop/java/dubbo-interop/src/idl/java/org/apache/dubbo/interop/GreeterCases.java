package org.apache.dubbo.interop;

import static org.apache.dubbo.interop.Consumer.describe;
import static org.apache.dubbo.interop.Consumer.expect;
import static org.apache.dubbo.interop.Consumer.show;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

import org.apache.dubbo.common.stream.StreamObserver;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.interop.Consumer.Mismatch;
import org.apache.dubbo.interop.tri.Greeter;
import org.apache.dubbo.interop.tri.GreeterReply;
import org.apache.dubbo.interop.tri.GreeterRequest;

/**
 * The Consumer's Greeter (IDL, protobuf) cases, tri:// only. Dubbo 3.x sources only: the Dubbo 2.7
 * build has a stand-in with no cases (2.7 has no Triple).
 */
final class GreeterCases {

    private Greeter greeter;
    private int timeoutMs;

    /**
     * The Greeter reference: no version, no group (like a gRPC service). {@code url} null: found
     * through the registry, among the tri:// providers.
     */
    ReferenceConfig<?> reference(String url, int timeout) {
        ReferenceConfig<Greeter> ref = new ReferenceConfig<>();
        ref.setId("greeter");
        ref.setInterface(Greeter.class);
        if (url != null) {
            ref.setUrl(url);
        } else {
            ref.setProtocol("tri");
        }
        ref.setTimeout(timeout);
        ref.setRetries(0);
        ref.setCheck(false);
        return ref;
    }

    void bind(ReferenceConfig<?> ref, int timeout) {
        greeter = (Greeter) ref.get();
        timeoutMs = timeout;
    }

    // ------------------------------------------------------------------------------------------
    // Greeter (IDL, protobuf) cases: tri:// only
    // ------------------------------------------------------------------------------------------

    static GreeterRequest greeterRequest(String name) {
        return GreeterRequest.newBuilder().setName(name).build();
    }

    /**
     * Collects the replies of one Greeter call: every message in arrival order, plus a queue for
     * waiting on them one at a time (bidirectional ping-pong), and how the stream ended.
     */
    static final class Replies implements StreamObserver<GreeterReply> {
        private final List<String> messages = Collections.synchronizedList(new ArrayList<>());
        private final LinkedBlockingQueue<String> queue = new LinkedBlockingQueue<>();
        private final CompletableFuture<Void> done = new CompletableFuture<>();
        private volatile String violation;

        @Override
        public void onNext(GreeterReply reply) {
            if (done.isDone() && violation == null) {
                violation = "reply " + show(reply.getMessage()) + " after the end of the stream";
            }
            messages.add(reply.getMessage());
            queue.add(reply.getMessage());
        }

        @Override
        public void onError(Throwable t) {
            done.completeExceptionally(t);
        }

        @Override
        public void onCompleted() {
            done.complete(null);
        }

        /** The next reply, waiting at most timeoutMs. */
        String next(String what, long timeoutMs) throws InterruptedException {
            String m = queue.poll(timeoutMs, TimeUnit.MILLISECONDS);
            if (m != null) {
                return m;
            }
            if (done.isCompletedExceptionally()) {
                awaitEnd(what, 0); // throws the stream's error as a Mismatch
            }
            throw new Mismatch(what + ": no reply within " + timeoutMs + " ms"
                    + (done.isDone() ? " (the stream ended)" : "") + ", replies so far " + messages);
        }

        /** Waits for the end of the stream and returns every message received. */
        List<String> awaitEnd(String what, long timeoutMs) throws InterruptedException {
            try {
                done.get(timeoutMs, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new Mismatch(what + ": the stream did not end within " + timeoutMs + " ms, replies so far "
                        + messages);
            } catch (ExecutionException e) {
                throw new Mismatch(what + ": the stream failed after " + messages.size() + " replies: "
                        + describe(e.getCause()));
            }
            if (violation != null) {
                throw new Mismatch(what + ": " + violation);
            }
            synchronized (messages) {
                return new ArrayList<>(messages);
            }
        }
    }

    void define(BiConsumer<String, Consumer.Body> addTriple) {
        addTriple.accept("greet", () -> {
            GreeterReply r = greeter.greet(greeterRequest("world"));
            expect("Greet(world)", "Hello world", r == null ? null : r.getMessage());
        });
        addTriple.accept("greet_unicode", () -> {
            String name = "\u4e16\u754c \uD83D\uDE00";
            GreeterReply r = greeter.greet(greeterRequest(name));
            expect("Greet(" + name + ")", "Hello " + name, r == null ? null : r.getMessage());
        });
        addTriple.accept("greet_async", () -> {
            // Same call on the wire (path .../Greet), through the stub's CompletableFuture variant.
            GreeterReply r = greeter.greetAsync(greeterRequest("async")).get(timeoutMs, TimeUnit.MILLISECONDS);
            expect("Greet(async)", "Hello async", r == null ? null : r.getMessage());
        });
        addTriple.accept("greetServerStream", () -> {
            Replies replies = new Replies();
            greeter.greetServerStream(greeterRequest("world"), replies);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                expected.add("Hello world #" + i);
            }
            expect("GreetServerStream(world)", expected, replies.awaitEnd("GreetServerStream", timeoutMs));
        });
        addTriple.accept("greetClientStream", () -> {
            Replies replies = new Replies();
            StreamObserver<GreeterRequest> requests = greeter.greetClientStream(replies);
            for (String n : new String[] {"a", "b", "c"}) {
                requests.onNext(greeterRequest(n));
            }
            requests.onCompleted();
            expect("GreetClientStream(a, b, c)", List.of("Hello a,b,c"), replies.awaitEnd("GreetClientStream", timeoutMs));
        });
        // No "empty client stream" case: a Dubbo 3.3.6 client that half-closes a client stream
        // without any message sends nothing at all (not even HEADERS), so the call never ends.
        // Java providers do answer "Hello " to such a stream from a gRPC client.
        addTriple.accept("greetBiStream", () -> {
            // Ping-pong: each reply must arrive before the next request is sent (and before the
            // client half-closes), so the server really answers while the stream is open.
            Replies replies = new Replies();
            StreamObserver<GreeterRequest> requests = greeter.greetBiStream(replies);
            String[] names = {"a", "b", "c", "d", "e"};
            for (String n : names) {
                requests.onNext(greeterRequest(n));
                expect("GreetBiStream reply to " + n, "Hello " + n, replies.next("GreetBiStream", timeoutMs));
            }
            requests.onCompleted();
            List<String> all = replies.awaitEnd("GreetBiStream", timeoutMs);
            if (all.size() != names.length) {
                throw new Mismatch("GreetBiStream: expected " + names.length + " replies in all got " + all);
            }
        });
        addTriple.accept("greetBiStream_burst", () -> {
            // 100 requests sent without waiting, then half-close: 100 replies in order.
            Replies replies = new Replies();
            StreamObserver<GreeterRequest> requests = greeter.greetBiStream(replies);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                requests.onNext(greeterRequest("n" + i));
                expected.add("Hello n" + i);
            }
            requests.onCompleted();
            expect("GreetBiStream(n0..n99)", expected, replies.awaitEnd("GreetBiStream", timeoutMs));
        });
    }
}
