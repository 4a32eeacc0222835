"""Calls org.apache.dubbo.interop.tri.Greeter with grpcio: all four call kinds.

Usage: python greeter_client.py HOST:PORT [--ca FILE [--cert FILE --key FILE]]

With --ca the channel uses TLS, trusting the CA certificates of FILE (PEM); with --cert and --key
it also presents that client certificate (mutual TLS).
Prints PASS/FAIL per case and `N passed, N failed`; exits non-zero on any failure.
"""
import sys

import grpc

import _stubs

pb2, pb2_grpc = _stubs.load()


def read(path):
    with open(path, "rb") as f:
        return f.read()


def channel_for(target, args):
    """A plaintext channel, or a TLS one when --ca is given."""
    opts = dict(zip(args[::2], args[1::2]))
    if len(args) % 2 or set(opts) - {"--ca", "--cert", "--key"}:
        sys.exit(f"usage: greeter_client.py HOST:PORT [--ca FILE [--cert FILE --key FILE]]; got {args}")
    if "--ca" not in opts:
        return grpc.insecure_channel(target)
    creds = grpc.ssl_channel_credentials(
        root_certificates=read(opts["--ca"]),
        private_key=read(opts["--key"]) if "--key" in opts else None,
        certificate_chain=read(opts["--cert"]) if "--cert" in opts else None,
    )
    return grpc.secure_channel(target, creds)


def main():
    target = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:50051"
    if target.startswith("tri://"):
        target = target[len("tri://"):]
    results = []

    def case(name, fn):
        try:
            fn()
            results.append(True)
            print(f"PASS greeter.{name}")
        except Exception as e:  # noqa: BLE001 - report every failure as a FAIL line
            results.append(False)
            print(f"FAIL greeter.{name}: {e!r}")

    with channel_for(target, sys.argv[2:]) as channel:
        stub = pb2_grpc.GreeterStub(channel)

        def unary():
            r = stub.Greet(pb2.GreeterRequest(name="world"), timeout=10)
            assert r.message == "Hello world", r.message

        def server_stream():
            got = [r.message for r in stub.GreetServerStream(pb2.GreeterRequest(name="py"), timeout=10)]
            want = [f"Hello py #{i}" for i in range(10)]
            assert got == want, got

        def client_stream():
            reqs = iter([pb2.GreeterRequest(name=n) for n in ("a", "b", "c")])
            r = stub.GreetClientStream(reqs, timeout=10)
            assert r.message == "Hello a,b,c", r.message

        def bidi_stream():
            reqs = iter([pb2.GreeterRequest(name=n) for n in ("x", "y", "z")])
            got = [r.message for r in stub.GreetBiStream(reqs, timeout=10)]
            assert got == ["Hello x", "Hello y", "Hello z"], got

        def unknown_method_is_unimplemented():
            call = channel.unary_unary(
                "/org.apache.dubbo.interop.tri.Greeter/NoSuchMethod",
                request_serializer=pb2.GreeterRequest.SerializeToString,
                response_deserializer=pb2.GreeterReply.FromString,
            )
            try:
                call(pb2.GreeterRequest(name="x"), timeout=10)
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.UNIMPLEMENTED, e.code()
                return
            raise AssertionError("expected UNIMPLEMENTED")

        def gzip_unary():
            r = stub.Greet(pb2.GreeterRequest(name="gz" * 1000), timeout=10,
                           compression=grpc.Compression.Gzip)
            assert r.message == "Hello " + "gz" * 1000

        case("Greet", unary)
        case("GreetServerStream", server_stream)
        case("GreetClientStream", client_stream)
        case("GreetBiStream", bidi_stream)
        case("UnknownMethod", unknown_method_is_unimplemented)
        case("GreetGzip", gzip_unary)

    passed = sum(results)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
