package org.apache.dubbo.interop;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The POJO of the interop contract. Field names, types and declaration order are part of the
 * Hessian wire form (class definition), so keep them exactly as they are.
 */
public class User implements Serializable {

    private static final long serialVersionUID = 1L;

    private long id;
    private String name;
    private int age;
    private List<String> tags;
    private Map<String, String> attrs;

    public User() {
    }

    public User(long id, String name, int age, List<String> tags, Map<String, String> attrs) {
        this.id = id;
        this.name = name;
        this.age = age;
        this.tags = tags;
        this.attrs = attrs;
    }

    /**
     * The contract's {@code User(i)}: id {@code i}, name {@code "user-" + i}, age
     * {@code 20 + i % 50}, tags {@code ArrayList ["t" + i]}, attrs {@code HashMap {"k": "v" + i}}.
     */
    public static User of(int i) {
        List<String> tags = new ArrayList<>();
        tags.add("t" + i);
        Map<String, String> attrs = new HashMap<>();
        attrs.put("k", "v" + i);
        return new User(i, "user-" + i, 20 + i % 50, tags, attrs);
    }

    public long getId() {
        return id;
    }

    public void setId(long id) {
        this.id = id;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public int getAge() {
        return age;
    }

    public void setAge(int age) {
        this.age = age;
    }

    public List<String> getTags() {
        return tags;
    }

    public void setTags(List<String> tags) {
        this.tags = tags;
    }

    public Map<String, String> getAttrs() {
        return attrs;
    }

    public void setAttrs(Map<String, String> attrs) {
        this.attrs = attrs;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o == null || getClass() != o.getClass()) {
            return false;
        }
        User other = (User) o;
        return id == other.id
                && age == other.age
                && Objects.equals(name, other.name)
                && Objects.equals(tags, other.tags)
                && Objects.equals(attrs, other.attrs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, name, age, tags, attrs);
    }

    @Override
    public String toString() {
        return "User{id=" + id + ", name=" + (name == null ? "null" : '"' + name + '"') + ", age=" + age
                + ", tags=" + tags + ", attrs=" + attrs + '}';
    }
}
