package org.apache.dubbo.interop;

import org.apache.dubbo.common.stream.StreamObserver;

/**
 * The contract's streaming interface (interface mode, Hessian 2 in Triple's wrappers), served
 * over tri:// only, without version or group. (The Rust interop provider started with
 * {@code --streaming-versions} also serves it as 1.0.0 and 2.0.0 on the same port, where a
 * request {@code "version"} stands for the provider's version in each answer; see
 * {@link StreamingCheck}.)
 *
 * <ul>
 *   <li>{@code serverStream("N")}: {@code item-0} .. {@code item-(N-1)}, then completes;
 *       {@code "N:fail"}: the N items, then the error {@code failed after N};
 *       {@code "forever"}: {@code tick-i} every 20 ms until the consumer cancels (30 s at most);
 *       {@code "cancelled"}: one item, how many streams of this provider ended cancelled.</li>
 *   <li>{@code clientStream}: the requests joined with {@code ","} once the consumer completes;
 *       a request {@code "fail"} ends the call with the error {@code refused fail}.</li>
 *   <li>{@code biStream}: {@code echo:m} for each request m, completes when the consumer does;
 *       {@code "fail"} ends the call with the error {@code refused fail}.</li>
 * </ul>
 */
public interface StreamingService {

    void serverStream(String request, StreamObserver<String> out);

    StreamObserver<String> clientStream(StreamObserver<String> out);

    StreamObserver<String> biStream(StreamObserver<String> out);
}
