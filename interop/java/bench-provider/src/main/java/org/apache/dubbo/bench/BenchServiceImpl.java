package org.apache.dubbo.bench;

import com.google.protobuf.ByteString;

import org.apache.dubbo.common.stream.StreamObserver;

/**
 * The IDL BenchService (bench/proto/bench.proto) on the Dubbo-generated
 * {@link DubboBenchServiceTriple.BenchServiceImplBase}, doing the same work as the dubbo-rs and
 * tonic servers.
 */
public final class BenchServiceImpl extends DubboBenchServiceTriple.BenchServiceImplBase {

    private static final Empty EMPTY = Empty.getDefaultInstance();

    @Override
    public Empty ping(Empty request) {
        return EMPTY;
    }

    @Override
    public Payload echo(Payload request) {
        return request;
    }

    @Override
    public UserList listUsers(ListRequest request) {
        UserList.Builder list = UserList.newBuilder();
        for (int i = 0; i < request.getN(); i++) {
            list.addUsers(User.newBuilder()
                    .setId(i)
                    .setName("user-" + i)
                    .setAge(20 + i % 50)
                    .addTags("t" + i)
                    .putAttrs("k", "v" + i));
        }
        return list.build();
    }

    @Override
    public void streamEcho(StreamRequest request, StreamObserver<Payload> responseObserver) {
        int size = Math.max(request.getSize(), 0);
        for (int i = 0; i < request.getCount(); i++) {
            byte[] data = new byte[size];
            java.util.Arrays.fill(data, (byte) 0x5a);
            responseObserver.onNext(Payload.newBuilder().setData(ByteString.copyFrom(data)).build());
        }
        responseObserver.onCompleted();
    }
}
