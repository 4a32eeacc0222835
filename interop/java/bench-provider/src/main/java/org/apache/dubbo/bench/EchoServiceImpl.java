package org.apache.dubbo.bench;

import java.util.ArrayList;
import java.util.List;

import org.apache.dubbo.interop.User;

/** {@link EchoService}, doing the same work as the dubbo-rs provider. */
public final class EchoServiceImpl implements EchoService {

    @Override
    public void ping() {
    }

    @Override
    public byte[] echo(byte[] data) {
        return data;
    }

    @Override
    public List<User> listUsers(int n) {
        List<User> users = new ArrayList<>(Math.max(n, 0));
        for (int i = 0; i < n; i++) {
            users.add(User.of(i));
        }
        return users;
    }
}
