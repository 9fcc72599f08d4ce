#!/usr/bin/env python3
"""The library's layer map, checked against the sources (DocC article "Architecture").

Reads Sources/Stowage, finds the types each top-level folder declares (struct, class, enum,
protocol, actor, typealias at the top level of a file), and the folders whose files name them:
an edge "A -> B" is a file of folder A naming a type declared in folder B (comments and string
literals left out). Every edge must go down the map below: from a folder to one of a lower
layer, or between the two folders of the vocabulary pair. `extension Store` lives in Store/, and
no file imports libc or the C shims (only StowagePlatform does).
Prints the graph and its cycles; exits 1 naming each edge the map does not allow, with the
files and names that make it.

    Scripts/check-layers.py [SOURCES]     (SOURCES: Sources/Stowage by default)

StowagePlatform is a target of its own, below all of this: the compiler keeps it from naming
anything of the library (it does not depend on Stowage).
"""
import collections, os, re, sys

# The layers, lowest first. A folder may name the folders of lower layers only.
LAYERS = [
    ["Testing"],                                  # debug-only test seam (fault points, probes)
    ["Errors", "Locations"],                      # the vocabulary: StowageError, Location, Container, paths
    ["Concurrency"],                              # the one bridge from async to blocking work, progress
    ["Markers", "Usage"],                         # markers on files; the tree scan
    ["Capacity"],                                 # volume figures (with what a scan measured), the budget
    ["Removal"],                                  # the one removal walk (a sink: writes nothing through Store)
    ["Store"],                                    # Codable, data and folders inside a container
    ["Caching", "Pressure", "Filling"],           # DiskCache; relief, watch, audit; fills and release
    ["Running", "Overview"],                      # rooms (their layer is filled); the settings-screen model
]
# Folders of one layer that may name each other, and why.
PAIRS = {
    frozenset({"Errors", "Locations"}): "a StowageError names the Location it concerns; a Location's "
                                        "checks throw StowageError",
}
# Edges the map allows although they go up, each with its reason (none: add one only with the reason,
# as a debt to pay).
EXCEPTIONS = {}

DECLARATION = re.compile(
    r'^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated|open)\s+)*'
    r'(?:struct|class|enum|protocol|actor|typealias)\s+([A-Za-z_]\w*)', re.M)
EXTENSION = re.compile(r'^(?:(?:public|package|internal|fileprivate|private)\s+)?extension\s+([A-Za-z_]\w*)', re.M)


def code_only(source):
    source = re.sub(r'/\*.*?\*/', ' ', source, flags=re.S)
    source = re.sub(r'"""(?:.|\n)*?"""', '""', source)
    source = re.sub(r'//[^\n]*', ' ', source)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', source)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Sources", "Stowage")
    rank = {folder: index for index, layer in enumerate(LAYERS) for folder in layer}
    files = {}
    for directory, _, names in os.walk(root):
        for name in names:
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                relative = os.path.relpath(path, root)
                folder = relative.split(os.sep)[0] if os.sep in relative else "."
                with open(path, encoding="utf-8") as handle:
                    files[relative] = (folder, code_only(handle.read()))
    problems = []
    declared = collections.defaultdict(set)
    for relative, (folder, source) in files.items():
        if folder not in rank:
            problems.append(f"{relative}: the folder {folder} is not in the layer map (Scripts/check-layers.py)")
        for match in DECLARATION.finditer(source):
            declared[match.group(1)].add(folder)
    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    for relative, (folder, source) in sorted(files.items()):
        for name in set(re.findall(r'\b[A-Za-z_]\w*\b', source)):
            if folder in declared.get(name, ()):
                continue
            for other in declared.get(name, ()):
                edges[folder][other].add(f"{relative} names {name}")
        for module in re.findall(r'^\s*(?:@\w+\s+)?import\s+(Glibc|Darwin|Musl|CStowageShims)\b', source, re.M):
            problems.append(f"{relative}: imports {module}: only StowagePlatform may")
        for match in EXTENSION.finditer(source):
            if match.group(1) == "Store" and folder != "Store":
                problems.append(f"{relative}: extension Store outside Store/")

    def allowed(a, b):
        if frozenset({a, b}) in PAIRS or (a, b) in EXCEPTIONS:
            return True
        return a in rank and b in rank and rank[b] < rank[a]

    for a in sorted(edges):
        for b in sorted(edges[a]):
            if not allowed(a, b):
                problems.append(f"{a} -> {b}: not allowed by the layer map ({a} is in layer {rank.get(a)}, {b} in "
                                f"layer {rank.get(b)}):\n    " + "\n    ".join(sorted(edges[a][b])))

    # The graph and its cycles (strongly connected components of more than one folder).
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            components.append(sorted(component))

    for folder in sorted({folder for folder, _ in files.values()}):
        if folder not in index:
            connect(folder)
        print(f"{folder} -> " + ", ".join(f"{b} ({len(edges[folder][b])})" for b in sorted(edges[folder])))
    cycles = [component for component in components if len(component) > 1]
    print("cycles: " + ("; ".join(" <-> ".join(c) for c in cycles) if cycles else "none"))
    if problems:
        print("\nlayer map: %d problem(s)" % len(problems))
        for problem in problems:
            print(problem)
        return 1
    print("layer map: every edge goes down the map")
    return 0


if __name__ == "__main__":
    sys.exit(main())
