package org.apache.dubbo.interop.rest;

import java.util.List;

import org.apache.dubbo.interop.User;
import org.apache.dubbo.remoting.http12.exception.HttpStatusException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;

/**
 * CONTRACT.md §5's {@code UserResource}, mapped with Spring MVC annotations, which Java Dubbo 3.3's
 * triple rest reads (dubbo-rest-spring) and serves on the tri port. Every method names its whole
 * path: Dubbo 3.3.6 registers no route for a method mapping without a path of its own under a
 * class-level {@code @RequestMapping} ({@code GET /users} answered 404 "Invoker not found").
 * {@code getUser} declares {@link HttpStatusException} so that Dubbo's exception filter passes it
 * as thrown (a 404) instead of wrapping it in a RuntimeException (a 500).
 */
public interface UserResource {

    /** {@code GET /users/{id}}: the user {@code User.of(id)}; 404 for id &lt; 0. */
    @GetMapping("/users/{id}")
    User getUser(@PathVariable("id") long id) throws HttpStatusException;

    /** {@code GET /users?limit=N&prefix=P}: the first N users whose name starts with P. */
    @GetMapping("/users")
    List<User> findUsers(@RequestParam(value = "limit", defaultValue = "10") int limit,
            @RequestParam(value = "prefix", defaultValue = "user-") String prefix);

    /** {@code POST /users} with a JSON user: 201, the user back, {@code Location: /users/{id}}. */
    @PostMapping(value = "/users", consumes = "application/json")
    ResponseEntity<User> createUser(@RequestBody User user);

    /** {@code POST /users/form} with form fields {@code id}, {@code name}, {@code age}. */
    @PostMapping(value = "/users/form", consumes = "application/x-www-form-urlencoded")
    User createUserForm(@RequestParam("id") long id, @RequestParam("name") String name,
            @RequestParam("age") int age);

    /** {@code GET /users/{id}/greeting}: Bonjour for {@code Accept-Language: fr}, else Hello. */
    @GetMapping(value = "/users/{id}/greeting", produces = "text/plain")
    String greeting(@PathVariable("id") long id,
            @RequestHeader(value = "Accept-Language", required = false) String language);

    /** {@code DELETE /users/{id}}: 204, no body. */
    @DeleteMapping("/users/{id}")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    void deleteUser(@PathVariable("id") long id);
}
