#!/usr/bin/env python3
"""The measuring side of scripts/bench-admin.sh: logs in to a running dubbo-admin, waits until
it shows the whole generated registry, then times many searches and reads the admin's memory.

    bench-admin-client.py --base http://127.0.0.1:PORT --pid PID --started EPOCH_SECONDS \
        --services N --instances M --apps A [--searches 3000] [--user U --password P]

Searches (at least --searches, for at least --seconds) go one at a time over one keep-alive HTTP/1.1 connection (Python's http.client), so
each latency is the admin's answer: request written, whole body read. The client costs about
0.1 ms a request, three orders of magnitude under the bar. The admin's RSS (VmRSS) and peak
(VmHWM) come from /proc/PID/status, sampled every 100 ms. Progress goes to stderr; the table to
stdout, then one `RESULT key=value ...` line for scripts.
"""

import argparse
import http.client
import json
import os
import random
import sys
import threading
import time
import urllib.parse

# The names examples/bench_registry.rs gives (kept in step with it).
DOMAINS = ["order", "payment", "user", "inventory", "search", "shipping", "billing",
           "catalog", "review", "notify"]
NOUNS = ["Query", "Command", "Account", "Price", "Stock", "Report", "Event", "Profile"]


def app_name(a):
    return f"{DOMAINS[a % len(DOMAINS)]}-{NOUNS[a % len(NOUNS)].lower()}-{a}"


def service_name(i, apps):
    a = i % apps
    return f"com.example.{DOMAINS[a % len(DOMAINS)]}.{NOUNS[(i // apps) % len(NOUNS)]}Service{i}"


def host(k):
    return f"10.{(k >> 16) & 255}.{(k >> 8) & 255}.{k & 255}"


class Memory(threading.Thread):
    """Samples VmRSS and VmHWM of one process every 100 ms."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid = pid
        self.rss = 0
        self.hwm = 0
        self.max_rss = 0
        self.stop = threading.Event()

    def read(self):
        try:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        self.rss = int(line.split()[1]) * 1024
                    elif line.startswith("VmHWM:"):
                        self.hwm = int(line.split()[1]) * 1024
        except OSError:
            pass
        self.max_rss = max(self.max_rss, self.rss)

    def run(self):
        while not self.stop.is_set():
            self.read()
            time.sleep(0.1)


def cpu_seconds(pid):
    """User + system CPU time of the process, in seconds."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


class Admin:
    def __init__(self, base):
        u = urllib.parse.urlsplit(base)
        self.host, self.port = u.hostname, u.port
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=300)
        self.cookie = ""

    def request(self, method, path, body=None):
        headers = {"Cookie": self.cookie} if self.cookie else {}
        if body is not None:
            headers["Content-Type"] = "application/json"
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=body, headers=headers)
                r = self.conn.getresponse()
                data = r.read()
                return r, data
            except (http.client.HTTPException, OSError):
                if attempt:
                    raise
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=300)
        raise RuntimeError("unreachable")

    def login(self, user, password):
        body = json.dumps({"username": user, "password": password})
        r, data = self.request("POST", "/api/v1/auth/login", body)
        if r.status != 200:
            raise SystemExit(f"login failed: {r.status} {data[:200]!r}")
        cookie = r.getheader("Set-Cookie", "")
        self.cookie = cookie.split(";", 1)[0]

    def get_json(self, path):
        r, data = self.request("GET", path)
        if r.status != 200:
            raise RuntimeError(f"GET {path}: {r.status} {data[:200]!r}")
        return json.loads(data)


def queries(services, apps, instances, rng):
    """Searches of every kind the console makes, names drawn from the generated registry."""
    while True:
        k = rng.random()
        i = rng.randrange(services)
        a = rng.randrange(apps)
        inst = rng.randrange(instances)
        page = rng.choice([0, 0, 0, 1, 2, 5])
        size = rng.choice([10, 10, 20, 50])
        if k < 0.30:
            name = service_name(i, apps)
            start = rng.randrange(len(name) - 6)
            f = rng.choice([
                name,                                   # one service
                name[start:start + rng.randint(6, 14)],  # a substring (few to thousands)
                f"{NOUNS[i % len(NOUNS)]}Service",      # an eighth of all
                f"example.{DOMAINS[a % len(DOMAINS)]}",  # a tenth
                f"service{i}".upper(),                  # case-insensitive
            ])
            yield ("service", f"/api/v1/service?pattern=service&filter={urllib.parse.quote(f)}&page={page}&size={size}")
        elif k < 0.45:
            f = rng.choice([app_name(a), DOMAINS[a % len(DOMAINS)], f"-{a}"])
            yield ("application", f"/api/v1/service?pattern=application&filter={urllib.parse.quote(f)}&page={page}&size={size}")
        elif k < 0.60:
            h = host(inst)
            f = rng.choice([h + ":20880", h.rsplit(".", 1)[0] + ".", h])
            yield ("ip", f"/api/v1/service?pattern=ip&filter={urllib.parse.quote(f)}&page={page}&size={size}")
        elif k < 0.75:
            f = rng.choice([app_name(a), host(inst), host(inst).rsplit(".", 1)[0] + "."])
            yield ("instances", f"/api/v1/instances?filter={urllib.parse.quote(f)}&page={page}&size={size}")
        elif k < 0.85:
            f = rng.choice([DOMAINS[a % len(DOMAINS)], app_name(a), ""])
            yield ("applications", f"/api/v1/applications?filter={urllib.parse.quote(f)}&page={page}&size={size}")
        else:
            # Everything, paged deep: the console's first screen and a scroll far down.
            deep = rng.randrange(max(1, services // size))
            yield ("all", f"/api/v1/service?pattern=service&filter=&page={deep}&size={size}")


def percentile(sorted_ms, p):
    if not sorted_ms:
        return float("nan")
    k = min(len(sorted_ms) - 1, max(0, int(round(p / 100.0 * len(sorted_ms) + 0.5)) - 1))
    return sorted_ms[k]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--started", type=float, required=True)
    ap.add_argument("--services", type=int, required=True)
    ap.add_argument("--instances", type=int, required=True)
    ap.add_argument("--apps", type=int, required=True)
    ap.add_argument("--searches", type=int, default=3000)
    ap.add_argument("--seconds", type=float, default=60,
                    help="search for at least this long (long enough to see the admin re-read)")
    ap.add_argument("--user", default="bench")
    ap.add_argument("--password", default="bench-password")
    ap.add_argument("--label", default="zookeeper")
    ap.add_argument("--load-timeout", type=float, default=600)
    args = ap.parse_args()

    mem = Memory(args.pid)
    mem.start()
    admin = Admin(args.base)
    admin.login(args.user, args.password)

    # 1. Until the admin shows every service and instance.
    last = 0.0
    while True:
        try:
            svc = admin.get_json("/api/v1/service?pattern=service&filter=&size=1")["totalElements"]
            ins = admin.get_json("/api/v1/instances?size=1")["totalElements"]
        except (RuntimeError, OSError, ValueError) as e:
            svc, ins = 0, 0
            print(f"bench-admin: not yet: {e}", file=sys.stderr)
        waited = time.time() - args.started
        if svc >= args.services and ins >= args.instances:
            break
        if waited - last >= 2:
            last = waited
            print(f"bench-admin: loading: {svc}/{args.services} services, {ins}/{args.instances} "
                  f"instances after {waited:.1f} s, RSS {mem.rss / 2**20:.0f} MiB", file=sys.stderr)
        if waited > args.load_timeout:
            raise SystemExit(f"bench-admin: not loaded after {args.load_timeout:.0f} s "
                             f"({svc} services, {ins} instances)")
        time.sleep(0.2)
    loaded = time.time() - args.started
    mem.read()
    rss_loaded = mem.rss
    hwm_loaded = mem.hwm
    print(f"bench-admin: loaded {svc} services and {ins} instances in {loaded:.1f} s "
          f"(RSS {rss_loaded / 2**20:.0f} MiB)", file=sys.stderr)

    # 2. Warm-up, then the measured searches: at least --searches of them and for at least
    # --seconds, so the admin re-reads the registry (in the background) while it answers.
    rng = random.Random(32)
    plan = queries(args.services, args.apps, args.instances, rng)
    for _ in range(200):
        admin.request("GET", next(plan)[1])
    lat = {}
    matched = {}
    cpu0 = cpu_seconds(args.pid)
    t0 = time.time()
    loads = [float(load())]
    n = 0
    last = t0
    while n < args.searches or time.time() - t0 < args.seconds:
        kind, path = next(plan)
        s = time.perf_counter()
        r, data = admin.request("GET", path)
        ms = (time.perf_counter() - s) * 1000
        if r.status != 200:
            raise SystemExit(f"bench-admin: {path}: {r.status} {data[:200]!r}")
        n += 1
        lat.setdefault(kind, []).append(ms)
        if n % 20 == 0:
            matched.setdefault(kind, []).append(json.loads(data)["totalElements"])
        if time.time() - last >= 5:
            last = time.time()
            done = sorted(x for v in lat.values() for x in v)
            loads.append(float(load()))
            print(f"bench-admin: {n} searches in {last - t0:.0f} s: p50 {percentile(done, 50):.2f} ms, "
                  f"p99 {percentile(done, 99):.2f} ms, max {done[-1]:.1f} ms, "
                  f"RSS {mem.rss / 2**20:.0f} MiB (peak {mem.hwm / 2**20:.0f}), "
                  f"load {loads[-1]}", file=sys.stderr)
    wall = time.time() - t0
    cpu = cpu_seconds(args.pid) - cpu0
    mem.read()
    steady = mem.rss
    mem.stop.set()

    everything = sorted(x for v in lat.values() for x in v)
    rows = [("all searches", everything)] + [(k, sorted(v)) for k, v in sorted(lat.items())]
    print()
    print(f"dubbo-admin over {args.label}: {args.services} services, {args.instances} instances, "
          f"{args.apps} applications")
    print(f"loaded (admin start -> every service and instance shown): {loaded:.1f} s")
    print(f"{'searches':<14}{'n':>7}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'max ms':>9}"
          f"{'matches p50':>13}")
    for name, v in rows:
        m = sorted(matched.get(name, [])) if name != "all searches" else \
            sorted(x for v in matched.values() for x in v)
        print(f"{name:<14}{len(v):>7}{percentile(v, 50):>9.2f}{percentile(v, 90):>9.2f}"
              f"{percentile(v, 99):>9.2f}{v[-1]:>9.2f}{percentile(m, 50):>13.0f}")
    print(f"RSS: loaded {rss_loaded / 2**20:.0f} MiB (peak so far {hwm_loaded / 2**20:.0f} MiB), "
          f"steady (after the searches) {steady / 2**20:.0f} MiB, "
          f"peak (VmHWM, re-reads included) {mem.hwm / 2**20:.0f} MiB")
    print(f"admin CPU during the searches: {cpu:.1f} s over {wall:.1f} s; "
          f"load average {min(loads):.2f}-{max(loads):.2f} (2 cores)")
    print(f"RESULT label={args.label} services={args.services} instances={args.instances} "
          f"loaded_s={loaded:.1f} p50_ms={percentile(everything, 50):.2f} "
          f"p99_ms={percentile(everything, 99):.2f} max_ms={everything[-1]:.2f} "
          f"rss_steady_mib={steady / 2**20:.0f} rss_peak_mib={mem.hwm / 2**20:.0f} "
          f"load={min(loads):.2f}-{max(loads):.2f}")


if __name__ == "__main__":
    main()
