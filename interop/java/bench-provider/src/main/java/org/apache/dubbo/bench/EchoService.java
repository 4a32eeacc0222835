package org.apache.dubbo.bench;

import java.util.List;

import org.apache.dubbo.interop.User;

/**
 * The interface-mode service of the benchmark (dubbo:// with hessian2, tri:// in wrapper mode);
 * the dubbo-rs side is {@code EchoService} in bench/src/service.rs.
 */
public interface EchoService {

    /** Nothing in, nothing out (the "empty" scenario). */
    void ping();

    /** The same bytes back (the "echo128" / "echo1k" scenarios). */
    byte[] echo(byte[] data);

    /** Users 0..n-1, {@link User#of(int)} (the "list100" scenario, dubbo-benchmark's POJO list). */
    List<User> listUsers(int n);
}
