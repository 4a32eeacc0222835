package org.apache.dubbo.interop;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;

/** InteropService version 1.0.0, exactly as the interop contract describes it. */
public class InteropServiceImpl implements InteropService {

    /** Prefix of the response attachment that {@link #getAttachment} sets. */
    public static final String ECHO_PREFIX = "echo.";

    protected String greeting() {
        return "Hello ";
    }

    @Override
    public String sayHello(String name) {
        return greeting() + name;
    }

    @Override
    public int addInt(int a, int b) {
        return a + b; // Java int arithmetic wraps, as the contract wants
    }

    @Override
    public long echoLong(long v) {
        return v;
    }

    @Override
    public double echoDouble(double v) {
        return v;
    }

    @Override
    public boolean echoBool(boolean v) {
        return v;
    }

    @Override
    public String echoString(String v) {
        return v;
    }

    @Override
    public byte[] echoBytes(byte[] v) {
        return v;
    }

    @Override
    public List<String> echoList(List<String> v) {
        return v;
    }

    @Override
    public Map<String, Integer> echoMap(Map<String, Integer> v) {
        return v;
    }

    @Override
    public User echoUser(User u) {
        return u;
    }

    @Override
    public List<User> listUsers(int n) {
        List<User> users = new ArrayList<>(Math.max(n, 0));
        for (int i = 0; i < n; i++) {
            users.add(User.of(i));
        }
        return users;
    }

    @Override
    public BigDecimal echoDecimal(BigDecimal v) {
        return v;
    }

    @Override
    public Date echoDate(Date v) {
        return v;
    }

    @Override
    public void fail(String message) {
        throw new IllegalStateException(message);
    }

    /**
     * Returns request attachment {@code key} (or null) and, so callers can test attachments flowing
     * back, sets the response attachment {@code "echo." + key} to the same value.
     */
    @Override
    public String getAttachment(String key) {
        String value = Compat.serverAttachment(key);
        if (Debug.ENABLED) {
            Debug.log("getAttachment(" + key + "): request attachments = "
                    + Compat.serverAttachments());
        }
        if (value != null) {
            Compat.setResponseAttachment(ECHO_PREFIX + key, value);
        }
        return value;
    }

    @Override
    public String sleep(int millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "slept " + millis;
    }
}
