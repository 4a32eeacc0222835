"""The default /{interface}/{method} form, asked of a Java Dubbo 3.3 provider and of a dubbo-rs
provider of InteropService: the same requests must get the same status and the same JSON
(nulls aside: Java leaves null fields out; an error's "exception" aside: dubbo-rs adds it).
Usage: rest_compare.py JAVA_BASE RUST_BASE

Ends with "N passed, N failed"; exits 1 if any failed.
"""
import sys

import requests

IFACE = "/org.apache.dubbo.interop.InteropService"
V1 = {"tri-service-version": "1.0.0"}


def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if x is not None and k != "exception"}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def main(java, rust):
    user = {"id": 5, "name": "u5", "age": 25, "tags": ["a"], "attrs": {"k": "v"}}
    cases = [
        ("sayHello, JSON array", "sayHello", ["world"], V1),
        ("sayHello, no version header", "sayHello", ["world"], {}),
        ("addInt, two arguments", "addInt", [2, 3], V1),
        ("echoUser, a POJO", "echoUser", [user], V1),
        ("echoLong (Java 3.3.6 truncates longs over 32 bits in this form)", "echoLong", [42], V1),
        ("listUsers", "listUsers", [2], V1),
        ("fail: business exception", "fail", ["boom"], V1),
        ("unknown method", "noSuchMethod", [], V1),
    ]
    passed = failed = 0
    for name, method, body, headers in cases:
        answers = []
        for base in (java, rust):
            r = requests.post(f"{base}{IFACE}/{method}", json=body, headers=headers)
            try:
                value = strip(r.json())
            except ValueError:
                value = r.text
            # Error messages differ in wording between the two; the status and, for a
            # business exception, its message must not.
            if r.status_code == 404 and isinstance(value, dict):
                value = {"status": value.get("status")}
            answers.append((r.status_code, value))
        if answers[0] == answers[1]:
            print(f"ok {name}: {answers[0]}")
            passed += 1
        else:
            print(f"FAILED {name}: Java {answers[0]}, dubbo-rs {answers[1]}")
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1].rstrip("/"), sys.argv[2].rstrip("/")))
