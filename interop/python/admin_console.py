"""The dubbo-admin console in a real browser: headless Chromium driven by Selenium.

    admin_console.py --base URL --user U --password P --service KEY --rust-app A --java-app B
                     --rust-address HOST:PORT --screenshots DIR

Logs in, searches the service and sees both applications, opens the service page (providers,
methods), calls sayHello from the test form at every provider and sees "Hello ...", then, while a
consumer loads the providers, writes a weight rule (weight 0 on the Rust provider's address) and
sees the Rust instance's sayHello requests/s (the instance page reads its QoS /metrics) drop to 0,
rolls the rule back and sees them return. Screenshots of every stage go to DIR. Exits 0 when
every check passed.
"""

import argparse
import os
import sys
import time
import urllib.parse

from browser import driver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait




class Run:
    def __init__(self, args):
        self.a = args
        self.d = driver()
        self.wait = WebDriverWait(self.d, 20)
        self.n = 0

    def shot(self, name):
        self.n += 1
        path = os.path.join(self.a.screenshots, f"{self.n:02d}-{name}.png")
        self.d.save_screenshot(path)
        print("screenshot", path)

    def open(self, path):
        self.d.get(self.a.base + path)

    def login(self):
        self.open("/")
        self.wait.until(EC.presence_of_element_located((By.ID, "login")))
        self.shot("login")
        self.d.find_element(By.ID, "username").send_keys(self.a.user)
        self.d.find_element(By.ID, "password").send_keys(self.a.password)
        self.d.find_element(By.ID, "login-button").click()
        self.wait.until(EC.presence_of_element_located((By.ID, "services")))
        who = self.d.find_element(By.ID, "who").text
        assert self.a.user in who, who
        print("logged in as", who)

    def search(self):
        box = self.d.find_element(By.ID, "filter")
        box.clear()
        box.send_keys("InteropService")
        self.d.find_element(By.ID, "search-button").click()
        self.wait.until(EC.url_contains("filter=InteropService"))
        rows = self.d.find_elements(By.CSS_SELECTOR, "tr.service-row")
        texts = [r.text for r in rows]
        print("search:", texts)
        row = [r for r in rows if r.find_element(By.TAG_NAME, "a").text == self.a.service.split(":")[0]
               and "1.0.0" in r.text]
        assert row, texts
        assert self.a.rust_app in row[0].text and self.a.java_app in row[0].text, row[0].text
        self.shot("search")
        row[0].find_element(By.TAG_NAME, "a").click()
        self.wait.until(EC.presence_of_element_located((By.ID, "providers")))

    def service_page(self):
        providers = self.d.find_element(By.ID, "providers").text
        assert self.a.rust_app in providers and self.a.java_app in providers, providers
        methods = self.d.find_element(By.ID, "methods").text
        assert "sayHello" in methods, methods
        self.shot("service")

    def call_everywhere(self):
        targets = [o.get_attribute("value") for o in Select(self.d.find_element(By.ID, "target")).options]
        direct = [t for t in targets if t]
        assert len(direct) >= 4, targets
        for target in direct:
            Select(self.d.find_element(By.ID, "target")).select_by_value(target)
            form = self.d.find_element(By.CSS_SELECTOR, "form.test-form[data-method='sayHello']")
            arg = form.find_element(By.CSS_SELECTOR, ".arg")
            arg.clear()
            arg.send_keys("selenium")
            form.find_element(By.CSS_SELECTOR, "button.invoke").click()
            result = form.find_element(By.CSS_SELECTOR, ".result")
            WebDriverWait(self.d, 20).until(lambda d: result.text and result.text != "calling…")
            print("sayHello at", target, "->", result.text.replace("\n", " "))
            assert result.text.startswith('"Hello selenium"'), result.text
        self.shot("test-form")

    def service_url(self):
        return "/service/" + urllib.parse.quote(self.a.service, safe="")

    def rate(self, settle):
        """The Rust instance's sayHello requests/s once `settle` holds for two readings in a row."""
        self.open("/instance/" + urllib.parse.quote(self.a.rust_address, safe=""))
        seen = []
        deadline = time.time() + 25
        while time.time() < deadline:
            time.sleep(1)
            found = self.d.find_elements(By.ID, "rate-sayHello")
            if not found:
                continue
            try:
                value = float(found[0].text)
            # The page's chart script re-renders the figure between finding it and reading it.
            except (ValueError, StaleElementReferenceException):
                continue
            seen.append(value)
            if len(seen) >= 3 and settle(seen[-1]) and settle(seen[-2]):
                return seen
        raise AssertionError(f"requests/s never settled: {seen}")

    def weight(self):
        before = self.rate(lambda r: r > 0)
        print("Rust provider sayHello/s before the rule:", before)
        self.shot("instance-before")
        self.open(self.service_url())
        box = self.wait.until(EC.presence_of_element_located(
            (By.CSS_SELECTOR, f"input.weight-address[data-address='{self.a.rust_address}']")))
        box.click()
        w = self.d.find_element(By.ID, "weight")
        w.clear()
        w.send_keys("0")
        self.d.find_element(By.ID, "weight-save").click()
        self.wait.until(EC.text_to_be_present_in_element((By.ID, "weight-status"), "weight rule written"))
        self.wait.until(EC.text_to_be_present_in_element_value((By.ID, "yaml-override"), "weight: 0"))
        self.shot("weight-rule")
        during = self.rate(lambda r: r == 0)
        print("Rust provider sayHello/s with weight 0:", during)
        self.shot("instance-weight-0")
        self.open(self.service_url())
        self.wait.until(EC.presence_of_element_located((By.ID, "weight-rollback"))).click()
        self.wait.until(EC.text_to_be_present_in_element((By.ID, "weight-status"), "rolled back"))
        self.shot("rolled-back")
        after = self.rate(lambda r: r > 0)
        print("Rust provider sayHello/s after the rollback:", after)
        self.shot("instance-after")


def main():
    p = argparse.ArgumentParser()
    for flag in ("base", "user", "password", "service", "rust-app", "java-app", "rust-address", "screenshots"):
        p.add_argument("--" + flag, required=True)
    args = p.parse_args()
    run = Run(args)
    try:
        run.login()
        run.search()
        run.service_page()
        run.call_everywhere()
        run.weight()
    except Exception as e:  # a failed check: say which, keep the page
        print("FAILED:", type(e).__name__, e)
        run.shot("failure")
        return 1
    finally:
        run.d.quit()
    print("console checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
