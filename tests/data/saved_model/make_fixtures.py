#!/usr/bin/env python3
"""Writes the checkpoint files of the SavedModel fixtures byte by byte from
TensorFlow's documented formats, without TensorFlow or FlowLens:

  variables/variables.index            a LevelDB-format table (doc/table_format.md
                                       of LevelDB: blocks of prefix-compressed
                                       entries with restart points, a 5-byte
                                       trailer of type + masked CRC-32C, a
                                       48-byte footer ending in the magic
                                       0xdb4775248b80fb57); key "" holds a
                                       BundleHeaderProto, every other key a
                                       BundleEntryProto (tensor_bundle.proto).
  variables/variables.data-00000-of-00001
                                       the tensors' little-endian bytes.

Run from this directory: python3 make_fixtures.py
"""
import os
import struct


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def mask(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field(number, wire_type):
    return varint(number << 3 | wire_type)


def length_delimited(number, payload):
    return field(number, 2) + varint(len(payload)) + payload


def block(entries):
    """A LevelDB block: a restart point at every entry (no shared prefixes)."""
    out = bytearray()
    restarts = []
    for key, value in entries:
        restarts.append(len(out))
        out += varint(0) + varint(len(key)) + varint(len(value)) + key + value
    if not restarts:
        restarts = [0]
    for r in restarts:
        out += struct.pack("<I", r)
    out += struct.pack("<I", len(restarts))
    return bytes(out)


def append_block(file, contents):
    handle = varint(len(file)) + varint(len(contents))
    typed = contents + b"\x00"  # kNoCompression
    file += typed + struct.pack("<I", mask(crc32c(typed)))
    return handle


def table(entries):
    file = bytearray()
    data_handle = append_block(file, block(entries))
    meta_handle = append_block(file, block([]))
    index_handle = append_block(file, block([(entries[-1][0], data_handle)]))
    footer = (meta_handle + index_handle).ljust(40, b"\x00")
    return bytes(file + footer + struct.pack("<Q", 0xDB4775248B80FB57))


DT_FLOAT, DT_STRING = 1, 7


def entry(dtype, dims, offset, data):
    shape = b"".join(length_delimited(2, field(1, 0) + varint(d)) for d in dims)
    out = field(1, 0) + varint(dtype) + length_delimited(2, shape)
    if offset:
        out += field(4, 0) + varint(offset)
    out += field(5, 0) + varint(len(data))
    return out + field(6, 5) + struct.pack("<I", mask(crc32c(data)))


def header():
    # num_shards: 1, endianness: LITTLE (0, omitted), version { producer: 1 }
    return field(1, 0) + varint(1) + length_delimited(3, field(1, 0) + varint(1))


def write_variables(directory, tensors):
    """tensors: list of (name, float values, dims), written in name order."""
    os.makedirs(directory, exist_ok=True)
    data = bytearray()
    entries = [(b"", header())]
    for name, values, dims in sorted(tensors):
        raw = struct.pack("<%df" % len(values), *values)
        entries.append((name.encode(), entry(DT_FLOAT, dims, len(data), raw)))
        data += raw
    with open(os.path.join(directory, "variables.data-00000-of-00001"), "wb") as f:
        f.write(data)
    with open(os.path.join(directory, "variables.index"), "wb") as f:
        f.write(table(entries))


# ---- the SavedModel protos, as TensorFlow's text format prints them ----------

def q(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def attr_text(value):
    kind, v = value
    if kind == "type":
        return "type: %s" % v
    if kind == "shape":
        return "shape { %s}" % "".join("dim { size: %d } " % d for d in v) if v is not None else "shape { unknown_rank: true }"
    if kind == "s":
        return "s: %s" % q(v)
    if kind == "i":
        return "i: %d" % v
    if kind == "b":
        return "b: %s" % ("true" if v else "false")
    if kind == "types":
        return "list { %s}" % "".join("type: %s " % t for t in v)
    if kind == "shapes":
        return "list { %s}" % "".join("shape { %s} " % "".join("dim { size: %d } " % d for d in dims) for dims in v)
    if kind == "strings":
        return "list { %s}" % "".join("s: %s " % q(t) for t in v)
    if kind == "tensor":
        dtype, dims, vals = v
        shape = "tensor_shape { %s}" % "".join("dim { size: %d } " % d for d in dims)
        if dtype == "DT_STRING":
            body = " ".join("string_val: %s" % q(x) for x in vals)
        elif dtype == "DT_INT32":
            body = " ".join("int_val: %d" % x for x in vals)
        else:
            body = " ".join("float_val: %g" % x for x in vals)
        return "tensor { dtype: %s %s %s }" % (dtype, shape, body)
    raise ValueError(kind)


def node(name, op, inputs=(), **attrs):
    lines = ["    node {", "      name: %s" % q(name), "      op: %s" % q(op)]
    lines += ["      input: %s" % q(i) for i in inputs]
    for key in sorted(attrs):
        lines.append("      attr { key: %s value { %s } }" % (q(key), attr_text(attrs[key])))
    lines.append("    }")
    return "\n".join(lines)


def const(name, dtype, dims, vals):
    return node(name, "Const", dtype=("type", dtype), value=("tensor", (dtype, dims, vals)))


def tensor_info(name, dtype, dims):
    shape = "tensor_shape { %s}" % "".join("dim { size: %d } " % d for d in dims) if dims is not None else \
        "tensor_shape { unknown_rank: true }"
    return "name: %s dtype: %s %s" % (q(name), dtype, shape)


def signature(key, method, inputs, outputs):
    out = ["  signature_def {", "    key: %s" % q(key), "    value {"]
    for k, (t, dtype, dims) in sorted(inputs.items()):
        out.append("      inputs { key: %s value { %s } }" % (q(k), tensor_info(t, dtype, dims)))
    for k, (t, dtype, dims) in sorted(outputs.items()):
        out.append("      outputs { key: %s value { %s } }" % (q(k), tensor_info(t, dtype, dims)))
    out += ["      method_name: %s" % q(method), "    }", "  }"]
    return "\n".join(out)


FLOAT = ("type", "DT_FLOAT")
SCALAR = ("shape", [])


def model_nodes(resource):
    """y = a*x + b and y2 = a*x + c, with a, b, c variables."""
    nodes = []
    for var, init in (("a", 0.5), ("b", 2.0), ("c", 3.0)):
        nodes.append(const(var + "/initial_value", "DT_FLOAT", [], [init]))
        if resource:
            nodes.append(node(var, "VarHandleOp", container=("s", ""), dtype=FLOAT, shape=SCALAR,
                              shared_name=("s", var)))
            nodes.append(node(var + "/Assign", "AssignVariableOp", [var, var + "/initial_value"], dtype=FLOAT))
            nodes.append(node(var + "/Read/ReadVariableOp", "ReadVariableOp", [var], dtype=FLOAT))
        else:
            nodes.append(node(var, "VariableV2", container=("s", ""), dtype=FLOAT, shape=SCALAR,
                              shared_name=("s", "")))
            nodes.append(node(var + "/Assign", "Assign", [var, var + "/initial_value"], T=FLOAT,
                              use_locking=("b", True), validate_shape=("b", True)))
            nodes.append(node(var + "/read", "Identity", [var], T=FLOAT))
    read = (lambda v: v + "/Read/ReadVariableOp") if resource else (lambda v: v + "/read")
    nodes.append(node("x", "Placeholder", dtype=FLOAT, shape=("shape", [-1, 1])))
    nodes.append(node("Mul", "Mul", [read("a"), "x"], T=FLOAT))
    nodes.append(node("y", "Add", ["Mul", read("b")], T=FLOAT))
    nodes.append(node("Mul_1", "Mul", [read("a"), "x"], T=FLOAT))
    nodes.append(node("y2", "Add", ["Mul_1", read("c")], T=FLOAT))
    return nodes


def saver_nodes(resource, sharded):
    """What tf.compat.v1.train.Saver(sharded=...) builds for V2 checkpoints."""
    names = ["a", "b", "c"]
    n = [const("save/filename/input", "DT_STRING", [], ["model"]),
         node("save/filename", "PlaceholderWithDefault", ["save/filename/input"], dtype=("type", "DT_STRING"),
              shape=SCALAR),
         node("save/Const", "PlaceholderWithDefault", ["save/filename"], dtype=("type", "DT_STRING"), shape=SCALAR),
         const("save/SaveV2/tensor_names", "DT_STRING", [3], names),
         const("save/SaveV2/shape_and_slices", "DT_STRING", [3], ["", "", ""])]
    values = [v + "/Read/ReadVariableOp" if resource else v for v in names]
    if sharded:
        n += [const("save/StringJoin/inputs_1", "DT_STRING", [], ["_temp_6f1f0ee4/part"]),
              node("save/StringJoin", "StringJoin", ["save/Const", "save/StringJoin/inputs_1"], N=("i", 2),
                   separator=("s", "")),
              const("save/num_shards", "DT_INT32", [], [1]),
              const("save/ShardedFilename/shard", "DT_INT32", [], [0]),
              node("save/ShardedFilename", "ShardedFilename",
                   ["save/StringJoin", "save/ShardedFilename/shard", "save/num_shards"]),
              node("save/SaveV2", "SaveV2",
                   ["save/ShardedFilename", "save/SaveV2/tensor_names", "save/SaveV2/shape_and_slices"] + values,
                   dtypes=("types", ["DT_FLOAT"] * 3)),
              node("save/control_dependency", "Identity", ["save/ShardedFilename", "^save/SaveV2"],
                   T=("type", "DT_STRING")),
              node("save/MergeV2Checkpoints/checkpoint_prefixes", "Pack",
                   ["save/ShardedFilename", "^save/control_dependency"], N=("i", 1), T=("type", "DT_STRING"),
                   axis=("i", 0)),
              node("save/MergeV2Checkpoints", "MergeV2Checkpoints",
                   ["save/MergeV2Checkpoints/checkpoint_prefixes", "save/Const"], delete_old_dirs=("b", True)),
              node("save/Identity", "Identity", ["save/Const", "^save/MergeV2Checkpoints", "^save/control_dependency"],
                   T=("type", "DT_STRING"))]
        save_tensor = "save/Identity:0"
    else:
        n += [node("save/SaveV2", "SaveV2", ["save/Const", "save/SaveV2/tensor_names",
                                             "save/SaveV2/shape_and_slices"] + values,
                   dtypes=("types", ["DT_FLOAT"] * 3)),
              node("save/control_dependency", "Identity", ["save/Const", "^save/SaveV2"], T=("type", "DT_STRING"))]
        save_tensor = "save/control_dependency:0"
    n += [const("save/RestoreV2/tensor_names", "DT_STRING", [3], names),
          const("save/RestoreV2/shape_and_slices", "DT_STRING", [3], ["", "", ""]),
          node("save/RestoreV2", "RestoreV2",
               ["save/Const", "save/RestoreV2/tensor_names", "save/RestoreV2/shape_and_slices"],
               dtypes=("types", ["DT_FLOAT"] * 3))]
    assigns = []
    for k, v in enumerate(names):
        src = "save/RestoreV2" + (":%d" % k if k else "")
        if resource:
            n.append(node("save/Identity_%d" % (k + 1), "Identity", [src], T=FLOAT))
            n.append(node("save/AssignVariableOp" + ("_%d" % k if k else ""), "AssignVariableOp",
                          [v, "save/Identity_%d" % (k + 1)], dtype=FLOAT))
            assigns.append("^save/AssignVariableOp" + ("_%d" % k if k else ""))
        else:
            n.append(node("save/Assign" + ("_%d" % k if k else ""), "Assign", [v, src], T=FLOAT,
                          use_locking=("b", True), validate_shape=("b", True)))
            assigns.append("^save/Assign" + ("_%d" % k if k else ""))
    if sharded:
        n.append(node("save/restore_shard", "NoOp", assigns))
        n.append(node("save/restore_all", "NoOp", ["^save/restore_shard"]))
    else:
        n.append(node("save/restore_all", "NoOp", assigns))
    saver = ('  saver_def {\n    filename_tensor_name: "save/Const:0"\n    save_tensor_name: %s\n'
             '    restore_op_name: "save/restore_all"\n    max_to_keep: 5\n    sharded: %s\n'
             '    keep_checkpoint_every_n_hours: 10000\n    version: V2\n  }') % (q(save_tensor),
                                                                             "true" if sharded else "false")
    return n, saver


def saved_model_text(resource, sharded):
    graph = model_nodes(resource)
    # An asset: the loader feeds assets/foo.txt's path into "Const:0"; the
    # legacy init op stores it in a variable, as half_plus_two does.
    graph.append(const("Const", "DT_STRING", [], ["foo.txt"]))
    graph.append(node("filename_tensor", "VariableV2", container=("s", ""), dtype=("type", "DT_STRING"),
                      shape=SCALAR, shared_name=("s", "")))
    graph.append(node("Assign", "Assign", ["filename_tensor", "Const"], T=("type", "DT_STRING"),
                      use_locking=("b", True), validate_shape=("b", True)))
    graph.append(node("group_deps", "NoOp", ["^Assign"]))
    save, saver = saver_nodes(resource, sharded)
    graph += save
    x = ("x:0", "DT_FLOAT", [-1, 1])
    signatures = [signature("regress_x_to_y2", "tensorflow/serving/predict", {"x": x},
                            {"y2": ("y2:0", "DT_FLOAT", [-1, 1])})]
    if resource:
        signatures.append(signature("serving_default", "tensorflow/serving/predict", {"x": x},
                                    {"y": ("y:0", "DT_FLOAT", [-1, 1])}))
    else:
        # half_plus_two's tf.Example path, as tf.parse_example builds it in TF 1.15:
        # a required float feature "x" of shape [1].
        read_a, read_b = "a/read", "b/read"
        graph += [node("tf_example", "Placeholder", dtype=("type", "DT_STRING"), shape=("shape", [-1])),
                  const("ParseExample/ParseExample/names", "DT_STRING", [0], []),
                  const("ParseExample/ParseExample/dense_keys_0", "DT_STRING", [], ["x"]),
                  const("ParseExample/Const", "DT_FLOAT", [0], []),
                  node("ParseExample/ParseExample", "ParseExample",
                       ["tf_example", "ParseExample/ParseExample/names", "ParseExample/ParseExample/dense_keys_0",
                        "ParseExample/Const"],
                       Ndense=("i", 1), Nsparse=("i", 0), Tdense=("types", ["DT_FLOAT"]),
                       dense_shapes=("shapes", [[1]]), sparse_types=("types", [])),
                  node("x_from_example", "Identity", ["ParseExample/ParseExample"], T=FLOAT),
                  node("Mul_2", "Mul", [read_a, "x_from_example"], T=FLOAT),
                  node("y_from_example", "Add", ["Mul_2", read_b], T=FLOAT)]
        examples = ("tf_example:0", "DT_STRING", None)
        out = ("y_from_example:0", "DT_FLOAT", [-1, 1])
        signatures.append(signature("regress_x_to_y", "tensorflow/serving/regress", {"inputs": examples},
                                    {"outputs": out}))
        signatures.append(signature("serving_default", "tensorflow/serving/classify", {"inputs": examples},
                                    {"scores": out}))
        signatures.sort(key=lambda t: t.split('key: "')[1])
    variables = ["a", "b", "c"]
    collection = "trainable_variables"
    text = ["# A TF1 SavedModel computing y = a*x + b (and y2 = a*x + c), written by",
            "# make_fixtures.py in TensorFlow's text format; its variables are",
            "# variables/variables.{index,data-00000-of-00001}.",
            "saved_model_schema_version: 1",
            "meta_graphs {",
            "  meta_info_def {",
            '    meta_graph_version: "v1.15.5"',
            '    tags: "serve"',
            '    tensorflow_version: "1.15.5"',
            '    tensorflow_git_version: "v1.15.4-39-g3db52be"',
            "  }",
            "  graph_def {"]
    text += graph
    text += ["    versions { producer: 134 }", "  }", saver]
    text += ['  collection_def { key: "legacy_init_op" value { node_list { value: "group_deps" } } }',
             '  collection_def { key: "asset_filepaths" value { node_list { value: "Const:0" } } }',
             '  collection_def { key: %s value { bytes_list { %s} } }' % (
                 q(collection), "".join("value: %s " % q(v) for v in variables)),
             '  collection_def { key: "variables" value { bytes_list { %s} } }' % "".join(
                 "value: %s " % q(v) for v in variables)]
    text += signatures
    text += ['  asset_file_def { tensor_info { name: "Const:0" } filename: "foo.txt" }', "}"]
    return "\n".join(text) + "\n"


# ---- a TensorFlow Serving session bundle: export.meta + a V1 checkpoint -----

def ordered_num_increasing(v):
    out = bytearray()
    while v > 0:
        out.insert(0, v & 0xFF)
        v >>= 8
    return bytes([len(out)]) + bytes(out)


def ordered_string(s):
    return s.replace(b"\x00", b"\x00\xff").replace(b"\xff", b"\xff\x00") + b"\x00\x01"


def ordered_signed(v):
    assert -64 <= v < 64  # all a full slice needs: 0 and -1
    return bytes([(0x80 ^ v) & 0xFF])


def full_slice_key(name, rank):
    """EncodeTensorNameSlice(name, TensorSlice(rank)): every extent full."""
    key = ordered_num_increasing(0) + ordered_string(name.encode()) + ordered_num_increasing(rank)
    for _ in range(rank):
        key += ordered_signed(0) + ordered_signed(-1)
    return key


def write_v1_checkpoint(path, tensors):
    """tensors: list of (name, float values, dims): SaveSlices' layout."""
    metas = b""
    entries = []
    for name, values, dims in sorted(tensors):
        shape = b"".join(length_delimited(2, field(1, 0) + varint(d)) for d in dims)
        full = b"".join(length_delimited(1, b"") for _ in dims)  # one empty Extent per dim
        metas += length_delimited(1, length_delimited(1, name.encode()) + length_delimited(2, shape) +
                                  field(3, 0) + varint(DT_FLOAT) + length_delimited(4, full))
        packed = struct.pack("<%df" % len(values), *values)
        tensor_proto = length_delimited(5, packed)  # float_val, packed, no dtype or shape (as Fill() writes)
        saved_slice = length_delimited(1, name.encode()) + length_delimited(2, full) + length_delimited(3, tensor_proto)
        entries.append((full_slice_key(name, len(dims)), length_delimited(2, saved_slice)))
    meta = length_delimited(1, metas + length_delimited(2, field(1, 0) + varint(1)))  # versions { producer: 1 }
    with open(path, "wb") as f:
        f.write(table([(b"", meta)] + sorted(entries)))


def text_bytes(b):
    return '"' + "".join(chr(c) if 32 <= c < 127 and chr(c) not in '"\\' else "\\%03o" % c for c in b) + '"'


def session_bundle_meta():
    graph = model_nodes(resource=False)
    names = ["a", "b", "c"]
    graph += [const("save/Const", "DT_STRING", [], ["model"]),
              const("save/num_shards", "DT_INT32", [], [1]),
              const("save/ShardedFilename/shard", "DT_INT32", [], [0]),
              node("save/ShardedFilename", "ShardedFilename",
                   ["save/Const", "save/ShardedFilename/shard", "save/num_shards"]),
              const("save/save/tensor_names", "DT_STRING", [3], names),
              const("save/save/shapes_and_slices", "DT_STRING", [3], ["", "", ""]),
              node("save/save", "SaveSlices", ["save/ShardedFilename", "save/save/tensor_names",
                                               "save/save/shapes_and_slices"] + names,
                   T=("types", ["DT_FLOAT"] * 3)),
              node("save/control_dependency", "Identity", ["save/ShardedFilename", "^save/save"],
                   T=("type", "DT_STRING")),
              node("save/ShardedFilespec", "ShardedFilespec", ["save/Const", "save/num_shards",
                                                               "^save/control_dependency"])]
    assigns = []
    for k, v in enumerate(names):
        suffix = "_%d" % k if k else ""
        graph += [const("save/restore_slice%s/tensor_name" % suffix, "DT_STRING", [], [v]),
                  const("save/restore_slice%s/shape_and_slice" % suffix, "DT_STRING", [], [""]),
                  node("save/restore_slice" + suffix, "RestoreSlice",
                       ["save/Const", "save/restore_slice%s/tensor_name" % suffix,
                        "save/restore_slice%s/shape_and_slice" % suffix],
                       dt=FLOAT, preferred_shard=("i", -1)),
                  node("save/Assign" + suffix, "Assign", [v, "save/restore_slice" + suffix], T=FLOAT,
                       use_locking=("b", True), validate_shape=("b", True))]
        assigns.append("^save/Assign" + suffix)
    graph += [node("save/restore_shard", "NoOp", assigns), node("save/restore_all", "NoOp", ["^save/restore_shard"])]
    binding = lambda t: length_delimited(1, t.encode())  # TensorBinding { tensor_name }
    regression = length_delimited(1, length_delimited(1, binding("x:0")) + length_delimited(2, binding("y:0")))
    def generic(alias, tensor):  # GenericSignature { map { key value } }
        return length_delimited(3, length_delimited(1, length_delimited(1, alias.encode()) +
                                                    length_delimited(2, binding(tensor))))
    named = (length_delimited(2, length_delimited(1, b"inputs") + length_delimited(2, generic("x", "x:0"))) +
             length_delimited(2, length_delimited(1, b"outputs") + length_delimited(2, generic("y2", "y2:0"))))
    signatures = length_delimited(1, regression) + named
    text = ["# A TensorFlow Serving session bundle's export.meta (a MetaGraphDef, text format here),",
            "# written by make_fixtures.py; its V1 checkpoint is export-00000-of-00001.",
            "meta_info_def {", '  tensorflow_version: "0.12.1"', "}", "graph_def {"]
    text += [line[2:] for line in "\n".join(graph).split("\n")]
    text += ["  versions { producer: 21 }", "}",
             'saver_def {\n  filename_tensor_name: "save/Const:0"\n  save_tensor_name: "save/ShardedFilespec:0"\n'
             '  restore_op_name: "save/restore_all"\n  max_to_keep: 5\n  sharded: true\n  version: V1\n}',
             'collection_def {\n  key: "serving_signatures"\n  value {\n    any_list {\n      value {\n'
             '        type_url: "type.googleapis.com/tensorflow.serving.Signatures"\n        value: %s\n'
             '      }\n    }\n  }\n}' % text_bytes(signatures)]
    return "\n".join(text) + "\n"


# ---- a TF2 SavedModel (tf.saved_model.save of a tf.Module) --------------------

def tf2_saved_model_text():
    """Its signature, save and restore run through functions (StatefulPartitionedCall),
    with the bodies tf.saved_model.save traces (_traced_save / _traced_restore)."""
    w = node("w", "VarHandleOp", dtype=FLOAT, shape=SCALAR, shared_name=("s", "w"), container=("s", ""))
    x = node("serving_default_x", "Placeholder", dtype=FLOAT, shape=("shape", [-1, 1]))
    def call(name, inputs, tin, tout, f):
        return node(name, "StatefulPartitionedCall", inputs, Tin=("types", tin), Tout=("types", tout),
                    config=("s", ""), config_proto=("s", ""), executor_type=("s", "")) .replace(
            "    }", '      attr { key: "f" value { func { name: %s } } }\n    }' % q(f))
    graph = [w, x,
             call("StatefulPartitionedCall", ["serving_default_x", "w"], ["DT_FLOAT", "DT_RESOURCE"], ["DT_FLOAT"],
                  "__inference_signature_wrapper_21"),
             node("saver_filename", "Placeholder", dtype=("type", "DT_STRING"), shape=SCALAR),
             call("StatefulPartitionedCall_1", ["saver_filename", "w"], ["DT_STRING", "DT_RESOURCE"], ["DT_STRING"],
                  "__inference__traced_save_40"),
             call("StatefulPartitionedCall_2", ["saver_filename", "w"], ["DT_STRING", "DT_RESOURCE"], ["DT_STRING"],
                  "__inference__traced_restore_50"),
             node("NoOp", "NoOp")]
    library = """    library {
      function {
        signature {
          name: "__inference_signature_wrapper_21"
          input_arg { name: "x" type: DT_FLOAT }
          input_arg { name: "unknown" type: DT_RESOURCE }
          output_arg { name: "identity" type: DT_FLOAT }
          is_stateful: true
        }
        node_def { name: "ReadVariableOp" op: "ReadVariableOp" input: "unknown" attr { key: "dtype" value { type: DT_FLOAT } } }
        node_def { name: "mul" op: "Mul" input: "ReadVariableOp:value:0" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
        ret { key: "identity" value: "mul:z:0" }
      }
      function {
        signature {
          name: "__inference__traced_save_40"
          input_arg { name: "file_prefix" type: DT_STRING }
          input_arg { name: "savev2_w_read_readvariableop" type: DT_RESOURCE }
          output_arg { name: "identity_1" type: DT_STRING }
          is_stateful: true
          control_output: "MergeV2Checkpoints"
        }
        node_def { name: "Const" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "_temp/part" } } } }
        node_def { name: "StringJoin" op: "StringJoin" input: "file_prefix" input: "Const:output:0" attr { key: "N" value { i: 2 } } }
        node_def { name: "num_shards" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
        node_def { name: "ShardedFilename/shard" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }
        node_def { name: "ShardedFilename" op: "ShardedFilename" input: "StringJoin:output:0" input: "ShardedFilename/shard:output:0" input: "num_shards:output:0" }
        node_def { name: "w/Read/ReadVariableOp" op: "ReadVariableOp" input: "savev2_w_read_readvariableop" attr { key: "dtype" value { type: DT_FLOAT } } }
        node_def { name: "SaveV2/tensor_names" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "w/.ATTRIBUTES/VARIABLE_VALUE" } } } }
        node_def { name: "SaveV2/shape_and_slices" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "" } } } }
        node_def { name: "SaveV2" op: "SaveV2" input: "ShardedFilename:filename:0" input: "SaveV2/tensor_names:output:0" input: "SaveV2/shape_and_slices:output:0" input: "w/Read/ReadVariableOp:value:0" attr { key: "dtypes" value { list { type: DT_FLOAT } } } }
        node_def { name: "MergeV2Checkpoints/checkpoint_prefixes" op: "Pack" input: "ShardedFilename:filename:0" input: "^SaveV2" attr { key: "N" value { i: 1 } } attr { key: "T" value { type: DT_STRING } } }
        node_def { name: "MergeV2Checkpoints" op: "MergeV2Checkpoints" input: "MergeV2Checkpoints/checkpoint_prefixes:output:0" input: "file_prefix" }
        node_def { name: "Identity" op: "Identity" input: "file_prefix" input: "^MergeV2Checkpoints" attr { key: "T" value { type: DT_STRING } } }
        node_def { name: "Identity_1" op: "Identity" input: "Identity:output:0" input: "^MergeV2Checkpoints" attr { key: "T" value { type: DT_STRING } } }
        ret { key: "identity_1" value: "Identity_1:output:0" }
        control_ret { key: "MergeV2Checkpoints" value: "MergeV2Checkpoints" }
      }
      function {
        signature {
          name: "__inference__traced_restore_50"
          input_arg { name: "file_prefix" type: DT_STRING }
          input_arg { name: "assignvariableop_w" type: DT_RESOURCE }
          output_arg { name: "identity_2" type: DT_STRING }
          is_stateful: true
          control_output: "AssignVariableOp"
        }
        node_def { name: "RestoreV2/tensor_names" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "w/.ATTRIBUTES/VARIABLE_VALUE" } } } }
        node_def { name: "RestoreV2/shape_and_slices" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "" } } } }
        node_def { name: "RestoreV2" op: "RestoreV2" input: "file_prefix" input: "RestoreV2/tensor_names:output:0" input: "RestoreV2/shape_and_slices:output:0" attr { key: "dtypes" value { list { type: DT_FLOAT } } } }
        node_def { name: "Identity" op: "Identity" input: "RestoreV2:tensors:0" attr { key: "T" value { type: DT_FLOAT } } }
        node_def { name: "AssignVariableOp" op: "AssignVariableOp" input: "assignvariableop_w" input: "Identity:output:0" attr { key: "dtype" value { type: DT_FLOAT } } }
        node_def { name: "NoOp" op: "NoOp" }
        node_def { name: "Identity_1" op: "Identity" input: "file_prefix" input: "^AssignVariableOp" input: "^NoOp" attr { key: "T" value { type: DT_STRING } } }
        node_def { name: "Identity_2" op: "Identity" input: "Identity_1:output:0" input: "^AssignVariableOp" attr { key: "T" value { type: DT_STRING } } }
        ret { key: "identity_2" value: "Identity_2:output:0" }
        control_ret { key: "AssignVariableOp" value: "AssignVariableOp" }
      }
    }"""
    x_info = tensor_info("serving_default_x:0", "DT_FLOAT", [-1, 1])
    out_info = tensor_info("StatefulPartitionedCall:0", "DT_FLOAT", [-1, 1])
    text = ["# A TF2 SavedModel as tf.saved_model.save writes it (text format here), by make_fixtures.py.",
            "saved_model_schema_version: 1", "meta_graphs {",
            '  meta_info_def { tags: "serve" tensorflow_version: "2.15.0" tensorflow_git_version: "v2.15.0-2-g0b15fdfcb3f" stripped_default_attrs: true }',
            "  graph_def {"] + graph + [library, "    versions { producer: 1645 min_consumer: 12 }", "  }",
            '  saver_def { filename_tensor_name: "saver_filename:0" save_tensor_name: "StatefulPartitionedCall_1:0" '
            'restore_op_name: "StatefulPartitionedCall_2" version: V2 }',
            '  signature_def { key: "serving_default" value { inputs { key: "x" value { %s } } '
            'outputs { key: "output_0" value { %s } } method_name: "tensorflow/serving/predict" } }' % (x_info, out_info),
            '  signature_def { key: "__saved_model_init_op" value { outputs { key: "__saved_model_init_op" '
            'value { name: "NoOp" tensor_shape { unknown_rank: true } } } } }',
            '  object_graph_def { nodes { children { node_id: 1 local_name: "w" } user_object { identifier: '
            '"_generic_user_object" version { producer: 1 min_consumer: 1 } } } nodes { variable { dtype: DT_FLOAT '
            'shape { } name: "w" } } }',
            "}"]
    return "\n".join(text) + "\n"


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    # y = a*x + b, y2 = a*x + c, with the values half_plus_two trains to.
    for model, resource, sharded in (("half_plus_two_v1", False, True), ("half_plus_two_resource", True, False)):
        directory = os.path.join(here, model)
        write_variables(os.path.join(directory, "variables"),
                        [("a", [0.5], []), ("b", [2.0], []), ("c", [3.0], [])])
        os.makedirs(os.path.join(directory, "assets"), exist_ok=True)
        with open(os.path.join(directory, "assets", "foo.txt"), "w") as f:
            f.write("asset-file-contents\n")
        with open(os.path.join(directory, "saved_model.pbtxt"), "w") as f:
            f.write(saved_model_text(resource, sharded))
    bundle = os.path.join(here, "session_bundle", "00000123")
    os.makedirs(bundle, exist_ok=True)
    write_v1_checkpoint(os.path.join(bundle, "export-00000-of-00001"),
                        [("a", [0.5], []), ("b", [2.0], []), ("c", [3.0], [])])
    with open(os.path.join(bundle, "export.meta"), "w") as f:
        f.write(session_bundle_meta())
    tf2 = os.path.join(here, "tf2_module")
    write_variables(os.path.join(tf2, "variables"), [("w/.ATTRIBUTES/VARIABLE_VALUE", [0.5], [])])
    with open(os.path.join(tf2, "saved_model.pbtxt"), "w") as f:
        f.write(tf2_saved_model_text())
