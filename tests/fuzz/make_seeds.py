#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into corpus/<target>/.

Text seeds (GraphDef text, cluster JSON) and .npy seeds are copied from
samples/ and tests/data/; binary GraphDef, ONNX and wire-message seeds are
encoded here with protowire.py, each a small but complete example of what the
parser accepts. Run from anywhere; it rewrites the generated files only."""
import os
import shutil
import struct

from protowire import blob, f32, packed_f32, packed_varints, vint

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CORPUS = os.path.join(HERE, "corpus")


def write(target, name, data):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    with open(os.path.join(CORPUS, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def copy(target, *paths):
    for path in paths:
        os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
        shutil.copy(os.path.join(ROOT, path), os.path.join(CORPUS, target, os.path.basename(path)))


# ---- GraphDef (field numbers of engine/io/graph.proto) ----------------------
DT_FLOAT, DT_INT32, DT_STRING, DT_INT64, DT_BOOL, DT_HALF = 1, 3, 7, 9, 10, 19


def attr(key, value):  # one NodeDef.attr map entry
    return blob(5, blob(1, key) + blob(2, value))


def shape(*dims, unknown_rank=False):
    if unknown_rank:
        return vint(3, 1)
    return b"".join(blob(2, vint(1, d)) for d in dims)


def tensor(dtype, dims, content=b"", float_val=(), int_val=(), string_val=()):
    out = vint(1, dtype) + blob(2, shape(*dims))
    if content:
        out += blob(4, content)
    if float_val:
        out += packed_f32(5, float_val)
    if int_val:
        out += packed_varints(7, int_val)
    for s in string_val:
        out += blob(8, s)
    return out


def node(name, op, inputs=(), device="", attrs=b""):
    out = blob(1, name) + blob(2, op)
    for i in inputs:
        out += blob(3, i)
    if device:
        out += blob(4, device)
    return blob(1, out + attrs)


def versions(producer):
    return blob(4, vint(1, producer))


matmul = (
    node("x", "Placeholder", attrs=attr("dtype", vint(6, DT_FLOAT)) + attr("shape", blob(7, shape(-1, 3))))
    + node("w", "Const", device="/cpu:0", attrs=attr("dtype", vint(6, DT_FLOAT))
           + attr("value", blob(8, tensor(DT_FLOAT, [3, 1], content=struct.pack("<3f", 1, 2, 3)))))
    + node("y", "MatMul", ["x", "w"], "/gpu:0", attr("T", vint(6, DT_FLOAT)) + attr("transpose_a", vint(5, 0)))
    + node("init", "NoOp", ["^y"])
    + versions(27))
write("graphdef_binary", "matmul.pb", matmul)
typed = (
    node("s", "Const", attrs=attr("dtype", vint(6, DT_STRING))
         + attr("value", blob(8, tensor(DT_STRING, [2], string_val=[b"a", b"\xff\x00"]))))
    + node("i", "Const", attrs=attr("value", blob(8, tensor(DT_INT32, [2, 2], int_val=[7]))))
    + node("f", "Const", attrs=attr("value", blob(8, tensor(DT_FLOAT, [4], float_val=[0.5, 2]))))
    + node("b", "Const", attrs=attr("value", blob(8, tensor(DT_BOOL, [3], content=b"\x00\x01\x02"))))
    + node("u", "Placeholder", attrs=attr("shape", blob(7, shape(unknown_rank=True))) + attr("dtype", vint(6, DT_HALF))))
write("graphdef_binary", "typed_constants.pb", typed)
lists = node("split", "SplitV", ["a", "b:1", "c"], attrs=attr(
    "list", blob(1, blob(2, "s1") + packed_varints(3, [1, -2, 3]) + packed_f32(4, [1.5]) + packed_varints(5, [1, 0])
                 + packed_varints(6, [DT_FLOAT, DT_INT64]) + blob(7, shape(2, 3)) + blob(9, blob(1, "fn"))))
    + attr("f", blob(10, blob(1, "body") + blob(2, blob(1, "T") + blob(2, vint(6, DT_FLOAT)))))
    + attr("p", blob(9, "ph")))
library = blob(2, blob(1, blob(1, blob(1, "body") + blob(2, blob(1, "x") + vint(3, DT_FLOAT)))))
write("graphdef_binary", "lists_and_library.pb", lists + library + vint(3, 21))

copy("graphdef_text", "samples/matmul_baseline.pbtxt", "samples/matmul_in_graph.pbtxt",
     "tests/data/tf/data_types.pbtxt", "tests/data/tf/function_library.pbtxt", "tests/data/tf/while_loop.pbtxt")
write("graphdef_text", "attrs.pbtxt", """node {
  name: "c" op: "Const" device: "/job:ps/task:0/device:CPU:0"
  attr { key: "value" value { tensor { dtype: DT_COMPLEX64 tensor_shape { dim { size: 2 } } scomplex_val: [1, 2] } } }
  attr { key: "l" value { list { i: [1, 2] type: [DT_FLOAT] shape { unknown_rank: true } } } }
  attr { key: "f" value { func { name: "g" attr { key: "T" value { type: DT_HALF } } } } }
  attr { key: "s" value { s: "\\001\\xff\\n" } }
}
node { name: "n" op: "Identity" input: "c:0" input: "^c" }
versions { producer: 27 min_consumer: 12 bad_consumers: [3] }
""")

# ---- ONNX (field numbers of onnx/onnx.proto) --------------------------------
O_FLOAT, O_INT64 = 1, 7


def o_tensor(name, dtype, dims, raw=None, floats=None, int64s=None):
    out = packed_varints(1, dims) + vint(2, dtype) + blob(8, name)
    if raw is not None:
        out += blob(9, raw)
    if floats is not None:
        out += packed_f32(4, floats)
    if int64s is not None:
        out += packed_varints(7, int64s)
    return out


def o_value(name, elem_type, dims):
    dim_bytes = b"".join(blob(1, blob(2, d) if isinstance(d, str) else vint(1, d)) for d in dims)
    return blob(1, name) + blob(2, blob(1, vint(1, elem_type) + blob(2, dim_bytes)))


def o_node(op, inputs, outputs, name="", attrs=b"", domain=""):
    out = b"".join(blob(1, i) for i in inputs) + b"".join(blob(2, o) for o in outputs) + blob(4, op)
    if name:
        out += blob(3, name)
    if domain:
        out += blob(7, domain)
    return blob(1, out + attrs)


def o_attr_int(name, i):
    return blob(5, blob(1, name) + vint(20, 2) + vint(3, i))


def o_attr_float(name, x):
    return blob(5, blob(1, name) + vint(20, 1) + f32(2, x))


def o_model(graph, opset=13):
    return vint(1, 8) + blob(2, "seed") + blob(8, vint(2, opset)) + blob(7, graph)


mlp = (
    o_node("Gemm", ["x", "w", "b"], ["h"], "fc", o_attr_float("alpha", 1.0) + o_attr_int("transB", 0))
    + o_node("Relu", ["h"], ["r"])
    + o_node("Reshape", ["r", "shape"], ["flat"])
    + o_node("Concat", ["flat", "flat"], ["cat"], attrs=o_attr_int("axis", 1))
    + o_node("Softmax", ["cat"], ["y"], attrs=o_attr_int("axis", -1))
    + o_node("Custom", ["y"], ["z", "z2"], domain="com.example")
    + blob(2, "mlp")
    + blob(5, o_tensor("w", O_FLOAT, [3, 2], floats=[1, 2, 3, 4, 5, 6]))
    + blob(5, o_tensor("b", O_FLOAT, [2], raw=struct.pack("<2f", 0.5, -0.5)))
    + blob(5, o_tensor("shape", O_INT64, [2], int64s=[1, -1]))
    + blob(11, o_value("x", O_FLOAT, ["N", 3]))
    + blob(12, o_value("z", O_FLOAT, [1, 4]))
    + blob(13, o_value("h", O_FLOAT, ["N", 2])))
write("onnx", "mlp.onnx", o_model(mlp))
write("onnx", "matmul_add.onnx", o_model(
    o_node("MatMul", ["a", "b"], ["c"]) + o_node("Add", ["c", "a"], ["d"])
    + blob(11, o_value("a", O_FLOAT, [2, 2])) + blob(11, o_value("b", O_FLOAT, [2, 2]))
    + blob(12, o_value("d", O_FLOAT, [2, 2])), opset=9))

# ---- cluster JSON -----------------------------------------------------------
copy("cluster_json", "samples/cluster_local.json", "samples/cluster_two_ps.json")
write("cluster_json", "bare.json", '{"ps": ["10.0.0.1:2222"], "worker": ["w0:1", "[::1]:2223"], "chief": []}')
write("cluster_json", "sparse.json", '{"cluster": {"worker": {"0": "h:1", "3": "h:4"}}, '
      '"task": {"type": "worker", "index": 3}, "environment": "cloud"}')
write("cluster_json", "evaluator.json", '{"cluster": {"ps": ["a:1"]}, "task": {"type": "evaluator"}}')

# ---- .npy ---------------------------------------------------------------------
copy("npy", *["tests/data/npy/" + n for n in
              ("f4_2x3.npy", "i8_be.npy", "f8_fortran_2x3.npy", "b1.npy", "u1_scalar.npy", "i2_v2.npy",
               "u4_v3.npy", "c8_be.npy", "U3.npy", "S4_fortran.npy", "empty_0x3.npy")])

# ---- wire messages: flags byte, then frames as 2-byte length + bytes ----------
F32, I64 = 1, 9


def frames(has_identity, *parts):
    out = bytes([1 if has_identity else 0])
    for p in parts:
        out += struct.pack("<H", len(p)) + p
    return out


def meta(name, dtype, dims, size):
    return blob(4, blob(1, name) + vint(2, dtype) + packed_varints(3, dims) + vint(4, size))


PULL, PUSH, STATUS, REPLY = 1, 2, 5, 8
write("wire_decoder", "pull.bin", frames(True, b"peer-1", vint(1, 1) + vint(2, PULL) + vint(3, 42)
                                          + blob(12, "w") + blob(12, "layer/b") + vint(6, 7)))
push = (vint(1, 1) + vint(2, PUSH) + vint(3, 7) + blob(5, "worker:1") + vint(6, 3)
        + blob(7, vint(1, 2))
        + vint(11, 2) + meta("w", F32, [2, 2], 16) + meta("step", I64, [], 8))
write("wire_decoder", "push.bin", frames(True, b"\x00k\x8b", push, struct.pack("<4f", 1, 2, 3, 4), struct.pack("<q", 5)))
write("wire_decoder", "reply.bin", frames(False, vint(1, 1) + vint(2, REPLY) + vint(3, 9) + vint(10, 3)
                                          + blob(9, "stale gradients") + meta("empty", F32, [0, 4], 0), b""))
write("wire_decoder", "status.bin", frames(False, vint(1, 1) + vint(2, STATUS) + blob(8, "pause")))

# ---- graph_exec: FuzzedDataProvider bytes; any bytes make a graph, these
# are a few fixed starting points (the fuzzer's mutations do the rest) --------
for i, seed in enumerate([b"\x00" * 64, bytes(range(64)), bytes(range(255, 191, -1)),
                          b"\x01\x02\x03\x04" * 32, b"\x05\x00\x03\x01\x02\x00\x01\x00" * 16]):
    write("graph_exec", "seed_%d.bin" % i, seed)
