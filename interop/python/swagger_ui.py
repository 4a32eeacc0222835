"""The Swagger UI page of a dubbo-rs provider in a real browser: headless Chromium driven by
Selenium.

    swagger_ui.py --base URL --screenshots DIR

Opens BASE/dubbo/openapi/swagger-ui/ (redirected to its index.html), waits until Swagger UI has
read the OpenAPI document and lists the operations of the REST table, checks GET /users/{id}
and POST /users are among them, then calls GET /users/{id} with id 7 through "Try it out" and
sees the answer's status 200 and the user's name in the page. Screenshots go to DIR. Exits 0
when every check passed.
"""

import argparse
import os
import sys

from browser import driver

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait




def operation(d, method, path):
    """The operation block of METHOD PATH, or None."""
    for block in d.find_elements(By.CSS_SELECTOR, f".opblock-{method.lower()}"):
        shown = block.find_element(By.CSS_SELECTOR, ".opblock-summary-path").text.replace("\u200b", "")
        if shown == path:
            return block
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base", required=True)
    p.add_argument("--screenshots", required=True)
    a = p.parse_args()
    os.makedirs(a.screenshots, exist_ok=True)
    d = driver(height=2000)
    wait = WebDriverWait(d, 30)
    failures = []
    try:
        d.get(a.base + "/dubbo/openapi/swagger-ui/")
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".opblock-summary-path")))
        if not d.current_url.endswith("/dubbo/openapi/swagger-ui/index.html"):
            failures.append(f"not redirected to index.html: {d.current_url}")
        d.save_screenshot(os.path.join(a.screenshots, "01-operations.png"))
        paths = sorted({e.text.replace("\u200b", "") for e in d.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")})
        print("operations:", ", ".join(paths))
        for method, path in (("GET", "/users/{id}"), ("POST", "/users")):
            if operation(d, method, path) is None:
                failures.append(f"{method} {path} not listed")
        block = operation(d, "GET", "/users/{id}")
        if block is not None:
            block.find_element(By.CSS_SELECTOR, ".opblock-summary").click()
            wait.until(lambda _: block.find_elements(By.CSS_SELECTOR, ".try-out__btn"))
            block.find_element(By.CSS_SELECTOR, ".try-out__btn").click()
            field = wait.until(lambda _: block.find_element(By.CSS_SELECTOR, "input[placeholder='id']"))
            field.clear()
            field.send_keys("7")
            block.find_element(By.CSS_SELECTOR, ".execute").click()
            answer = ".live-responses-table tbody tr.response"
            wait.until(lambda _: block.find_elements(By.CSS_SELECTOR, answer))
            status = block.find_element(By.CSS_SELECTOR, answer + " .response-col_status").text.strip()
            body = block.find_element(By.CSS_SELECTOR, answer + " .response-col_description").text
            d.save_screenshot(os.path.join(a.screenshots, "02-get-user-7.png"))
            print("GET /users/7 from the page:", status, body.replace("\n", " ")[:200])
            if status != "200":
                failures.append(f"GET /users/7 answered {status}")
            if "user-7" not in body:
                failures.append(f"GET /users/7's answer lacks user-7: {body[:200]}")
    finally:
        d.quit()
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
