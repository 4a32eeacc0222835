"""The headless Chromium (Debian's chromium and chromium-driver) that the browser checks drive
with Selenium."""

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def driver(height=1800):
    """A headless Chromium, 1400 px wide and HEIGHT px tall."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size=1400,{height}"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
