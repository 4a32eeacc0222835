"""An OTLP/HTTP trace receiver: decodes each POST /v1/traces body with the opentelemetry-proto
messages and appends one JSON line per span to a file.

Usage: python otlp_receiver.py --port P --out spans.jsonl
Listens on 127.0.0.1 only. Prints READY once listening; stops on SIGTERM/SIGINT.
Each line: {"service", "name", "kind", "trace_id", "span_id", "parent_span_id", "status",
"attributes"} with ids in hex and the resource's service.name as "service".
"""
import argparse
import json
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

LOCK = threading.Lock()


def any_value(v):
    kind = v.WhichOneof("value")
    return getattr(v, kind) if kind else None


def span_lines(request):
    for rs in request.resource_spans:
        attrs = {kv.key: any_value(kv.value) for kv in rs.resource.attributes}
        service = attrs.get("service.name", "")
        for ss in rs.scope_spans:
            for s in ss.spans:
                yield {
                    "service": service,
                    "name": s.name,
                    "kind": s.kind,
                    "trace_id": s.trace_id.hex(),
                    "span_id": s.span_id.hex(),
                    "parent_span_id": s.parent_span_id.hex(),
                    "status": s.status.code,
                    "attributes": {kv.key: any_value(kv.value) for kv in s.attributes},
                }


def handler_for(out_path):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            if self.path != "/v1/traces":
                self.send_error(404)
                return
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            request = ExportTraceServiceRequest()
            try:
                request.ParseFromString(body)
            except Exception as e:  # a malformed body is the sender's bug: say so
                self.send_error(400, str(e))
                return
            with LOCK, open(out_path, "a", encoding="utf-8") as out:
                for line in span_lines(request):
                    out.write(json.dumps(line) + "\n")
            reply = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, fmt, *args):
            sys.stderr.write("otlp_receiver: " + (fmt % args) + "\n")

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    open(args.out, "w").close()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler_for(args.out))
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("READY", flush=True)
    stop.wait()
    server.shutdown()
    server.server_close()


if __name__ == "__main__":
    main()
