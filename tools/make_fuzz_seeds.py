#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus: a few small, valid and nearly-valid inputs per format, plus the
inputs that once broke a loader (kept as regressions). Usage: make_fuzz_seeds.py OUT_DIR; writes
OUT_DIR/obj, OUT_DIR/ply and OUT_DIR/xyz. Deterministic: the same files every run."""

import pathlib
import struct
import sys


def ply_header(fmt, elements):
    lines = ["ply", f"format {fmt} 1.0", "comment voxhash fuzz seed"]
    for name, count, properties in elements:
        lines.append(f"element {name} {count}")
        lines.extend(f"property {p}" for p in properties)
    lines.append("end_header")
    return ("\n".join(lines) + "\n").encode()


XYZ_PROPS = ["float x", "float y", "float z"]

CUBE = (
    "v -0.5 -0.5 -0.5\nv 0.5 -0.5 -0.5\nv 0.5 0.5 -0.5\nv -0.5 0.5 -0.5\n"
    "v -0.5 -0.5 0.5\nv 0.5 -0.5 0.5\nv 0.5 0.5 0.5\nv -0.5 0.5 0.5\n"
)

OBJ = {
    "cube_quads.obj": "# cube\n" + CUBE + "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n",
    "slashes.obj": "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\n"
    "f 1/1/1 2/2/1 3/3/1\nf 1//1 2//1 3//1\nf 1/1 2/2 3/3\n",
    "relative.obj": "g part\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf -4 -3 -2 -1\no other\ns 1\n",
    "forward.obj": "f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n",
    "pentagon.obj": "v 0 0 0\nv 1 0 0\nv 1.5 1 0\nv 0.5 1.6 0\nv -0.5 1 0\nf 1 2 3 4 5\n",
    "points.obj": "v 1 2 3\nv -4 5.5e1 6 1.0\nv 0.25 0 -1 0.5 0.5 0.5\n",
    "non_finite.obj": "v nan 0 0\nv 1 inf 3\nv 1e39 0 0\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 4 5 6\nf 1 5 6\n",
    "extras.obj": CUBE + "vw 0 inf 1\nl 1 2\np 3\nusemtl m\nmtllib m.mtl\nf 1 2 3 # c\n",
    "crlf.obj": "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 3\r\n",
    "bad_index.obj": "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4294967297\n",
}

XYZ = {
    "cloud.xyz": "# x y z r g b\n\n1 2 3 255 0 0\n-1.5 +2 -3e-2\n4\t5\t6 # trailing\n",
    "non_finite.xyz": "nan 0 0\n1 2 3\n0 -inf 0\n1e400 0 0\n",
    "crlf.xyz": "1 2 3\r\n4 5 6\r\n",
    "bad.xyz": "1 2 3\n4 5\n",
}


def binary_ply():
    seeds = {}
    body = struct.pack("<fff", 1.5, -2.0, 3.25) + struct.pack("<fff", 1e-3, 7.0, -8.0)
    seeds["binary.ply"] = ply_header("binary_little_endian", [("vertex", 2, XYZ_PROPS)]) + body
    props = ["double nx", "float x", "float y", "list uchar float w", "float z", "uchar red"]
    body = struct.pack("<dffBfB", 0.5, 1, 2, 0, 3, 7)
    body += struct.pack("<dffB", 0.0, 4, 5, 2) + struct.pack("<ff", 0.1, 0.2) + struct.pack("<fB", 6, 9)
    seeds["binary_lists.ply"] = (
        ply_header(
            "binary_little_endian",
            [("group", 1, ["int id", "list uchar int members"]), ("vertex", 2, props),
             ("face", 1, ["list uchar int vertex_indices"])],
        )
        + struct.pack("<iBii", 99, 2, 1, 2)
        + body
        + struct.pack("<Biii", 3, 0, 1, 2)
    )
    types = ["char x", "uchar y", "short z", "ushort a", "int b", "uint c", "double d"]
    seeds["binary_types.ply"] = ply_header("binary_little_endian", [("vertex", 1, types)]) + struct.pack(
        "<bBhHiId", -1, 2, -3, 4, -5, 6, 7.5
    )
    # Regression (issue 9): an element without properties and a count near 2^64 once made the
    # reader loop for ever.
    seeds["empty_element.ply"] = ply_header(
        "binary_little_endian", [("nothing", 2**64 - 1, []), ("vertex", 1, XYZ_PROPS)]
    ) + struct.pack("<fff", 1, 2, 3)
    seeds["huge_count.ply"] = ply_header("binary_little_endian", [("vertex", 2**64 - 1, XYZ_PROPS)]) + struct.pack(
        "<fff", 1, 2, 3
    )
    seeds["non_finite.ply"] = ply_header("binary_little_endian", [("vertex", 2, XYZ_PROPS)]) + struct.pack(
        "<ffffff", float("nan"), 0, 0, 1, 2, 3
    )
    return seeds


def ascii_ply():
    seeds = {}
    seeds["ascii.ply"] = ply_header("ascii", [("vertex", 3, XYZ_PROPS)]) + b"1 2 3\n4 5 6\n-7 8.5 9e1\n"
    seeds["ascii_lists.ply"] = (
        ply_header(
            "ascii",
            [("camera", 1, ["float fov", "list uchar int ids"]),
             ("vertex", 2, ["double nx", "float x", "float y", "list uchar float w", "float z"]),
             ("face", 1, ["list uchar int vertex_indices"])],
        ).replace(b"\n", b"\r\n")
        + b"60 2 7 8\r\n0.5 1 2 0 3\r\n\r\n0 -1.5 +2.25 2 0.1 0.2 1e-1\r\n3 0 1 2\r\n"
    )
    seeds["big_endian.ply"] = ply_header("binary_big_endian", [("vertex", 1, XYZ_PROPS)]) + bytes(12)
    return seeds


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_fuzz_seeds.py OUT_DIR")
    out = pathlib.Path(sys.argv[1])
    corpus = {"obj": {k: v.encode() for k, v in OBJ.items()}, "xyz": {k: v.encode() for k, v in XYZ.items()},
              "ply": {**binary_ply(), **ascii_ply()}}
    for fmt, seeds in corpus.items():
        (out / fmt).mkdir(parents=True, exist_ok=True)
        for name, data in seeds.items():
            (out / fmt / name).write_bytes(data)


if __name__ == "__main__":
    main()
