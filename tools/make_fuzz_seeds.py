#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus: a few small, valid and nearly-valid inputs per format, plus the
inputs that once broke a loader (kept as regressions). Usage: make_fuzz_seeds.py OUT_DIR; writes
OUT_DIR/obj, OUT_DIR/ply, OUT_DIR/xyz, OUT_DIR/las and OUT_DIR/mesh (fuzz_mesh: a format byte, then the file).
Deterministic: the same files every run."""

import base64
import json
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
    "parts.obj": "o a\n" + CUBE + "f 1 4 3 2\nf 5 6 7 8\ng left side\nf 1 2 6 5\ng\nf 2 3 7 6\n"
    "o\tb \nf 3 4 8 7\ng left side\nf 4 1 5 8\n",
    # Regressions for the guard in front of tinyobjloader: atoi and exponent overflows, a fourth
    # corner part, lone CR line ends, a NUL inside a line, a keyword followed by a vertical tab.
    "guard_atoi.obj": "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/99999999999/1 2 3\n",
    "guard_exponent.obj": "v 1e2147483649 0 0\nvn 0 1e-2147483648 0\nvt 5e2147483647 0\n",
    "guard_parts.obj": "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1/1/1 2 3\n",
    "guard_lines.obj": "v 0 0 0\rv 1 0 0\r\nv 0 1 0\0 junk\nv\v1 2 3\n\t f 1 2 3\n",
}

XYZ = {
    "cloud.xyz": "# x y z r g b\n\n1 2 3 255 0 0\n-1.5 +2 -3e-2\n4\t5\t6 # trailing\n",
    "non_finite.xyz": "nan 0 0\n1 2 3\n0 -inf 0\n1e400 0 0\n",
    "crlf.xyz": "1 2 3\r\n4 5 6\r\n",
    "bad.xyz": "1 2 3\n4 5\n",
    "header.csv": "X,Y,Z,R,G,B\r\n1.5, -2, 3e1,10,20,30\r\n\"4\",\"5\",\"6\",,,\r\n",
    "cloudcompare.txt": "//X Y Z Intensity\nx y z i\n1\t2\t3\t0.5\n",
    "blocks.pts": "2\n1 2 3 -1200 10 20 30\n4 5 6 -1100 10 20 30\n1\n7 8 9 0 0 0 0\n",
    "decimal_comma.txt": "1,5 2,5 3,5\n",
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
    faces_first = [("note", 1, ["list uchar int ids"]), ("face", 2, ["list uchar int vertex_indices"]),
                   ("vertex", 3, XYZ_PROPS)]
    seeds["faces_first.ply"] = ply_header("ascii", faces_first) + b"2 5 6\n3 0 1 2\n3 2 1 0\n0 0 0\n1 0 0\n0 1 0\n"
    seeds["faces_first_binary.ply"] = (
        ply_header("binary_little_endian", faces_first)
        + struct.pack("<Bii", 2, 5, 6)
        + struct.pack("<Biii", 3, 0, 1, 2) * 2
        + struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)
    )
    seeds["big_endian.ply"] = ply_header(
        "binary_big_endian", [("group", 1, ["list uchar int members"]), ("vertex", 1, ["double x", "short y", "float z"])]
    ) + struct.pack(">Bii", 2, 7, -9) + struct.pack(">dhf", 1.5e3, -300, 0.25)
    # Meshes, now read by voxhash's reader: a cube whose header carries a bare Blender line, a strip.
    cube = ply_header("ascii", [("vertex", 8, XYZ_PROPS), ("face", 6, ["list uchar uint vertex_indices"])])
    cube = cube.replace(b"format ascii 1.0\n", b"format ascii 1.0\nCreated by Blender 2.79 - www.blender.org\n")
    seeds["blender_cube.ply"] = cube + "".join(f"{x} {y} {z}\n" for x, y, z in CUBE_CORNERS).encode() + "".join(
        "4 " + " ".join(map(str, q)) + "\n" for q in CUBE_QUADS
    ).encode()
    seeds["tristrips.ply"] = (
        ply_header("binary_little_endian", [("vertex", 6, XYZ_PROPS), ("tristrips", 1, ["list int int vertex_indices"])])
        + b"".join(struct.pack("<3f", v // 2, v % 2, 0) for v in range(6))
        + struct.pack("<9i", 8, 0, 1, 2, 3, -1, 2, 3, 4)
    )
    return seeds


CUBE_QUADS = [(0, 4, 6, 2), (1, 3, 7, 5), (0, 1, 5, 4), (2, 6, 7, 3), (0, 2, 3, 1), (4, 5, 7, 6)]
CUBE_CORNERS = [((v & 1) - 0.5, ((v >> 1) & 1) - 0.5, ((v >> 2) & 1) - 0.5) for v in range(8)]
CUBE_TRIANGLES = [[CUBE_CORNERS[q[i]] for i in t] for q in CUBE_QUADS for t in ((0, 1, 2), (0, 2, 3))]


def gltf_document(buffer_json):
    return json.dumps({
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"name": "left", "mesh": 0, "translation": [-2, 0, 0]},
                  {"name": "right", "mesh": 0, "rotation": [0, 0, 0.7071068, 0.7071068], "children": [2]},
                  {"name": "child", "mesh": 0, "scale": [2, 2, 2]}],
        "meshes": [{"name": "cube", "primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [buffer_json],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 96},
                        {"buffer": 0, "byteOffset": 96, "byteLength": 72}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3",
                       "min": [-0.5] * 3, "max": [0.5] * 3},
                      {"bufferView": 1, "componentType": 5123, "count": 36, "type": "SCALAR"}],
    }, indent=1)


def mesh_seeds():
    """fuzz_mesh inputs: a byte choosing the format (0 STL, 1 PLY, 2 glTF, 3 GLB, 4 OFF), then the file."""
    seeds = {}
    stl = "solid box\n" + "".join(
        "facet normal 0 0 0\nouter loop\n" + "".join(f"vertex {x} {y} {z}\n" for x, y, z in t)
        + "endloop\nendfacet\n" for t in CUBE_TRIANGLES) + "endsolid box\n"
    seeds["ascii.stl"] = b"\x00" + stl.encode()
    binary = bytearray(b" " * 80) + struct.pack("<I", len(CUBE_TRIANGLES))
    for t in CUBE_TRIANGLES:
        binary += struct.pack("<3f", 0, 0, 0) + b"".join(struct.pack("<3f", *v) for v in t) + b"\0\0"
    seeds["binary.stl"] = b"\x00" + bytes(binary)
    seeds["nan.stl"] = b"\x00" + stl.replace("vertex -0.5 -0.5 -0.5", "vertex nan -0.5 inf", 1).encode()

    ply = ply_header("ascii", [("vertex", 8, XYZ_PROPS), ("face", 6, ["list uchar int vertex_indices"])])
    body = "".join(f"{x} {y} {z}\n" for x, y, z in CUBE_CORNERS) + "".join(f"4 {a} {b} {c} {d}\n" for a, b, c, d in CUBE_QUADS)
    seeds["ascii.ply"] = b"\x01" + ply + body.encode()
    commented = ply.replace(b"element face 6\n", b"element face 6\ncomment assimp 5.2 lost this element\n")
    seeds["comment.ply"] = b"\x01" + commented + body.encode()
    binary_ply = ply_header("binary_little_endian", [("vertex", 8, XYZ_PROPS), ("face", 6, ["list uchar int vertex_indices"])])
    binary_ply += b"".join(struct.pack("<3f", *v) for v in CUBE_CORNERS)
    binary_ply += b"".join(struct.pack("<B4i", 4, *q) for q in CUBE_QUADS)
    seeds["binary.ply"] = b"\x01" + binary_ply
    # Regression: with CRLF line ends and an element before the vertices, assimp 5.2 misreads this
    # PLY and aiProcess_Triangulate aborted on it; it goes to the point reader now.
    seeds["crlf_camera.ply"] = b"\x01" + (ply_header("ascii", [("camera", 1, ["float fov"]), ("vertex", 3, XYZ_PROPS),
                                                           ("face", 1, ["list uchar int vertex_indices"])])
                                          + b"60\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n").replace(b"\n", b"\r\n")

    buffer = b"".join(struct.pack("<3f", *v) for v in CUBE_CORNERS)
    buffer += b"".join(struct.pack("<6H", q[0], q[1], q[2], q[0], q[2], q[3]) for q in CUBE_QUADS)
    uri = "data:application/octet-stream;base64," + base64.b64encode(buffer).decode()
    seeds["two_nodes.gltf"] = b"\x02" + gltf_document({"byteLength": len(buffer), "uri": uri}).encode()
    document = gltf_document({"byteLength": len(buffer)}).encode()
    document += b" " * (-len(document) % 4)
    chunk = buffer + b"\0" * (-len(buffer) % 4)
    glb = struct.pack("<3I", 0x46546C67, 2, 12 + 8 + len(document) + 8 + len(chunk))
    glb += struct.pack("<2I", len(document), 0x4E4F534A) + document + struct.pack("<2I", len(chunk), 0x004E4942) + chunk
    seeds["two_nodes.glb"] = b"\x03" + glb
    # Regression: assimp sniffed this broken binary PLY given as glTF, and its PLY reader crashed.
    seeds["sniffed_ply.gltf"] = b"\x02" + b'ply\nformat binary_little_endian 1.0\ncomment po\x01\x00\x00\x00\x00\x00\x00\x00rtr \x00\x00\x00\x00\x00\x00\x00\xacproperty float z\nelement face 6\nproperty list uchar int ver\xbf\x00\x00\x00?\x00\x00\x00?\x00\x00\x01\x00\x00\x00\x05\x00\x00\x00\x04\x00\x00\x00\x04\x02\x00\x00ggggggggggggg\x00\x00\x06\x00\x00\x00'
    # Regression: a face count far beyond the file made assimp reserve 66 GB; rejected up front now.
    seeds["many_faces.ply"] = b"\x01" + ply.replace(b"element face 6", b"element face 64294967295") + body.encode()
    seeds["tetra.off"] = b"\x04" + b"OFF\n4 4 6\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n"
    # Regressions: OFF counts beyond the file, or not numbers as a whole, made assimp reserve 51 and 64 GB.
    seeds["many_vertices.off"] = b"\x04" + b"OFF\n4294967295 4 6\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 0 1 2\n"
    seeds["word_count.off"] = b"\x04" + b"OFF\n4 22222222222222222222222222str 6\n0 0 0\n1 0 0\n"
    seeds["bare_counts.off"] = b"\x04" + b"\r\n60\r\n04294967295429294967295\nformaemees\r\n"
    return seeds


def scene_seeds():
    # The bundled scenes (budget, "as": "points", bounds, motion) and one of every other field.
    assets = pathlib.Path(__file__).resolve().parent.parent / "assets"
    seeds = {p.name: p.read_bytes() for p in assets.glob("*.json")}
    seeds["fields.json"] = json.dumps({
        "voxhash_scene": 1, "name": "s", "unit": "mm", "algorithm": "hashgraph-v2", "points": 1000,
        "time": 1.5, "gpu_budget": 123456789,
        "grid": {"voxel_size": 0.5, "margin": 0.1},
        "motion": {"kind": "keyframes"},
        "models": [
            {"path": "a.obj", "unit": "in", "as": "mesh", "points": 10,
             "transform": {"scale": 2, "quaternion": [1, 0, 0, 0], "translate": [1, 2, 3]},
             "keyframes": [{"time": 0, "translate": [0, 0, 0]}, {"time": 1, "rotate": [0, 90, 0]}]},
            {"path": "b.xyz", "name": "b", "up": "z"}]}).encode()
    # Selection sets: a file in both sets (placed by one entry), a file's own patterns, the up axis.
    seeds["sets.json"] = json.dumps({
        "voxhash_scene": 1, "up": "z", "grid": {"bounds": {"min": [0, 0, 0], "max": [1, 2, 3]}},
        "set_a": {"name": "ducts", "files": [
            {"path": "site.ifc", "unit": "mm", "up": "y", "transform": {"rotate": [0, 0, 90]}}],
            "parts": ["Duct*", "Pipe-?"], "transform": {"translate": [0, 0, 1]}, "points": 100},
        "set_b": {"files": ["site.ifc", {"path": "s.obj", "parts": ["*"], "as": "points"}],
                  "parts": ["*Wall*"]}}).encode()
    return seeds


def las_file(minor, fmt, points, record=None, scale=0.01, offset=(0.0, 0.0, 0.0), count=None):
    """A LAS 1.minor file of point format fmt: points as (x, y, z, class) integers."""
    record = record or [20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67][fmt & 0x3F]
    header_size = 375 if minor >= 4 else 235 if minor == 3 else 227
    n = len(points) if count is None else count
    head = bytearray(header_size)
    head[0:4] = b"LASF"
    head[24], head[25] = 1, minor
    struct.pack_into("<HIIBHI", head, 94, header_size, header_size, 0, fmt, record,
                     0 if minor >= 4 and n > 0xFFFFFFFF else n)
    struct.pack_into("<3d3d", head, 131, scale, scale, scale, *offset)
    if minor >= 4:
        struct.pack_into("<Q", head, 247, n)
    body = bytearray()
    for x, y, z, c in points:
        rec = bytearray(record)
        struct.pack_into("<3i", rec, 0, x, y, z)
        rec[16 if (fmt & 0x3F) >= 6 else 15] = c
        body += rec
    return bytes(head + body)


def las_seeds():
    pts = [(100, 200, 300, 2), (-5, 7, 9, 6), (0, 0, 0, 2)]
    return {"v12_fmt1.las": las_file(2, 1, pts), "v14_fmt6.las": las_file(4, 6, pts),
            "v13_fmt3.las": las_file(3, 3, pts, offset=(500000.0, 4000000.0, 10.0)),
            "laz.las": las_file(2, 0x83, pts), "short.las": las_file(2, 1, pts, count=1000),
            "long_records.las": las_file(2, 0, pts, record=40)}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_fuzz_seeds.py OUT_DIR")
    out = pathlib.Path(sys.argv[1])
    corpus = {"obj": {k: v.encode() for k, v in OBJ.items()}, "xyz": {k: v.encode() for k, v in XYZ.items()},
              "ply": {**binary_ply(), **ascii_ply()}, "las": las_seeds(), "mesh": mesh_seeds(),
              "scene": scene_seeds(),
              "pose": scene_seeds()}
    for fmt, seeds in corpus.items():
        (out / fmt).mkdir(parents=True, exist_ok=True)
        for name, data in seeds.items():
            (out / fmt / name).write_bytes(data)


if __name__ == "__main__":
    main()
