"""Generates the Greeter stubs from the contract proto at run time (nothing generated is committed)."""
import importlib
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.normpath(os.path.join(HERE, "..", "proto"))


def load():
    """Returns (greeter_pb2, greeter_pb2_grpc)."""
    from grpc_tools import protoc

    out = tempfile.mkdtemp(prefix="greeter-stubs-")
    rc = protoc.main([
        "grpc_tools.protoc",
        f"-I{PROTO_DIR}",
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        os.path.join(PROTO_DIR, "greeter.proto"),
    ])
    if rc != 0:
        raise SystemExit(f"protoc failed with {rc}")
    sys.path.insert(0, out)
    return importlib.import_module("greeter_pb2"), importlib.import_module("greeter_pb2_grpc")
