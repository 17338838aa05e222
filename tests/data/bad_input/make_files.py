#!/usr/bin/env python3
"""Writes the bad-input corpus: one defect per file, graphs (.pbtxt, .pb,
.onnx), cluster specs (.json) and arrays (.npy). expected_errors.tsv lists the
error each must produce; tests/engine/test_bad_input_corpus.cpp checks it.
Binary files are encoded with tests/fuzz/protowire.py (no protobuf package
needed). Rerun after editing; it rewrites every file it owns."""
import os
import struct
import sys

sys.dont_write_bytecode = True  # keep tests/fuzz free of __pycache__

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "fuzz"))
from protowire import blob, packed_f32, packed_varints, tag, varint, vint  # noqa: E402


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# ---- GraphDef text ------------------------------------------------------------
def const(name, tensor, dtype="DT_FLOAT"):
    return ('node {\n  name: "%s"\n  op: "Const"\n  attr { key: "dtype" value { type: %s } }\n'
            '  attr { key: "value" value { tensor { %s } } }\n}\n' % (name, dtype, tensor))


ok_node = 'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
nested = 'value { func { name: "f" attr { key: "k" ' * 120 + 'value { i: 1 }' + ' } } }' * 120
write("deep_nesting.pbtxt", 'node { name: "deep" op: "Call" attr { key: "f" %s } }\n' % nested)
write("huge_fill.pbtxt", ok_node + const("zeros", "dtype: DT_FLOAT tensor_shape { dim { size: 1000000000 } } float_val: 0"))
write("huge_string_fill.pbtxt", const("names", 'dtype: DT_STRING tensor_shape { dim { size: 100000000 } } string_val: "a"',
                                      "DT_STRING"))
write("dims_overflow.pbtxt", const("big", "dtype: DT_FLOAT tensor_shape { dim { size: 4294967296 } dim { size: 4294967296 } }"))
write("negative_tensor_dim.pbtxt", ok_node + const("w", "dtype: DT_FLOAT tensor_shape { dim { size: -1 } } float_val: 1"))
write("unknown_rank_with_dims.pbtxt",
      'node { name: "p" op: "Placeholder" attr { key: "shape" value { shape { unknown_rank: true dim { size: 2 } } } } }\n')
write("const_unknown_rank.pbtxt", const("c", "dtype: DT_FLOAT tensor_shape { unknown_rank: true }"))
write("ref_dtype_const.pbtxt", const("r", "dtype: DT_FLOAT_REF float_val: 1"))
write("resource_const.pbtxt", const("h", "dtype: DT_RESOURCE", "DT_RESOURCE"))
write("too_many_strings.pbtxt", const("s", 'dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "a" string_val: "b"',
                                      "DT_STRING"))
write("too_many_halfs.pbtxt", const("h", "dtype: DT_HALF half_val: 1 half_val: 2", "DT_HALF"))
write("too_many_bools.pbtxt", ok_node + const("b", "dtype: DT_BOOL tensor_shape { dim { size: 2 } } bool_val: [true, false, true]",
                                              "DT_BOOL"))
write("too_many_int64.pbtxt", const("i", "dtype: DT_INT64 int64_val: [1, 2]", "DT_INT64"))
write("odd_dcomplex.pbtxt", const("z", "dtype: DT_COMPLEX128 tensor_shape { dim { size: 2 } } dcomplex_val: [1, 2, 3]",
                                  "DT_COMPLEX128"))
write("content_size_int64.pbtxt", const("c", 'dtype: DT_INT64 tensor_shape { dim { size: 2 } } tensor_content: "\\001\\000\\000\\000"',
                                        "DT_INT64"))
write("list_bad_tensor.pbtxt",
      'node {\n  name: "l"\n  op: "Op"\n  attr { key: "ts" value { list { tensor { dtype: DT_FLOAT } '
      'tensor { dtype: DT_INVALID } } } }\n}\n')
write("list_bad_shape.pbtxt", 'node {\n  name: "l"\n  op: "Op"\n  attr { key: "shapes" value { list { shape { dim { size: -7 } } } } }\n}\n')
write("func_attr_bad_type.pbtxt",
      ok_node + 'node {\n  name: "call"\n  op: "PartitionedCall"\n'
      '  attr { key: "f" value { func { name: "body" attr { key: "Tin" value { type: 4242 } } } } }\n}\n')
write("misspelled_top_field.pbtxt", ok_node + 'nodes { name: "y" op: "NoOp" }\n')
write("non_ascii_identifier.pbtxt", 'node { name: "a" op: Ünïcode }\n')
write("invalid_utf8_name.pbtxt", ok_node + 'node { name: "caf\\351" op: "NoOp" }\n')
write("invalid_utf8_func_key.pbtxt",
      'node { name: "f" op: "Call" attr { key: "f" value { func { name: "g" attr { key: "\\377" value { i: 1 } } } } } }\n')
write("unknown_attr_field.pbtxt", 'node { name: "a" op: "Const" attr { key: "v" value { tensr { dtype: DT_FLOAT } } } }\n')
write("string_for_int.pbtxt", 'node { name: "a" op: "Op" attr { key: "n" value { i: "three" } } }\n')
write("float_for_int.pbtxt", 'node { name: "a" op: "Op" attr { key: "n" value { i: 1.5 } } }\n')
write("missing_open_brace.pbtxt", 'node\n  name: "a"\n}\n')
write("semicolon_list.pbtxt", 'node { name: "a" op: "Op" input: ["b"; "c"] }\n')

# ---- GraphDef binary ------------------------------------------------------------
DT_FLOAT, DT_INT32 = 1, 3


def b_attr(key, value):
    return blob(5, blob(1, key) + blob(2, value))


def b_node(name, op, attrs=b""):
    return blob(1, blob(1, name) + blob(2, op) + attrs)


def b_tensor(dtype, dims, extra=b""):
    return vint(1, dtype) + blob(2, b"".join(blob(2, vint(1, d)) for d in dims)) + extra


deep = vint(3, 1)
for _ in range(150):
    deep = blob(10, blob(1, "f") + blob(2, blob(1, "k") + blob(2, deep)))
write("deep_nesting.pb", b_node("deep", "Call", blob(5, blob(1, "f") + blob(2, deep))))
write("content_size.pb", b_node("w", "Const", b_attr("value", blob(8, b_tensor(DT_FLOAT, [2, 2], blob(4, b"\0" * 12))))))
write("bad_dtype.pb", b_node("p", "Placeholder", b_attr("dtype", vint(6, 999))))
write("invalid_utf8_name.pb", b_node("bad\xff".encode("latin1"), "NoOp"))
write("huge_fill.pb", b_node("z", "Const", b_attr("value", blob(8, b_tensor(DT_INT32, [100000, 100000], packed_varints(7, [0]))))))
write("unknown_fields_only.pb", vint(15, 1) + blob(16, "hello"))
write("node_as_varint.pb", vint(1, 5))
write("length_past_end.pb", tag(1, 2) + varint(1000) + b"\x0a\x01x")

# ---- ONNX -----------------------------------------------------------------------
O_FLOAT, O_STRING, O_INT64 = 1, 8, 7


def o_tensor(name, dtype, dims, extra=b""):
    return packed_varints(1, dims) + vint(2, dtype) + blob(8, name) + extra


def o_node(op, inputs, outputs, attrs=b""):
    return blob(1, b"".join(blob(1, i) for i in inputs) + b"".join(blob(2, o) for o in outputs) + blob(4, op) + attrs)


def o_input(name):
    return blob(11, blob(1, name) + blob(2, blob(1, vint(1, O_FLOAT))))


def o_model(graph):
    return vint(1, 8) + blob(8, vint(2, 13)) + blob(7, graph)


def o_init(tensor):
    return o_model(blob(5, tensor))


write("empty.onnx", b"")
write("random_bytes.onnx", bytes([0xff, 0xfe, 0x07, 0x99, 0x12, 0x80, 0x80, 0x80]))
write("no_graph.onnx", vint(1, 8) + blob(2, "exporter"))
write("raw_data_size.onnx", o_init(o_tensor("w", O_FLOAT, [2, 3], blob(9, b"\0" * 5))))
write("float_data_count.onnx", o_init(o_tensor("short", O_FLOAT, [3], packed_f32(4, [1.0]))))
write("negative_dim.onnx", o_init(o_tensor("neg", O_FLOAT, [-2], packed_f32(4, []))))
write("dims_overflow.onnx", o_init(o_tensor("big", O_FLOAT, [1 << 31, 1 << 31, 4], blob(9, b"\0" * 4))))
write("huge_dims.onnx", o_init(o_tensor("huge", O_FLOAT, [1 << 20, 1 << 20], packed_f32(4, [0.0]))))
write("external_data.onnx", o_init(o_tensor("ext", O_FLOAT, [4], vint(14, 1))))
write("undefined_dtype.onnx", o_init(o_tensor("u", 0, [1])))
write("string_data_count.onnx", o_init(o_tensor("names", O_STRING, [2], blob(6, "only one"))))
write("unknown_input.onnx", o_model(o_input("x") + o_node("Relu", ["nope"], ["y"])))
write("duplicate_output.onnx", o_model(o_input("x") + o_node("Relu", ["x"], ["y"]) + o_node("Tanh", ["x"], ["y"])))
write("missing_graph_output.onnx", o_model(o_input("x") + o_node("Relu", ["x"], ["y"]) + blob(12, blob(1, "zz"))))
write("bad_attribute_tensor.onnx", o_model(o_node("Constant", [], ["c"], blob(5, blob(1, "value") + vint(20, 4)
                                                                           + blob(5, o_tensor("t", 999, [1]))))))
write("unknown_attribute_type.onnx", o_model(o_node("Foo", [], ["c"], blob(5, blob(1, "weird") + vint(20, 99)))))
write("invalid_utf8_name.onnx", o_model(o_input("x") + blob(1, blob(1, "x") + blob(2, "y") + blob(3, b"caf\xe9")
                                                                + blob(4, "Relu"))))
write("text_named_onnx.onnx", "ir_version: 8\ngraph { node { op_type: \"Relu\" } }\n")

# ---- cluster specs --------------------------------------------------------------
clusters = {
    "trailing_comma.json": '{\n  "ps": ["a:1"],\n  "worker": ["b:2"],\n}\n',
    "not_object.json": '["ps", "worker"]\n',
    "empty_job_name.json": '{"": ["a:1"]}',
    "bad_job_name.json": '{"ps-1": ["a:1"]}',
    "missing_port.json": '{"worker": ["hostonly"]}',
    "port_range.json": '{"worker": ["h:70000"]}',
    "ipv6_unbracketed.json": '{"worker": ["::1:2222"]}',
    "duplicate_address.json": '{"ps": ["h:1"], "worker": ["h:2", "h:1"]}',
    "sparse_bad_index.json": '{"worker": {"a": "h:1"}}',
    "sparse_negative_index.json": '{"worker": {"-1": "h:1"}}',
    "sparse_same_index.json": '{"worker": {"0": "h:1", "00": "h:2"}}',
    "task_without_cluster.json": '{"task": {"type": "worker", "index": 0}}',
    "task_unknown_job.json": '{"cluster": {"worker": ["h:1"]}, "task": {"type": "chief", "index": 0}}',
    "task_index_range.json": '{"cluster": {"worker": ["h:1"]}, "task": {"type": "worker", "index": 3}}',
    "task_index_nested.json": '{"cluster": {"worker": ["h:1"]}, "task": {"type": "worker", "index": ' + "[" * 2000 + "]" * 2000 + "}}",
    "tasks_number.json": '{"worker": 3}',
    "address_number.json": '{"worker": ["h:1", 2223]}',
    "empty.json": "",
    "number_overflow.json": '{"ps": ["a:1"], "worker": [1e999]}',
    "cluster_string.json": '{"cluster": "ps=a:1", "task": {"type": "ps"}}',
}
for name, text in clusters.items():
    write(name, text)

# ---- .npy -----------------------------------------------------------------------
def npy(header, data=b"", version=1, length=None):
    h = header.encode()
    n = len(h) if length is None else length
    size = struct.pack("<H", n) if version == 1 else struct.pack("<I", n)
    return b"\x93NUMPY" + bytes([version, 0]) + size + h + data


F4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n"
write("npy_empty.npy", b"")
write("npy_bad_magic.npy", b"\x93NUMPX\x01\x00" + b"\0" * 40)
write("npy_version4.npy", npy(F4, b"\0" * 8, version=4))
write("npy_truncated_length.npy", b"\x93NUMPY\x02\x00\x10")
write("npy_header_past_end.npy", npy(F4, length=4000))
write("npy_missing_shape.npy", npy("{'descr': '<f4', 'fortran_order': False}\n", b"\0" * 4))
write("npy_extra_key.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'strides': (4,)}\n", b"\0" * 4))
write("npy_bad_fortran.npy", npy("{'descr': '<f4', 'fortran_order': maybe, 'shape': (1,)}\n", b"\0" * 4))
write("npy_negative_dim.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}\n", b"\0" * 4))
write("npy_dim_too_large.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}\n"))
write("npy_bad_descr.npy", npy("{'descr': '<f3', 'fortran_order': False, 'shape': (1,)}\n", b"\0" * 3))
write("npy_zero_width_string.npy", npy("{'descr': '|S0', 'fortran_order': False, 'shape': (100000000000,)}\n"))
write("npy_object.npy", npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,)}\n", b"\0" * 8))
write("npy_short_data.npy", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }\n", b"\0" * 40))
write("npy_unterminated.npy", npy("{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}\n"))
write("npy_shape_overflow.npy", npy("{'descr': '|u1', 'fortran_order': False, 'shape': (65536, 65536, 65536, 65536)}\n"))
