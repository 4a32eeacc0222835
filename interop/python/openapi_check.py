"""Checks the OpenAPI 3 document a dubbo-rs provider serves at /dubbo/openapi/api-docs:
valid by openapi-spec-validator, an operation for every row of CONTRACT.md §5's REST table and
InteropService's default mapping, each row's real answer valid against the schema the
document declares for it, and the YAML form (?format=yaml) the same document. Usage: openapi_check.py http://127.0.0.1:PORT

Ends with "N passed, N failed"; exits 1 if any failed.
"""
import sys

import jsonschema
import requests
from openapi_spec_validator import validate


def main(base):
    doc = requests.get(f"{base}/dubbo/openapi/api-docs").json()
    iface = "/org.apache.dubbo.interop.InteropService"
    checks = []

    def check(name, fn):
        try:
            fn()
            print(f"ok {name}")
            checks.append(True)
        except Exception as e:  # noqa: BLE001 - every failure is reported
            print(f"FAILED {name}: {e!r}")
            checks.append(False)

    check("openapi-spec-validator accepts the document", lambda: validate(doc))

    def yaml_form():
        import yaml  # PyYAML, a dependency of openapi-spec-validator

        r = requests.get(f"{base}/dubbo/openapi/api-docs", params={"format": "yaml"})
        assert r.status_code == 200, r.status_code
        assert r.headers["content-type"].startswith("application/yaml"), r.headers["content-type"]
        as_yaml = yaml.safe_load(r.text)
        validate(as_yaml)
        assert as_yaml == doc, "the YAML form differs from the JSON one"

    check("?format=yaml: the same document as YAML, accepted by openapi-spec-validator", yaml_form)

    def answer_schema(path, verb, status):
        op = doc["paths"][path][verb]
        content = op["responses"][str(status)].get("content", {})
        return op, content

    def conforms(path, verb, status, response, media="application/json"):
        op, content = answer_schema(path, verb, status)
        assert response.status_code == status, response.status_code
        if status == 204:
            assert not content and response.content == b""
            return
        schema = content[media]["schema"]
        # Resolve $ref against the document's own components.
        root = {"components": doc["components"], **schema}
        value = response.json() if media == "application/json" else response.text
        jsonschema.validate(value, root)

    rows = [
        ("GET /users/{id}", "/users/{id}", "get", 200, lambda: requests.get(f"{base}/users/4"), "application/json"),
        ("GET /users", "/users", "get", 200, lambda: requests.get(f"{base}/users", params={"limit": 2}), "application/json"),
        ("POST /users", "/users", "post", 201,
         lambda: requests.post(f"{base}/users", json={"id": 1, "name": "a", "age": 2, "tags": None, "attrs": None}), "application/json"),
        ("POST /users/form", "/users/form", "post", 200,
         lambda: requests.post(f"{base}/users/form", data={"id": 1, "name": "a", "age": 2}), "application/json"),
        ("GET /users/{id}/greeting", "/users/{id}/greeting", "get", 200,
         lambda: requests.get(f"{base}/users/4/greeting"), "text/plain"),
        ("DELETE /users/{id}", "/users/{id}", "delete", 204, lambda: requests.delete(f"{base}/users/4"), None),
        ("default mapping GET sayHello", f"{iface}/sayHello", "get", 200,
         lambda: requests.get(f"{base}{iface}/sayHello", params={"name": "world"}), "application/json"),
        ("default mapping POST sayHello", f"{iface}/sayHello", "post", 200,
         lambda: requests.post(f"{base}{iface}/sayHello", json=["world"]), "application/json"),
    ]
    for name, path, verb, status, call, media in rows:
        check(f"{name}: documented, and the answer fits its schema",
              lambda: conforms(path, verb, status, call(), media))

    def params():
        op = doc["paths"]["/users"]["get"]
        names = {(p["name"], p["in"]) for p in op["parameters"]}
        assert names == {("limit", "query"), ("prefix", "query")}, names
        op = doc["paths"]["/users/{id}/greeting"]["get"]
        names = {(p["name"], p["in"]) for p in op["parameters"]}
        assert names == {("id", "path"), ("Accept-Language", "header")}, names
        form = doc["paths"]["/users/form"]["post"]["requestBody"]["content"]
        assert set(form["application/x-www-form-urlencoded"]["schema"]["properties"]) == {"id", "name", "age"}
    check("parameters documented where they are read from", params)

    passed = sum(checks)
    failed = len(checks) - passed
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1].rstrip("/")))
