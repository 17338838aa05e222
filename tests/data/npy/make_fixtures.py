#!/usr/bin/env python3
"""Writes the .npy fixtures used by tests/engine/test_npy.cpp.

numpy is not available where these were generated, so the files are written
byte for byte in the layout numpy.lib.format uses (magic, version, header
length, dict literal padded with spaces to a 64-byte boundary, '\\n', data).
Expected values are listed next to each file; the test checks the same values.
"""
import struct

def npy(name, descr, shape, data, fortran=False, version=(1, 0)):
    shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape_text)
    len_size = 2 if version[0] == 1 else 4
    pad = (64 - (6 + 2 + len_size + len(header) + 1) % 64) % 64
    header = (header + " " * pad + "\n").encode("utf-8" if version[0] == 3 else "latin1")
    length = struct.pack("<H" if len_size == 2 else "<I", len(header))
    with open(name, "wb") as f:
        f.write(b"\x93NUMPY" + bytes(version) + length + header + data)

npy("f4_2x3.npy", "<f4", (2, 3), struct.pack("<6f", 0.5, -1, 2, 3.25, 100, -0.0))
npy("i8_be.npy", ">i8", (3,), struct.pack(">3q", 1, -2, 3000000000))
# C-order [[1,2,3],[4,5,6]] stored column-major.
npy("f8_fortran_2x3.npy", "<f8", (2, 3), struct.pack("<6d", 1, 4, 2, 5, 3, 6), fortran=True)
npy("b1.npy", "|b1", (4,), bytes([1, 0, 0, 1]))
npy("u1_scalar.npy", "|u1", (), bytes([200]))
npy("i2_v2.npy", "<i2", (3,), struct.pack("<3h", -1, 0, 300), version=(2, 0))
npy("u4_v3.npy", "<u4", (2, 1), struct.pack("<2I", 7, 4294967295), version=(3, 0))
npy("f2.npy", "<f2", (2,), struct.pack("<2H", 0x3C00, 0xC000))
npy("c8_be.npy", ">c8", (1,), struct.pack(">2f", 1, 2))
npy("U3.npy", "<U3", (3,), "ab\0".encode("utf-32-le") + "\u00e9\0\0".encode("utf-32-le") + "xyz".encode("utf-32-le"))
npy("S4_fortran.npy", "|S4", (2, 2), b"a\0\0\0" + b"c\0\0\0" + b"bb\0\0" + b"dddd", fortran=True)
npy("empty_0x3.npy", "<f4", (0, 3), b"")
# Broken files for error messages.
npy("bad_descr.npy", "<x9", (2,), b"\0" * 18)
npy("short_data.npy", "<f8", (4,), struct.pack("<3d", 1, 2, 3))
with open("bad_magic.npy", "wb") as f:
    f.write(b"\x93NUMPZ\x01\x00" + b"\0" * 40)
with open("truncated_header.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', 'fortr")
