"""GraphDef text format written the way TensorFlow's Python prints it.

Shared by the fixture generators beside it (keras_cnn_step/make_train_step.py,
small_cnn/make_mnist_deep.py); standard library only. What it reproduces of
TensorFlow (tensorflow/core/framework/{graph,node_def,attr_value,tensor,
tensor_shape}.proto and google.protobuf.text_format):

  * NodeDef fields in field-number order (name 1, op 2, input 3, device 4,
    attr 5), attr map entries sorted by key, two-space indentation, one
    field a line, empty sub-messages as "shape {\n}".
  * float fields in the shortest text that reads back as the same float32
    (protobuf's ToShortestFloat), always with a '.' or an exponent.
  * constants as tf.constant / make_tensor_proto writes them: one element in
    float_val / int_val / int64_val / bool_val, more than one as the
    little-endian bytes of tensor_content, C-escaped (octal for anything
    that is not printable ASCII).
  * input names "node", "node:N" (N > 0) and "^node" for control inputs;
    TensorFlow's node-name uniquing (name, name_1, name_2, ... compared case
    insensitively).
"""

import struct

DT = {
    "float": "DT_FLOAT", "half": "DT_HALF", "double": "DT_DOUBLE",
    "int32": "DT_INT32", "int64": "DT_INT64", "bool": "DT_BOOL",
    "resource": "DT_RESOURCE", "string": "DT_STRING",
}
_PACK = {"float": "<f", "half": "<e", "double": "<d", "int32": "<i", "int64": "<q", "bool": "<?"}
_VAL = {"float": "float_val", "double": "double_val", "int32": "int_val", "int64": "int64_val", "bool": "bool_val"}


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def fmt_float(x):
    x = float(x)
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    target = f32(x)
    for precision in range(1, 10):
        s = "%.*g" % (precision, target)
        if f32(float(s)) == target:
            break
    if "." not in s and "e" not in s and "n" not in s:
        s += ".0"
    return s


def c_escape(data):
    out = []
    for b in data:
        c = chr(b)
        if c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif c == '"':
            out.append('\\"')
        elif c == "'":
            out.append("\\'")
        elif c == "\\":
            out.append("\\\\")
        elif 0x20 <= b < 0x7F:
            out.append(c)
        else:
            out.append("\\%03o" % b)
    return "".join(out)


# A message is a list of (field, value) pairs; value is a str (already text)
# or a list (a sub-message).
def render(fields, indent):
    lines = []
    pad = "  " * indent
    for key, value in fields:
        if isinstance(value, list):
            lines.append(pad + key + " {")
            lines.extend(render(value, indent + 1))
            lines.append(pad + "}")
        else:
            lines.append(pad + key + ": " + value)
    return lines


def shape_msg(dims):
    if dims is None:
        return [("unknown_rank", "true")]
    return [("dim", [("size", str(d))]) for d in dims]


def tensor_msg(dtype, dims, values):
    """values: a flat list of Python numbers / bools (len = product of dims)."""
    fields = [("dtype", DT[dtype]), ("tensor_shape", shape_msg(dims))]
    if len(values) > 1:
        data = b"".join(struct.pack(_PACK[dtype], v) for v in values)
        fields.append(("tensor_content", '"' + c_escape(data) + '"'))
    elif len(values) == 1:
        v = values[0]
        if dtype == "half":
            # make_tensor_proto keeps a half's bits in half_val (an int32 field).
            fields.append(("half_val", str(struct.unpack("<H", struct.pack("<e", v))[0])))
        elif dtype in ("float", "double"):
            fields.append((_VAL[dtype], fmt_float(v)))
        elif dtype == "bool":
            fields.append((_VAL[dtype], "true" if v else "false"))
        else:
            fields.append((_VAL[dtype], str(int(v))))
    return fields


# Attr values.
def a_type(t): return [("type", DT[t])]
def a_i(i): return [("i", str(int(i)))]
def a_f(x): return [("f", fmt_float(x))]
def a_b(b): return [("b", "true" if b else "false")]
def a_s(s): return [("s", '"' + c_escape(s.encode()) + '"')]
def a_shape(dims): return [("shape", shape_msg(dims))]
def a_ints(xs): return [("list", [("i", str(int(x))) for x in xs])]
def a_types(ts): return [("list", [("type", DT[t]) for t in ts])]
def a_shapes(shapes): return [("list", [("shape", shape_msg(s)) for s in shapes])]
def a_strs(xs): return [("list", [("s", '"' + c_escape(x.encode()) + '"') for x in xs])]
def a_tensor(dtype, dims, values): return [("tensor", tensor_msg(dtype, dims, values))]


class GraphDefWriter:
    def __init__(self):
        self.nodes = []
        self.by_name = {}
        self._used = set()  # lower-cased names in use, as ops.Graph._names_in_use

    def unique(self, name):
        """TensorFlow's Graph.unique_name: name, then name_1, name_2, ..."""
        if name.lower() not in self._used:
            self._used.add(name.lower())
            return name
        i = 1
        while ("%s_%d" % (name, i)).lower() in self._used:
            i += 1
        new = "%s_%d" % (name, i)
        self._used.add(new.lower())
        return new

    def reserve(self, name):
        """Marks a name scope as used (entering `with tf.name_scope(name)`)."""
        self._used.add(name.lower())

    def add(self, name, op, inputs=(), attrs=None, control=(), exact=False):
        """Adds a node; name is uniqued unless exact. Returns the node's name."""
        if not exact:
            name = self.unique(name)
        else:
            self._used.add(name.lower())  # the caller uniqued it (or entered it as a scope)
        assert name not in self.by_name, "duplicate node " + name
        data = [str(i) for i in inputs]
        # TensorFlow drops a control input on a node that is already a data input.
        producers = {i.split(":")[0] for i in data}
        ctrl = []
        for c in control:
            c = c.lstrip("^")
            if c not in producers and c not in ctrl:
                ctrl.append(c)
        node = {"name": name, "op": op, "input": data + ["^" + c for c in ctrl], "attr": dict(attrs or {})}
        self.nodes.append(node)
        self.by_name[name] = node
        return name

    def add_control(self, name, controls):
        node = self.by_name[name]
        producers = {i.lstrip("^").split(":")[0] for i in node["input"]}
        for c in controls:
            if c not in producers:
                node["input"].append("^" + c)
                producers.add(c)

    def text(self, versions_producer, header=""):
        lines = [("# " + l if l else "#") for l in header.strip("\n").split("\n")] if header else []
        for n in self.nodes:
            fields = [("name", '"' + n["name"] + '"'), ("op", '"' + n["op"] + '"')]
            fields += [("input", '"' + i + '"') for i in n["input"]]
            for key in sorted(n["attr"]):
                fields.append(("attr", [("key", '"' + key + '"'), ("value", n["attr"][key])]))
            lines.append("node {")
            lines.extend(render(fields, 1))
            lines.append("}")
        lines.append("versions {")
        lines.append("  producer: %d" % versions_producer)
        lines.append("}")
        return "\n".join(lines) + "\n"


def out(name, port):
    return name if port == 0 else "%s:%d" % (name, port)
