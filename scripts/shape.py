#!/usr/bin/env python3
"""The code's shape, as issue bars state it: import cycles between the files of each crate,
source files over 800 lines, and the number of methods the core traits declare.

    python3 scripts/shape.py            # report; exit 1 if a bar is missed
    python3 scripts/shape.py --verbose  # also list every cycle's files

A file "imports" another when it names an item of that file's module through `crate::` or
`super::` (in a `use` or inline). Declaring a child module (`mod x;`) is not an import, and unit
test modules (`#[cfg(test)] mod tests`, files named tests.rs) are left out: they may reach
anything they test. Generated or table-like files allowed over 800 lines are listed in
LONG_OK with the reason.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
MAX_LINES = 800
MAX_CYCLE = 3
# Files allowed over MAX_LINES, with why.
LONG_OK = {}
TRAITS = {
    "crates/core/src/invoker.rs": ("Invoker", 4),
    "crates/core/src/directory.rs": ("LoadBalance", 4),
}


def module_of(src, path):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] in ("lib", "main", "mod"):
        rel = rel[:-1]
    return tuple(rel)


def strip_tests(text):
    # Drop a trailing `#[cfg(test)] mod tests { ... }` block and comments.
    m = re.search(r"#\[cfg\(test\)\]\s*(pub(\(\w+\))?\s+)?mod \w+\s*\{", text)
    if m:
        text = text[: m.start()]
    text = re.sub(r"//[^\n]*", "", text)
    return text


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e]"""
    tree = tree.strip()
    out = []
    depth = 0
    i = tree.find("{")
    if i < 0:
        return [tree.split(" as ")[0].strip()]
    prefix = tree[:i]
    body = tree[i + 1 : tree.rfind("}")]
    parts, cur = [], ""
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    for p in parts:
        if p.strip():
            out += [prefix + q for q in expand_use(p)]
    return out


def paths_in(text):
    found = []
    for m in re.finditer(r"\buse\s+([^;]+);", text):
        tree = re.sub(r"\s*([{},]|::)\s*", r"\1", re.sub(r"\s+", " ", m.group(1)))
        found += expand_use(tree)
    found += re.findall(r"\b((?:crate|super)(?:::\w+)+)", text)
    return found


def resolve(path, here, modules):
    segs = path.split("::")
    if segs[0] == "crate":
        base, rest = (), segs[1:]
    elif segs[0] == "super":
        base = here
        rest = segs
        while rest and rest[0] == "super":
            base = base[:-1]
            rest = rest[1:]
    else:
        return None
    best = None
    for n in range(len(rest) + 1):
        cand = base + tuple(rest[:n])
        if cand in modules:
            best = cand
    return best


def sccs(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def main():
    verbose = "--verbose" in sys.argv
    missed = 0
    crates = sorted(os.listdir(os.path.join(ROOT, "crates")))
    print(f"import cycles (largest per crate, bar: at most {MAX_CYCLE} files):")
    for crate in crates:
        src = os.path.join(ROOT, "crates", crate, "src")
        if not os.path.isdir(src):
            continue
        files = {}
        for d, _, names in os.walk(src):
            for n in names:
                if n.endswith(".rs") and n != "tests.rs" and not n.endswith("_tests.rs"):
                    p = os.path.join(d, n)
                    files[module_of(src, p)] = p
        graph = {}
        for mod, p in files.items():
            text = strip_tests(open(p, encoding="utf-8").read())
            deps = set()
            for path in paths_in(text):
                target = resolve(path, mod, files)
                if target is not None and target != mod:
                    deps.add(target)
            graph[mod] = deps
        comps = [c for c in sccs(graph) if len(c) > 1]
        big = max((len(c) for c in comps), default=1)
        flag = "" if big <= MAX_CYCLE else "  <- over the bar"
        if big > MAX_CYCLE:
            missed += 1
        print(f"  {crate:20} {big}{flag}")
        if verbose:
            for c in sorted(comps, key=len, reverse=True):
                print("     ", ", ".join("::".join(m) or "lib" for m in sorted(c)))
    print(f"files in crates/*/src over {MAX_LINES} lines:")
    for d, _, names in os.walk(os.path.join(ROOT, "crates")):
        if "/src" not in d.replace(os.sep, "/") + "/" or "/target" in d:
            continue
        for n in names:
            if n.endswith(".rs"):
                p = os.path.join(d, n)
                lines = sum(1 for _ in open(p, encoding="utf-8"))
                rel = os.path.relpath(p, ROOT)
                if lines > MAX_LINES:
                    why = LONG_OK.get(rel)
                    print(f"  {rel}: {lines}" + (f" (allowed: {why})" if why else "  <- over the bar"))
                    if not why:
                        missed += 1
    print("core trait methods:")
    for rel, (name, limit) in TRAITS.items():
        text = open(os.path.join(ROOT, rel), encoding="utf-8").read()
        m = re.search(r"pub trait " + name + r"\b[^{]*\{", text)
        if not m:
            print(f"  {name}: not found in {rel}")
            missed += 1
            continue
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        body = text[m.end() : i]
        count = len(re.findall(r"^\s*(?:async\s+)?fn\s", body, re.M))
        flag = "" if count <= limit else "  <- over the bar"
        if count > limit:
            missed += 1
        print(f"  {name}: {count} (bar {limit}){flag}")
    print("shape: ok" if not missed else f"shape: {missed} bar(s) missed")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
