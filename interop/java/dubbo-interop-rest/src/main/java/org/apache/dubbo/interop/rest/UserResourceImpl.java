package org.apache.dubbo.interop.rest;

import java.util.ArrayList;
import java.util.List;

import org.apache.dubbo.interop.User;
import org.apache.dubbo.remoting.http12.exception.HttpStatusException;
import org.springframework.http.ResponseEntity;

/** The contract's behaviour, as the Rust interop server implements it. */
public final class UserResourceImpl implements UserResource {

    /** How far {@code GET /users} looks for names with the prefix asked. */
    private static final int SEARCH_LIMIT = 100_000;

    @Override
    public User getUser(long id) throws HttpStatusException {
        if (id < 0) {
            throw new HttpStatusException(404, "no user with id " + id);
        }
        return User.of((int) id);
    }

    @Override
    public List<User> findUsers(int limit, String prefix) {
        List<User> out = new ArrayList<>();
        for (int i = 0; i < SEARCH_LIMIT && out.size() < limit; i++) {
            if (("user-" + i).startsWith(prefix)) {
                out.add(User.of(i));
            }
        }
        return out;
    }

    /**
     * The header is named in lower case: Dubbo 3.3.6 writes a ResponseEntity's header names as
     * given into HTTP/2 HEADERS frames, and HTTP/2 (RFC 9113, 8.2.1) makes a response with an
     * upper-case field name ({@code Location}) malformed, so every HTTP/2 client (hyper, curl,
     * nghttp) resets the stream. Over HTTP/1.1 names are case-insensitive and either works.
     */
    @Override
    public ResponseEntity<User> createUser(User user) {
        return ResponseEntity.status(201).header("location", "/users/" + user.getId()).body(user);
    }

    @Override
    public User createUserForm(long id, String name, int age) {
        return new User(id, name, age, null, null);
    }

    @Override
    public String greeting(long id, String language) {
        boolean french = language != null && language.trim().toLowerCase().startsWith("fr");
        return (french ? "Bonjour user-" : "Hello user-") + id;
    }

    @Override
    public void deleteUser(long id) {
    }
}
