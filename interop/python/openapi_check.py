"""Checks the OpenAPI 3 document a dubbo-rs provider serves at /dubbo/openapi/api-docs:
valid by openapi-spec-validator, an operation for every row of CONTRACT.md §5's REST table and
InteropService's default mapping, each row's real answer valid against the schema the
document declares for it (OpenAPI 3.0 schemas, `nullable` included, by openapi-schema-validator's
OAS30Validator; the `User` schema names every field of the answers, so each field is checked),
and the YAML form (?format=yaml) the same document. Usage: openapi_check.py http://127.0.0.1:PORT

Ends with "N passed, N failed"; exits 1 if any failed.
"""
import sys

import requests
from openapi_schema_validator import OAS30Validator
from openapi_spec_validator import validate


def schema_validate(value, schema):
    """Validates value against an OpenAPI 3.0 schema (raises on a mismatch)."""
    OAS30Validator(schema).validate(value)


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
        schema_validate(value, root)

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

    def user_fields():
        # CONTRACT.md §1's User: every field the answers carry, typed, id and age required.
        user = doc["components"]["schemas"]["User"]
        props = user["properties"]
        assert set(props) == {"id", "name", "age", "tags", "attrs"}, props
        assert set(user["required"]) == {"id", "age"}, user["required"]
        assert props["id"]["type"] == "integer" and props["id"]["format"] == "int64", props["id"]
        assert props["age"]["format"] == "int32", props["age"]
        assert props["name"] == {"type": "string", "nullable": True, "description": "`String name`"}, props["name"]
        assert props["tags"]["items"] == {"type": "string"} and props["tags"]["nullable"], props["tags"]
        assert props["attrs"]["additionalProperties"] == {"type": "string"}, props["attrs"]
        # Every field of a real answer is described by the schema...
        root = {"components": doc["components"], "$ref": "#/components/schemas/User"}
        for path in ("/users/7", "/users?limit=1"):
            body = requests.get(f"{base}{path}").json()
            for u in body if isinstance(body, list) else [body]:
                assert set(u) <= set(props), set(u) - set(props)
                schema_validate(u, root)
        # ... and checked: a wrong type in any field, or a missing required one, is refused.
        good = requests.get(f"{base}/users/7").json()
        bad_values = {"id": "7", "name": 5, "age": 1.5, "tags": ["t", 1], "attrs": {"k": 2}}
        for field, bad in bad_values.items():
            try:
                schema_validate({**good, field: bad}, root)
            except Exception:  # noqa: BLE001 - the refusal expected
                continue
            raise AssertionError(f"{field}={bad!r} passed the schema")
        for field in ("id", "age"):
            missing = {k: v for k, v in good.items() if k != field}
            try:
                schema_validate(missing, root)
            except Exception:  # noqa: BLE001 - the refusal expected
                continue
            raise AssertionError(f"a user without {field} passed the schema")
        schema_validate({**good, "name": None, "tags": None, "attrs": None}, root)
    check("User's schema lists its fields (id and age required); real answers fit it field by field, wrong fields do not", user_fields)

    passed = sum(checks)
    failed = len(checks) - passed
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1].rstrip("/")))
