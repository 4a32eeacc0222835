"""Serves org.apache.dubbo.interop.tri.Greeter with grpcio.

Usage: python greeter_server.py --port P
Prints READY once serving; stops on SIGTERM/SIGINT.
"""
import argparse
import signal
import sys
import threading
from concurrent import futures

import grpc

import _stubs

pb2, pb2_grpc = _stubs.load()


class Greeter(pb2_grpc.GreeterServicer):
    def Greet(self, request, context):
        return pb2.GreeterReply(message="Hello " + request.name)

    def GreetServerStream(self, request, context):
        for i in range(10):
            yield pb2.GreeterReply(message=f"Hello {request.name} #{i}")

    def GreetClientStream(self, request_iterator, context):
        names = [r.name for r in request_iterator]
        return pb2.GreeterReply(message="Hello " + ",".join(names))

    def GreetBiStream(self, request_iterator, context):
        for r in request_iterator:
            yield pb2.GreeterReply(message="Hello " + r.name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=50052)
    ap.add_argument("--host", default="127.0.0.1")
    args = ap.parse_args()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    pb2_grpc.add_GreeterServicer_to_server(Greeter(), server)
    port = server.add_insecure_port(f"{args.host}:{args.port}")
    if port == 0:
        print(f"could not bind {args.host}:{args.port}", file=sys.stderr)
        sys.exit(1)
    server.start()
    print(f"listening on {args.host}:{port}")
    print("READY", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    server.stop(grace=5).wait()


if __name__ == "__main__":
    main()
