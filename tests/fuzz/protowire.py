"""A minimal protobuf wire-format writer, enough to build GraphDef, ONNX and
FlowLens wire headers byte by byte where the Python protobuf package is not
installed. Each helper returns the encoded field (tag + payload)."""
import struct


def varint(n):
    n &= (1 << 64) - 1  # negative int64 values take ten bytes, as in protobuf
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def tag(field, wire_type):
    return varint(field << 3 | wire_type)


def vint(field, n):
    return tag(field, 0) + varint(n)


def blob(field, data):
    if isinstance(data, str):
        data = data.encode()
    return tag(field, 2) + varint(len(data)) + data


def f32(field, x):
    return tag(field, 5) + struct.pack("<f", x)


def packed_varints(field, values):
    return blob(field, b"".join(varint(v) for v in values))


def packed_f32(field, values):
    return blob(field, struct.pack("<%df" % len(values), *values))
