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

    @Override
    public ResponseEntity<User> createUser(User user) {
        return ResponseEntity.status(201).header("Location", "/users/" + user.getId()).body(user);
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
