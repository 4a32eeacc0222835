package org.apache.dubbo.interop;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The ~1 KB POJO of the Hessian benchmarks ({@link org.apache.dubbo.interop.hessian.Bench}), the
 * same class as the Rust benches' {@code BenchPojo} in
 * {@code crates/hessian2/benches/common/mod.rs} (Hessian class name {@code org.apache.dubbo.interop.BenchPojo}).
 *
 * <p>Fields, in declaration order:
 * {@code long id; String name; String email; int age; double score; boolean active;
 * String description; java.util.Date created; List<String> tags; Map<String,String> attrs}.
 *
 * <p>{@link #of(long) BenchPojo(i)}:
 * <pre>
 *   id          = i
 *   name        = "user-" + i
 *   email       = "user-" + i + "@example.org"
 *   age         = 20 + i % 50
 *   score       = 12.25 + i
 *   active      = i % 2 == 0
 *   description = "abcdefghij" repeated 30 times (300 chars)
 *   created     = new Date(1_700_000_000_000L + i * 1000)
 *   tags        = ArrayList of 10: "tag-" + i + "-" + t, t = 0..9
 *   attrs       = HashMap of 10: "key-" + k -&gt; "value-" + i + "-" + k, k = 0..9
 * </pre>
 * With hessian-lite 4.0.4, {@code writeObject(BenchPojo(1))} on a fresh Hessian2Output (so the
 * class definition is included) gives 690 bytes. hessian-lite lists the fields in the class
 * definition in <em>reverse</em> declaration order ({@code attrs, tags, created, description,
 * active, score, age, email, name, id}) and writes the attrs in HashMap iteration order; a writer
 * that uses declaration order produces other bytes of the same size.
 */
public class BenchPojo implements Serializable {

    private static final long serialVersionUID = 1L;

    private long id;
    private String name;
    private String email;
    private int age;
    private double score;
    private boolean active;
    private String description;
    private Date created;
    private List<String> tags;
    private Map<String, String> attrs;

    public BenchPojo() {
    }

    /** BenchPojo(i) as defined in the class comment. */
    public static BenchPojo of(long i) {
        BenchPojo p = new BenchPojo();
        p.id = i;
        p.name = "user-" + i;
        p.email = "user-" + i + "@example.org";
        p.age = 20 + (int) (i % 50);
        p.score = 12.25 + i;
        p.active = i % 2 == 0;
        p.description = "abcdefghij".repeat(30);
        p.created = new Date(1_700_000_000_000L + i * 1000);
        p.tags = new ArrayList<>();
        for (int t = 0; t < 10; t++) {
            p.tags.add("tag-" + i + "-" + t);
        }
        p.attrs = new HashMap<>();
        for (int k = 0; k < 10; k++) {
            p.attrs.put("key-" + k, "value-" + i + "-" + k);
        }
        return p;
    }

    public long getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public String getEmail() {
        return email;
    }

    public int getAge() {
        return age;
    }

    public double getScore() {
        return score;
    }

    public boolean isActive() {
        return active;
    }

    public String getDescription() {
        return description;
    }

    public Date getCreated() {
        return created;
    }

    public List<String> getTags() {
        return tags;
    }

    public Map<String, String> getAttrs() {
        return attrs;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o == null || getClass() != o.getClass()) {
            return false;
        }
        BenchPojo other = (BenchPojo) o;
        return id == other.id
                && age == other.age
                && Double.compare(score, other.score) == 0
                && active == other.active
                && Objects.equals(name, other.name)
                && Objects.equals(email, other.email)
                && Objects.equals(description, other.description)
                && Objects.equals(created, other.created)
                && Objects.equals(tags, other.tags)
                && Objects.equals(attrs, other.attrs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, name, email, age, score, active, description, created, tags, attrs);
    }

    @Override
    public String toString() {
        return "BenchPojo{id=" + id + ", name=" + name + ", email=" + email + ", age=" + age + ", score=" + score
                + ", active=" + active + ", description=(" + (description == null ? "null" : description.length() + " chars")
                + "), created=" + (created == null ? null : created.getTime()) + ", tags=" + tags + ", attrs=" + attrs + '}';
    }
}
