package org.apache.dubbo.interop;

import java.util.ArrayList;
import java.util.List;

import org.apache.dubbo.common.stream.StreamObserver;
import org.apache.dubbo.interop.tri.DubboGreeterTriple;
import org.apache.dubbo.interop.tri.GreeterReply;
import org.apache.dubbo.interop.tri.GreeterRequest;
import org.apache.dubbo.rpc.RpcContext;

/**
 * The contract's Greeter (IDL service {@code org.apache.dubbo.interop.tri.Greeter}, generated from
 * {@code interop/proto/greeter.proto}), implemented on the Dubbo-generated
 * {@link DubboGreeterTriple.GreeterImplBase} like any Dubbo 3.3 IDL service.
 *
 * <ul>
 *   <li>{@code Greet}: {@code "Hello " + name}</li>
 *   <li>{@code GreetServerStream}: 10 replies {@code "Hello " + name + " #" + i}, i = 0..9</li>
 *   <li>{@code GreetClientStream}: one reply {@code "Hello " + names joined by ","} once the client
 *       half-closes (no request at all gives {@code "Hello "})</li>
 *   <li>{@code GreetBiStream}: one reply {@code "Hello " + name} per request, sent as soon as the
 *       request arrives; completes when the client half-closes</li>
 * </ul>
 */
public final class GreeterImpl extends DubboGreeterTriple.GreeterImplBase {

    public static final int SERVER_STREAM_REPLIES = 10;

    static GreeterReply reply(String message) {
        return GreeterReply.newBuilder().setMessage(message).build();
    }

    private static void debug(String method) {
        if (Debug.ENABLED) {
            Debug.log("Greeter/" + method + " attachments " + RpcContext.getServerAttachment().getObjectAttachments());
        }
    }

    @Override
    public GreeterReply greet(GreeterRequest request) {
        debug("Greet");
        return reply("Hello " + request.getName());
    }

    @Override
    public void greetServerStream(GreeterRequest request, StreamObserver<GreeterReply> responseObserver) {
        debug("GreetServerStream");
        for (int i = 0; i < SERVER_STREAM_REPLIES; i++) {
            responseObserver.onNext(reply("Hello " + request.getName() + " #" + i));
        }
        responseObserver.onCompleted();
    }

    @Override
    public StreamObserver<GreeterRequest> greetClientStream(StreamObserver<GreeterReply> responseObserver) {
        debug("GreetClientStream");
        List<String> names = new ArrayList<>();
        return new StreamObserver<>() {
            @Override
            public void onNext(GreeterRequest request) {
                synchronized (names) {
                    names.add(request.getName());
                }
            }

            @Override
            public void onError(Throwable t) {
                if (Debug.ENABLED) {
                    Debug.log("Greeter/GreetClientStream: client error " + t);
                }
            }

            @Override
            public void onCompleted() {
                String joined;
                synchronized (names) {
                    joined = String.join(",", names);
                }
                responseObserver.onNext(reply("Hello " + joined));
                responseObserver.onCompleted();
            }
        };
    }

    @Override
    public StreamObserver<GreeterRequest> greetBiStream(StreamObserver<GreeterReply> responseObserver) {
        debug("GreetBiStream");
        return new StreamObserver<>() {
            @Override
            public void onNext(GreeterRequest request) {
                responseObserver.onNext(reply("Hello " + request.getName()));
            }

            @Override
            public void onError(Throwable t) {
                if (Debug.ENABLED) {
                    Debug.log("Greeter/GreetBiStream: client error " + t);
                }
            }

            @Override
            public void onCompleted() {
                responseObserver.onCompleted();
            }
        };
    }
}
