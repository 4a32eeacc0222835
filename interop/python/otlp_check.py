"""Checks the spans an otlp_receiver.py wrote: a server span of --server-app continues a
client span of --client-app (same trace id, parent = the client span), both named --name.

Usage: python otlp_check.py --spans spans.jsonl --client-app A --server-app B --name N
         [--peer-port P] [--wait S]
       python otlp_check.py --spans spans.jsonl --foreign-client --server-app B --name N
         --count C [--wait S]
--peer-port keeps only client spans whose server.port is P (one protocol's calls).
--foreign-client: the caller exports nothing here (a Java consumer); at least C server spans
of B named N must continue a caller's span (a parent id, and no span received with that id).
Waits up to --wait seconds (default 15) for such a pair; exits 0 when found, 1 otherwise.
"""
import argparse
import json
import sys
import time

SERVER, CLIENT = 2, 3


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def pairs(spans, args):
    clients = {
        (s["trace_id"], s["span_id"]): s
        for s in spans
        if s["kind"] == CLIENT
        and s["service"] == args.client_app
        and s["name"] == args.name
        and (args.peer_port is None or s["attributes"].get("server.port") == args.peer_port)
    }
    return [
        (clients[(s["trace_id"], s["parent_span_id"])], s)
        for s in spans
        if s["kind"] == SERVER
        and s["service"] == args.server_app
        and s["name"] == args.name
        and (s["trace_id"], s["parent_span_id"]) in clients
    ]


def foreign_parents(spans, args):
    known = {s["span_id"] for s in spans}
    return [
        s
        for s in spans
        if s["kind"] == SERVER
        and s["service"] == args.server_app
        and s["name"] == args.name
        and s["parent_span_id"]
        and s["parent_span_id"] not in known
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--spans", required=True)
    parser.add_argument("--client-app")
    parser.add_argument("--foreign-client", action="store_true")
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--server-app", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--peer-port", type=int)
    parser.add_argument("--wait", type=float, default=15)
    args = parser.parse_args()
    deadline = time.monotonic() + args.wait
    while True:
        spans = load(args.spans)
        if args.foreign_client:
            continued = foreign_parents(spans, args)
            if len(continued) >= args.count:
                s = continued[0]
                print(
                    f"{len(continued)} {args.name} server spans of {args.server_app} continue the "
                    f"caller's trace: e.g. trace {s['trace_id']}, parent {s['parent_span_id']}"
                )
                return 0
            found = []
        else:
            found = pairs(spans, args)
        if found:
            client, server = found[0]
            print(
                f"{len(found)} {args.name} calls traced: e.g. trace {client['trace_id']}, "
                f"client span {client['span_id']} ({args.client_app}) -> "
                f"server span {server['span_id']} ({args.server_app}), "
                f"rpc.system={server['attributes'].get('rpc.system')}"
            )
            return 0
        if time.monotonic() > deadline:
            caller = "the caller" if args.foreign_client else args.client_app
            print(f"not enough {args.name} server spans of {args.server_app} continuing a "
                  f"client span of {caller}; {len(spans)} spans received:")
            for s in spans[-20:]:
                print("  ", json.dumps(s))
            return 1
        time.sleep(0.5)


if __name__ == "__main__":
    sys.exit(main())
