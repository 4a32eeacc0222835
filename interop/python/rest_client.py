"""Python `requests` against the REST table of CONTRACT.md §5 (UserResource on the tri port)
and InteropService's default mapping. Usage: rest_client.py http://127.0.0.1:PORT

Prints one line per case and ends with "N passed, N failed"; exits 1 if any failed.
"""
import sys

import requests


def user(i):
    return {"id": i, "name": f"user-{i}", "age": 20 + i % 50, "tags": [f"t{i}"], "attrs": {"k": f"v{i}"}}


def main(base):
    iface = f"{base}/org.apache.dubbo.interop.InteropService"
    s = requests.Session()
    cases = []

    def case(name):
        def register(fn):
            cases.append((name, fn))
            return fn
        return register

    @case("GET /users/{id}")
    def _():
        r = s.get(f"{base}/users/7")
        assert r.status_code == 200, r.status_code
        assert r.headers["Content-Type"].startswith("application/json")
        assert r.json() == user(7), r.text

    @case("GET /users?limit=N&prefix=P")
    def _():
        r = s.get(f"{base}/users", params={"limit": 4, "prefix": "user-2"})
        assert r.status_code == 200, r.status_code
        assert r.json() == [user(i) for i in (2, 20, 21, 22)], r.text
        r = s.get(f"{base}/users")
        assert [u["id"] for u in r.json()] == list(range(10)), r.text

    @case("POST /users (JSON)")
    def _():
        body = {"id": 77, "name": "py", "age": 9, "tags": ["a", "b"], "attrs": {"p": "q"}}
        r = s.post(f"{base}/users", json=body)
        assert r.status_code == 201, r.status_code
        assert r.headers["Location"] == "/users/77", r.headers
        assert r.json() == body, r.text

    @case("POST /users/form")
    def _():
        r = s.post(f"{base}/users/form", data={"id": 5, "name": "Zoë & co", "age": 31})
        assert r.status_code == 200, r.status_code
        assert r.json() == {"id": 5, "name": "Zoë & co", "age": 31, "tags": None, "attrs": None}, r.text

    @case("GET /users/{id}/greeting")
    def _():
        r = s.get(f"{base}/users/12/greeting", headers={"Accept-Language": "fr"})
        assert (r.status_code, r.text) == (200, "Bonjour user-12"), r.text
        assert r.headers["Content-Type"].startswith("text/plain")
        r = s.get(f"{base}/users/12/greeting")
        assert (r.status_code, r.text) == (200, "Hello user-12"), r.text

    @case("GET /users/{id} with id < 0")
    def _():
        r = s.get(f"{base}/users/-9")
        assert r.status_code == 404, r.status_code
        assert "-9" in r.json()["message"], r.text

    @case("DELETE /users/{id}")
    def _():
        r = s.delete(f"{base}/users/3")
        assert (r.status_code, r.content) == (204, b""), r.content

    @case("InteropService default mapping: POST [\"world\"], GET ?name=world")
    def _():
        r = s.post(f"{iface}/sayHello", json=["world"])
        assert (r.status_code, r.json()) == (200, "Hello world"), r.text
        r = s.get(f"{iface}/sayHello", params={"name": "world"})
        assert (r.status_code, r.json()) == (200, "Hello world"), r.text
        r = s.post(f"{iface}/echoUser", json=user(4))
        assert r.json() == user(4), r.text

    @case("bad input: 400, 404, 405, then still serving")
    def _():
        r = s.post(f"{base}/users", data="{not json", headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and r.json()["status"] == "400", r.text
        assert s.get(f"{base}/users/x1").status_code == 400
        assert s.get(f"{base}/nothing/here").status_code == 404
        r = s.patch(f"{base}/users/1")
        assert r.status_code == 405 and r.headers["Allow"] == "GET, DELETE", r.headers
        assert s.get(f"{base}/users/1").json() == user(1)

    passed = failed = 0
    for name, fn in cases:
        try:
            fn()
            print(f"ok {name}")
            passed += 1
        except Exception as e:  # noqa: BLE001 - a failed case of any kind is reported, not raised
            print(f"FAILED {name}: {e!r}")
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1].rstrip("/")))
