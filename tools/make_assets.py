#!/usr/bin/env python3
# Writes the bundled test models into assets/ (sphere, torus, trefoil knot tube, lumpy blob) as
# closed, watertight, outward-oriented triangle meshes in OBJ. Standard library only; "%.6f"
# coordinates make the output byte-for-byte reproducible. Run: python3 tools/make_assets.py
import math
import os
import sys

ASSETS_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets"))

ICOSPHERE_LEVEL = 4  # 20 * 4^4 = 5120 triangles
TORUS_MAJOR, TORUS_MINOR = 0.7, 0.3
TORUS_SEGMENTS, TORUS_SIDES = 96, 32
KNOT_TUBE_RADIUS = 0.12
KNOT_SEGMENTS, KNOT_SIDES = 240, 16


def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def scale(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def normalize(a):
    return scale(a, 1.0 / math.sqrt(dot(a, a)))


def rotate(v, axis, angle):
    """Rodrigues' rotation of v about the unit vector axis."""
    c, s = math.cos(angle), math.sin(angle)
    return add(add(scale(v, c), scale(cross(axis, v), s)), scale(axis, dot(axis, v) * (1 - c)))


def icosphere(level):
    """Unit icosphere: the icosahedron with every triangle split into four, `level` times."""
    t = (1 + math.sqrt(5)) / 2
    vertices = [normalize(v) for v in [
        (-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0),
        (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
        (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11),
             (1, 5, 9), (5, 11, 4), (11, 10, 2), (10, 7, 6), (7, 1, 8),
             (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9),
             (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(level):
        midpoints = {}

        def midpoint(a, b):
            edge = (min(a, b), max(a, b))
            if edge not in midpoints:
                midpoints[edge] = len(vertices)
                vertices.append(normalize(scale(add(vertices[a], vertices[b]), 0.5)))
            return midpoints[edge]

        split = []
        for a, b, c in faces:
            ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
            split += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        faces = split
    return vertices, faces


def grid_faces(rows, cols):
    """Triangles of a rows x cols vertex grid that wraps around in both directions."""
    faces = []
    for i in range(rows):
        for j in range(cols):
            a = i * cols + j
            b = ((i + 1) % rows) * cols + j
            c = ((i + 1) % rows) * cols + (j + 1) % cols
            d = i * cols + (j + 1) % cols
            faces += [(a, b, c), (a, c, d)]
    return faces


def torus():
    vertices = []
    for i in range(TORUS_SEGMENTS):
        u = 2 * math.pi * i / TORUS_SEGMENTS
        for j in range(TORUS_SIDES):
            v = 2 * math.pi * j / TORUS_SIDES
            ring = TORUS_MAJOR + TORUS_MINOR * math.cos(v)
            vertices.append((ring * math.cos(u), ring * math.sin(u), TORUS_MINOR * math.sin(v)))
    return vertices, grid_faces(TORUS_SEGMENTS, TORUS_SIDES)


def trefoil(t):
    return (math.sin(t) + 2 * math.sin(2 * t), math.cos(t) - 2 * math.cos(2 * t), -math.sin(3 * t))


def knot():
    """A tube around the (2,3) trefoil, scaled so tube and all fit in the unit ball. Frames are
    parallel-transported along the curve; the closing twist is spread evenly over the loop."""
    n = KNOT_SEGMENTS
    curve = [trefoil(2 * math.pi * i / n) for i in range(n)]
    fit = (1 - KNOT_TUBE_RADIUS) / max(math.sqrt(dot(p, p)) for p in curve)
    curve = [scale(p, fit) for p in curve]
    check_tube_clearance(curve, KNOT_TUBE_RADIUS)
    tangents = [normalize(sub(curve[(i + 1) % n], curve[i - 1])) for i in range(n)]

    normals = [normalize(cross(tangents[0], (0.0, 0.0, 1.0)))]
    for i in range(1, n + 1):
        t = tangents[i % n]
        prev = normals[-1]
        normals.append(normalize(sub(prev, scale(t, dot(prev, t)))))
    closing = math.atan2(dot(cross(normals[n], normals[0]), tangents[0]), dot(normals[n], normals[0]))

    vertices = []
    for i in range(n):
        t = tangents[i]
        normal = rotate(normals[i], t, closing * i / n)
        binormal = cross(normal, t)  # rings turn as the torus's do, so faces point outward
        for j in range(KNOT_SIDES):
            a = 2 * math.pi * j / KNOT_SIDES
            offset = add(scale(normal, math.cos(a)), scale(binormal, math.sin(a)))
            vertices.append(add(curve[i], scale(offset, KNOT_TUBE_RADIUS)))
    return vertices, grid_faces(n, KNOT_SIDES)


def check_tube_clearance(curve, radius):
    """Fails unless a tube of `radius` around the closed polyline cannot touch itself: strands at
    least 4 radii apart along the curve stay more than 2 radii apart, curvature radius > radius."""
    n = len(curve)
    step = [math.dist(curve[i], curve[(i + 1) % n]) for i in range(n)]
    mean_step = sum(step) / n
    near = int(math.ceil(4 * radius / mean_step))
    for i in range(n):
        for j in range(i + near, n - near + i + 1):
            if math.dist(curve[i], curve[j % n]) <= 2 * radius:
                sys.exit(f"knot: strands {i} and {j % n} closer than the tube diameter")
        a, b, c = curve[i - 1], curve[i], curve[(i + 1) % n]
        twice_area = math.sqrt(dot(cross(sub(b, a), sub(c, a)), cross(sub(b, a), sub(c, a))))
        if twice_area > 0:
            circumradius = math.dist(a, b) * math.dist(b, c) * math.dist(c, a) / (2 * twice_area)
            if circumradius <= radius:
                sys.exit(f"knot: curvature radius {circumradius:.3f} at {i} below the tube radius")


def blob():
    """A lumpy sphere: the icosphere with each direction's radius modulated by low-frequency
    sinusoids. The radius stays positive, so the surface is star-shaped around the origin."""
    directions, faces = icosphere(ICOSPHERE_LEVEL)

    def radius(d):
        x, y, z = d
        return (0.82 + 0.09 * math.sin(3 * x + 0.5) * math.cos(2 * y)
                + 0.07 * math.sin(4 * y + 1.3) + 0.06 * math.cos(5 * z + 0.2) * math.sin(2 * x))

    return [scale(d, radius(d)) for d in directions], faces


def check_mesh(name, vertices, faces, star_shaped):
    """Fails unless every directed edge appears once and its reverse once (closed, manifold,
    consistently oriented) and the enclosed volume is positive (outward facing)."""
    edges = set()
    for f in faces:
        for k in range(3):
            edge = (f[k], f[(k + 1) % 3])
            if edge in edges:
                sys.exit(f"{name}: edge {edge} used twice in the same direction")
            edges.add(edge)
    for a, b in edges:
        if (b, a) not in edges:
            sys.exit(f"{name}: edge ({a}, {b}) is on a boundary")
    volume = sum(dot(vertices[a], cross(vertices[b], vertices[c])) for a, b, c in faces) / 6
    if volume <= 0:
        sys.exit(f"{name}: faces point inwards (volume {volume})")
    if star_shaped:
        for a, b, c in faces:
            normal = cross(sub(vertices[b], vertices[a]), sub(vertices[c], vertices[a]))
            if dot(normal, vertices[a]) <= 0:
                sys.exit(f"{name}: face ({a}, {b}, {c}) folds over")
    return volume


def write_obj(name, description, vertices, faces, star_shaped=False):
    volume = check_mesh(name, vertices, faces, star_shaped)
    path = os.path.join(ASSETS_DIR, name + ".obj")
    with open(path, "w", encoding="ascii", newline="\n") as out:
        out.write(f"# voxhash asset '{name}': {description}\n")
        out.write("# generated by tools/make_assets.py; closed, outward-facing triangles\n")
        out.write(f"# {len(vertices)} vertices, {len(faces)} triangles\n")
        for v in vertices:
            out.write("v %.6f %.6f %.6f\n" % v)
        for a, b, c in faces:
            out.write(f"f {a + 1} {b + 1} {c + 1}\n")
    print(f"{path}: {len(vertices)} vertices, {len(faces)} triangles, volume {volume:.4f}")


def main():
    os.makedirs(ASSETS_DIR, exist_ok=True)
    write_obj("sphere", "unit-radius icosphere", *icosphere(ICOSPHERE_LEVEL), star_shaped=True)
    write_obj("torus", f"torus, major radius {TORUS_MAJOR}, minor radius {TORUS_MINOR}, around z",
              *torus())
    write_obj("knot", f"tube of radius {KNOT_TUBE_RADIUS} around a (2,3) trefoil knot, within "
              "the unit ball", *knot())
    write_obj("blob", "lumpy sphere, radius 0.67-0.99 modulated by low-frequency sinusoids",
              *blob(), star_shaped=True)


if __name__ == "__main__":
    main()
