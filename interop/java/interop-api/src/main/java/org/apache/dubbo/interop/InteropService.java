package org.apache.dubbo.interop;

import java.math.BigDecimal;
import java.util.Date;
import java.util.List;
import java.util.Map;

/**
 * The interop service every dubbo-rs protocol serves and calls (interface style: dubbo:// and
 * tri:// wrapper mode). Service version {@code 1.0.0}, no group.
 *
 * <p>Method names, parameter and return types are part of the wire contract (they end up in the
 * dubbo:// parameter descriptor and the Triple wrapper argTypes): do not change them.
 */
public interface InteropService {

    /** Returns {@code "Hello " + name}. */
    String sayHello(String name);

    /** Returns {@code a + b}, wrapping on 32-bit overflow. */
    int addInt(int a, int b);

    long echoLong(long v);

    double echoDouble(double v);

    boolean echoBool(boolean v);

    /** Returns {@code v} unchanged: any Unicode, {@code ""} and {@code null}. */
    String echoString(String v);

    byte[] echoBytes(byte[] v);

    List<String> echoList(List<String> v);

    Map<String, Integer> echoMap(Map<String, Integer> v);

    /** Returns {@code u}; {@code null} stays {@code null}. */
    User echoUser(User u);

    /**
     * Returns {@code n} users, i = 0..n-1: id {@code i}, name {@code "user-" + i},
     * age {@code 20 + i % 50}, tags {@code ["t" + i]}, attrs {@code {"k": "v" + i}}.
     */
    List<User> listUsers(int n);

    BigDecimal echoDecimal(BigDecimal v);

    /** Returns {@code v} (millisecond precision). */
    Date echoDate(Date v);

    /** Always throws {@code new IllegalStateException(message)}. */
    void fail(String message);

    /** Returns the value of request attachment {@code key}, or {@code null}. */
    String getAttachment(String key);

    /** Waits {@code millis} ms, then returns {@code "slept " + millis}. */
    String sleep(int millis);
}
