#!/usr/bin/env python3
"""Compares the stand-in Darwin C headers with Apple's published open-source headers.

DarwinCheck/Surface/include is our own stand-in of the part of the Apple SDK's C headers that
Stowage uses (DarwinCheck/check.sh type-checks Stowage against it on Linux). This script checks
that stand-in, declaration by declaration, against the headers Apple publishes at the versions
the stand-in names (its module.modulemap, "Checked against" comment), parsed by the same clang for
each Apple target:

  - every type the stand-in declares is complete exactly where Apple's is (an opaque stand-in
    of a complete type changes how Swift imports it), with Apple's size and alignment;
  - every struct and union has Apple's fields, in Apple's order, with Apple's types, offsets and
    nullability (`_Nonnull` pointers are not optional in Swift);
  - every typedef, and every function's parameters, return type, variadic-ness and nullability,
    are Apple's;
  - every macro has Apple's value and type (function-like macros: at a set of sample arguments;
    macros that are not constants, such as `errno`: the same tokens once fully expanded);
  - every availability the compiler would apply on the target's platform, and every Swift
    attribute (such as "unavailable from async"), is Apple's.

Types are compared as clang's canonical types, so a spelling through other typedefs (`off_t` or
`__int64_t`) is not a difference, while `int` for `long`, `long` for `long long`, an opaque type
for a complete one, or a field out of order is.

Apple's sources (https://github.com/apple-oss-distributions):
    git clone --bare https://github.com/apple-oss-distributions/Libc
    git clone --bare https://github.com/apple-oss-distributions/xnu
    git clone --bare https://github.com/apple-oss-distributions/libpthread
    git clone --bare https://github.com/apple-oss-distributions/libmalloc
    git clone --bare https://github.com/apple-oss-distributions/libplatform
    git clone --bare https://github.com/apple-oss-distributions/AvailabilityVersions
Pass each as a git directory (bare or not; the script reads the tag the stand-in names, whatever
is checked out) or as a plain folder already at that tag (for instance GitHub's tarball of the
tag, unpacked):
    DarwinCheck/verify-surface.py --libc Libc.git --xnu xnu.git --libpthread libpthread.git \
        --libmalloc libmalloc.git --libplatform libplatform.git \
        --availability-versions AvailabilityVersions.git
or put them in one folder (as Libc, xnu, libpthread, libmalloc, libplatform,
AvailabilityVersions, each optionally ending in .git)
and pass it with --sources, or set STOWAGE_APPLE_SOURCES to it.
    DarwinCheck/verify-surface.py --self-test ...   also plants known mistakes in a copy of the
                                                    stand-in and fails unless each is reported.
Exit status: 0 when no difference is found, 1 when some are, 64 for a usage error.
Needs: Python 3 (standard library), git, tar, bash and the clang of the Swift toolchain.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SURFACE = os.path.join(ROOT, "DarwinCheck", "Surface", "include")

# name, clang target (deployment targets of Package.swift), the platform whose availability
# the compiler applies there.
TARGETS = [
    ("macOS", "arm64-apple-macos13.0", "macos"),
    ("macOS x86_64", "x86_64-apple-macos13.0", "macos"),
    ("iOS", "arm64-apple-ios16.0", "ios"),
    ("iOS Simulator x86_64", "x86_64-apple-ios16.0-simulator", "ios"),
    ("Mac Catalyst", "arm64-apple-ios16.0-macabi", "maccatalyst"),
    ("tvOS", "arm64-apple-tvos16.0", "tvos"),
    ("watchOS", "arm64_32-apple-watchos9.0", "watchos"),
    ("visionOS", "arm64-apple-xros1.0", "xros"),
]

PROJECTS = ("Libc", "xnu", "libpthread", "libmalloc", "libplatform", "AvailabilityVersions")

SDK_SETTINGS = ('{"CanonicalName": "stowage-verify", "Version": "99.0", "MaximumDeploymentTarget": "99.99.99",'
                ' "VersionMap": {"iOS_xrOS": {"17.0": "1.0", "18.0": "2.0"}, "xrOS_iOS": {"1.0": "17.0", "2.0": "18.0"}}}\n')

# Sample arguments for function-like macros: wait statuses (exit 0x12, killed by 9, stopped)
# and file modes (a folder, a regular file, a link).
SAMPLES = [0, 0x7F, 0x1200, 0x0009, 0x137F, 0o040755, 0o100644, 0o120777]


def fail(message, status=64):
    print("verify-surface: " + message, file=sys.stderr)
    sys.exit(status)


def run(command, **keywords):
    return subprocess.run(command, check=False, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **keywords)


def clang_path():
    swiftc = shutil.which("swiftc")
    if swiftc is None:
        fail("swiftc is not on PATH (the script uses the clang next to it)")
    path = os.path.join(os.path.dirname(os.path.realpath(swiftc)), "clang")
    if not os.access(path, os.X_OK):
        fail("no clang next to swiftc: " + path)
    return path


# ---------------------------------------------------------------------------------------------
# Apple's sources, at the tags the stand-in names.

def standin_tags(surface):
    text = open(os.path.join(surface, "module.modulemap")).read()
    start = text.find("Checked against")
    if start < 0:
        fail("module.modulemap has no 'Checked against' comment naming Apple's tags")
    comment = text[start:text.find("module ", start)]
    tags = {match.group(1): match.group(0) for match in re.finditer(r"\b(%s)-[0-9]+(\.[0-9]+)*" % "|".join(PROJECTS), comment)}
    for project in PROJECTS:
        if project not in tags:
            fail("module.modulemap's 'Checked against' comment names no %s tag" % project)
    return tags


def is_git_dir(path):
    result = run(["git", "--git-dir", path, "rev-parse", "--git-dir"])
    return result.returncode == 0


def extract(project, path, tag, work):
    """A folder holding the project's files at the tag."""
    if path is None:
        fail("where is %s? Pass --%s, or --sources (see --help)" % (project, project.lower()))
    if not os.path.isdir(path):
        fail("%s: %s is not a folder" % (project, path))
    git_dir = path if is_git_dir(path) else os.path.join(path, ".git")
    if is_git_dir(git_dir):
        if run(["git", "--git-dir", git_dir, "rev-parse", "--verify", "-q", tag + "^{commit}"]).returncode != 0:
            fail("%s: %s has no tag %s (git --git-dir %s fetch --tags)" % (project, path, tag, git_dir))
        destination = os.path.join(work, "sources", project)
        os.makedirs(destination)
        archive = subprocess.Popen(["git", "--git-dir", git_dir, "archive", tag], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", destination], stdin=archive.stdout, check=True)
        if archive.wait() != 0:
            fail("%s: git archive %s failed" % (project, tag))
        return destination, "%s (git, tag %s)" % (path, tag)
    return path, "%s (a folder, taken to be %s)" % (path, tag)


def find_sources(arguments, tags, work):
    base = arguments.sources or os.environ.get("STOWAGE_APPLE_SOURCES")
    given = {"Libc": arguments.libc, "xnu": arguments.xnu, "libpthread": arguments.libpthread,
             "libmalloc": arguments.libmalloc, "libplatform": arguments.libplatform,
             "AvailabilityVersions": arguments.availability_versions}
    folders, notes = {}, []
    for project, path in given.items():
        if path is None and base:
            for name in (project, project + ".git", "apple-oss-distributions+%s/repo" % project):
                if os.path.isdir(os.path.join(base, name)):
                    path = os.path.join(base, name)
                    break
        folders[project], note = extract(project, path, tags[project], work)
        notes.append(note)
    return folders, notes


def strip_libc_private(text):
    """Libc's header install deletes //Begin-Libc ... //End-Libc blocks (strip-header.ed)."""
    return re.sub(r"(?ms)^//Begin-Libc$.*?^//End-Libc$\n?", "", text)


def copy_tree(source, destination, transform=None, skip=()):
    for folder, _, files in os.walk(source):
        relative = os.path.relpath(folder, source)
        for name in files:
            if not name.endswith(".h"):
                continue
            path = os.path.normpath(os.path.join(relative, name))
            if skip(path) if callable(skip) else path in skip:
                continue
            target = os.path.join(destination, path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(os.path.join(folder, name), encoding="latin-1") as file:
                text = file.read()
            with open(target, "w", encoding="latin-1") as file:
                file.write(transform(text) if transform else text)


def apple_sysroot(folders, work):
    """An SDK-like sysroot of Apple's headers, installed as the SDK has them."""
    sysroot = os.path.join(work, "apple")
    include = os.path.join(sysroot, "usr", "include")
    # xnu's user headers: bsd/<folder> is /usr/include/<folder> (sys, machine, i386, arm, ...).
    # The kernel's own parts stay out as in the SDK: KERNEL, PRIVATE ... are not defined here.
    copy_tree(os.path.join(folders["xnu"], "bsd"), include)
    copy_tree(os.path.join(folders["xnu"], "libkern", "libkern"), os.path.join(include, "libkern"))
    copy_tree(os.path.join(folders["xnu"], "osfmk", "mach"), os.path.join(include, "mach"))
    copy_tree(os.path.join(folders["xnu"], "libkern", "os"), os.path.join(include, "os"))
    # Libsyscall's public wrapper header that <unistd.h> includes.
    copy_tree(os.path.join(folders["xnu"], "libsyscall", "wrappers"), include,
              skip=lambda path: path != "gethostuuid.h")
    # Libc's headers; its sys/cdefs.h is not installed (the SDK's is xnu's).
    copy_tree(os.path.join(folders["Libc"], "include"), include, strip_libc_private, skip={"sys/cdefs.h"})
    # libpthread's: <pthread/...> and <sys/_pthread/...> (the pthread types of <sys/_types.h>).
    copy_tree(os.path.join(folders["libpthread"], "include"), include)
    # libmalloc's: <malloc/_malloc.h>, where <stdlib.h> gets malloc, realloc and free.
    copy_tree(os.path.join(folders["libmalloc"], "include"), include)
    # libplatform's: <os/lock.h> (os_unfair_lock), and the other headers it installs.
    copy_tree(os.path.join(folders["libplatform"], "include"), include,
              skip=lambda path: path.startswith("exclavekit/") or "private" in path)
    # AvailabilityVersions: the headers are generated from templates by its `availability` script.
    versions = folders["AvailabilityVersions"]
    generated = os.path.join(work, "availability")
    libexec = os.path.join(generated, "sdk", "usr", "local", "libexec")
    os.makedirs(libexec)
    tool = os.path.join(libexec, "availability.pl")
    # Its build first embeds the version data into the script itself (as xnu's scripts expect).
    result = run([sys.executable, os.path.join(versions, "availability"), "--preprocess",
                  os.path.join(versions, "availability"), tool])
    if result.returncode != 0:
        fail("AvailabilityVersions: preparing its availability script failed: " + result.stderr.strip(), 1)
    os.chmod(tool, 0o755)
    templates = os.path.join(versions, "templates")
    for name in ("Availability.h", "AvailabilityInternal.h", "AvailabilityInternalLegacy.h",
                 "AvailabilityMacros.h", "AvailabilityVersions.h", "os_availability.h"):
        output = os.path.join(include, "os", "availability.h") if name == "os_availability.h" else os.path.join(include, name)
        os.makedirs(os.path.dirname(output), exist_ok=True)
        result = run([sys.executable, tool, "--preprocess", os.path.join(templates, name), output])
        if result.returncode != 0:
            fail("AvailabilityVersions: generating %s failed: %s" % (name, result.stderr.strip()), 1)
    # xnu's two generated headers of <sys/cdefs.h>.
    scripts = os.path.join(folders["xnu"], "bsd", "sys")
    for command in (["bash", os.path.join(scripts, "make_symbol_aliasing.sh"), os.path.join(generated, "sdk"),
                     os.path.join(include, "sys", "_symbol_aliasing.h")],
                    ["bash", os.path.join(scripts, "make_posix_availability.sh"),
                     os.path.join(include, "sys", "_posix_availability.h")]):
        result = run(command)
        if result.returncode != 0:
            fail("xnu: %s failed: %s" % (" ".join(command), result.stderr.strip()), 1)
    with open(os.path.join(sysroot, "SDKSettings.json"), "w") as file:
        file.write(SDK_SETTINGS)
    return sysroot


def standin_sysroot(surface, work, name="standin"):
    sysroot = os.path.join(work, name)
    shutil.copytree(surface, os.path.join(sysroot, "usr", "include"))
    with open(os.path.join(sysroot, "SDKSettings.json"), "w") as file:
        file.write(SDK_SETTINGS)
    return sysroot


# ---------------------------------------------------------------------------------------------
# What the stand-in declares.

def module_headers(surface):
    text = open(os.path.join(surface, "module.modulemap")).read()
    return re.findall(r'^\s*header\s+"([^"]+)"', text, re.M)


def standin_macros(surface):
    """name -> (header, parameter count or None for an object-like macro)."""
    macros = {}
    for folder, _, files in os.walk(surface):
        for name in sorted(files):
            if not name.endswith(".h"):
                continue
            path = os.path.join(folder, name)
            header = os.path.relpath(path, surface)
            for line in open(path):
                match = re.match(r"\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)(\(([^)]*)\))?\s*(.*)", line)
                if not match or not match.group(4).strip() and not match.group(2):
                    continue  # include guards and empty macros
                if match.group(1).startswith("STOWAGE_STANDIN_"):
                    continue  # the stand-in's own helpers, which Apple's headers do not have
                parameters = None if match.group(2) is None else len([p for p in match.group(3).split(",") if p.strip()])
                macros.setdefault(match.group(1), (header, parameters))
    return macros


def header_of(surface, name, kind):
    """The stand-in header declaring `name` (for the report)."""
    patterns = {
        "function": r"[\s*]%s\s*\(",
        "record": r"\b(struct|union)\s+%s\b",
        "typedef": r"\b%s\s*[;,]",
    }
    for pattern in [patterns[kind]] + [other for other in patterns.values() if other != patterns[kind]]:
        pattern = re.compile(pattern % re.escape(name))
        for folder, _, files in sorted(os.walk(surface)):
            for file in sorted(files):
                if file.endswith(".h"):
                    text = re.sub(r"//[^\n]*", "", open(os.path.join(folder, file)).read())
                    if pattern.search(text):
                        return os.path.relpath(os.path.join(folder, file), surface)
    return "?"


# ---------------------------------------------------------------------------------------------
# Parsing with clang.

def clang_flags(sysroot, target):
    return [CLANG, "-target", target, "-isysroot", sysroot, "-fsyntax-only", "-w", "-ferror-limit=0",
            "-Wno-everything"]


def includes(headers):
    return "".join("#include <%s>\n" % header for header in headers)


def nullability(spelled):
    """The nullability of each pointer of a type as written (Swift imports `T *_Nonnull` as a
    non-optional pointer; canonical types drop it, so it is compared on its own)."""
    return " ".join(re.findall(r"_Nonnull|_Nullable_result|_Nullable|_Null_unspecified", spelled)) or "unspecified"


def parse_c(sysroot, target, headers, work):
    """The top-level declarations of the headers, parsed as C: (records, typedefs, functions)."""
    source = os.path.join(work, "declarations.c")
    with open(source, "w") as file:
        file.write(includes(headers))
    result = run(clang_flags(sysroot, target) + ["-Xclang", "-ast-dump=json", source])
    if result.returncode != 0:
        errors = "\n".join(line for line in result.stderr.splitlines() if "error" in line)
        fail("clang could not parse the headers of %s for %s:\n%s" % (sysroot, target, errors), 1)
    tree = json.loads(result.stdout)
    records, typedefs, functions, anonymous = {}, {}, {}, {}
    for node in tree.get("inner", []):
        if node.get("isImplicit"):
            continue
        kind, name = node.get("kind"), node.get("name")
        if kind == "RecordDecl":
            fields = [(field.get("name", ""), nullability(field["type"]["qualType"]))
                      for field in node.get("inner", []) if field.get("kind") == "FieldDecl"]
            record = {"tag": node.get("tagUsed"), "complete": bool(node.get("completeDefinition")),
                      "fields": [field for field, _ in fields], "nullability": dict(fields),
                      "spelled": "%s %s" % (node.get("tagUsed"), name)}
            if not name:
                anonymous[node["id"]] = record
            elif name not in records or record["complete"]:
                records[name] = record
        elif kind == "TypedefDecl" and name:
            typedefs[name] = node["type"]["qualType"]
            # A typedef of a struct that has no tag (Apple's DIR): its fields are compared as a
            # record's, under the typedef's name.
            for inner in node.get("inner", []):
                declared = inner.get("ownedTagDecl") or next(
                    (type.get("decl") for type in inner.get("inner", []) if type.get("kind") == "RecordType"), None)
                if declared and declared.get("id") in anonymous and not declared.get("name"):
                    records[name] = dict(anonymous[declared["id"]], spelled=name)
        elif kind in ("FunctionDecl", "VarDecl") and name:
            functions[name] = {"variadic": bool(node.get("variadic")), "nullability": nullability(node["type"]["qualType"]),
                               "variable": kind == "VarDecl"}
    return records, typedefs, functions


def parse_availability(sysroot, target, headers, platform, work):
    """name -> the availability attributes the compiler applies on `platform` (text AST dump)."""
    source = os.path.join(work, "declarations.c")
    with open(source, "w") as file:
        file.write(includes(headers))
    result = run(clang_flags(sysroot, target) + ["-Xclang", "-ast-dump", "-fno-color-diagnostics", source])
    availability = defaultdict(set)
    current = None
    wanted = {platform, "swift"} | ({"ios"} if platform == "maccatalyst" else set())
    for line in result.stdout.splitlines():
        top = re.match(r"^[|`]-(\w+) 0x[0-9a-f]+ (.*)$", line)
        if top:
            # `-FunctionDecl 0x... <range> col:5 [used|referenced ...] name 'type' [extern ...]`,
            # `-RecordDecl 0x... <range> col:8 struct name definition`
            kind, rest = top.group(1), re.sub(r"^(prev 0x[0-9a-f]+ )?<[^>]*> ", "", top.group(2))
            name = None
            if kind in ("FunctionDecl", "TypedefDecl", "VarDecl"):
                match = re.search(r"(\w+) '", rest)
                name = match.group(1) if match else None
            elif kind == "RecordDecl":
                match = re.search(r"\b(?:struct|union) (\w+)", rest)
                name = match.group(1) if match else None
            current = name
            continue
        if current is None:
            continue
        attribute = re.match(r"^[| ]\s*[|`]-(AvailabilityAttr|UnavailableAttr|DeprecatedAttr|Swift\w*Attr) 0x[0-9a-f]+ <[^>]*>\s*(.*)$", line)
        if attribute:
            kind, text = attribute.group(1), attribute.group(2)
            if kind == "AvailabilityAttr":
                words = text.split()
                implicit = words and words[0] == "Implicit"
                if implicit:
                    words = words[1:]
                if not words or words[0] not in wanted:
                    continue
                # platform introduced deprecated obsoleted [Unavailable] "message" "replacement" priority
                payload = " ".join(words[:4]) + (" unavailable" if "Unavailable" in words else "")
                availability[current].add(("implicit " if implicit else "") + payload)
            else:
                availability[current].add((kind.replace("Attr", "") + " " + text).strip())
    return availability


def probe(sysroot, target, headers, probes, work):
    """Evaluates each probe with clang in C++: (type probes -> canonical type, value probes -> value)."""
    source = os.path.join(work, "probes.cpp")
    lines = [includes(headers),
             "template <int N, class T> struct __stowage_type {};",
             "template <int N, auto V> struct __stowage_value {};",
             "template <class T, class = void> struct __stowage_complete { static constexpr int value = 0; };",
             "template <class T> struct __stowage_complete<T, decltype(void(sizeof(T)))> { static constexpr int value = 1; };"]
    for number, (kind, text) in enumerate(probes):
        if kind == "type":
            lines.append("__stowage_type<%d, %s> *__stowage_probe_%d;" % (number, text, number))
        elif kind == "value":
            lines.append("__stowage_value<%d, (%s)> *__stowage_probe_%d;" % (number, text, number))
        elif kind == "function":  # a function-like macro at one sample argument: (name, sample)
            lines.append("constexpr long long __stowage_function_%d(int __x) { return (long long)(%s(__x)); }" % (number, text[0]))
            lines.append("__stowage_value<%d, __stowage_function_%d(%d)> *__stowage_probe_%d;" % (number, number, text[1], number))
    with open(source, "w") as file:
        file.write("\n".join(lines) + "\n")
    result = run(clang_flags(sysroot, target) + ["-x", "c++", "-std=c++20", "-Xclang", "-ast-dump=json", source])
    answers = {}
    try:
        tree = json.loads(result.stdout)
    except ValueError:
        return answers
    for node in tree.get("inner", []):
        if node.get("kind") != "ClassTemplateDecl" or node.get("name") not in ("__stowage_type", "__stowage_value"):
            continue
        for specialization in node.get("inner", []):
            if specialization.get("kind") != "ClassTemplateSpecializationDecl":
                continue
            arguments = [argument for argument in specialization.get("inner", []) if argument.get("kind") == "TemplateArgument"]
            if len(arguments) != 2 or "value" not in arguments[0]:
                continue
            number = int(arguments[0]["value"])
            if "type" in arguments[1]:
                answers[number] = arguments[1]["type"]["qualType"]
            elif "value" in arguments[1]:
                answers[number] = str(arguments[1]["value"])
    return answers


def expansions(sysroot, target, headers, names, work):
    """Each macro's tokens once fully expanded (for macros that are not constants)."""
    source = os.path.join(work, "expansions.c")
    with open(source, "w") as file:
        file.write(includes(headers))
        for name, parameters in names:
            arguments = "(" + ", ".join("__stowage_argument_%d" % index for index in range(parameters)) + ")" if parameters is not None else ""
            file.write("__stowage_macro %s = %s%s ;\n" % (name, name, arguments))
    result = run([CLANG, "-target", target, "-isysroot", sysroot, "-E", "-P", "-w", source])
    found = {}
    for match in re.finditer(r"__stowage_macro\s+(\w+)\s*=(.*?);\s*$", result.stdout, re.M | re.S):
        tokens = re.findall(r"[A-Za-z_][A-Za-z0-9_]*|0[xX][0-9a-fA-F]+[uUlL]*|[0-9]+[uUlL]*|->|<<|>>|[^\sA-Za-z0-9_]", match.group(2))
        found[match.group(1)] = " ".join(tokens)
    return found


# ---------------------------------------------------------------------------------------------
# The comparison.

def describe(standin, apple):
    return "stand-in: %s; Apple: %s" % (standin, apple)


def compare_target(standin_root, apple_root, target, platform, headers, macros, builtin_names, work):
    """[(kind, name, what is wrong)] for one target, and the number of comparisons made."""
    differences = []
    compared = defaultdict(int)
    s_records, s_typedefs, s_functions = parse_c(standin_root, target, headers, work)
    a_records, a_typedefs, a_functions = parse_c(apple_root, target, headers, work)
    b_records, b_typedefs, b_functions = builtin_names
    s_records = {k: v for k, v in s_records.items() if k not in b_records}
    s_typedefs = {k: v for k, v in s_typedefs.items() if k not in b_typedefs}
    s_functions = {k: v for k, v in s_functions.items() if k not in b_functions}

    probes = []  # (kind, text), asked of both sides

    def ask(kind, text):
        probes.append((kind, text))
        return len(probes) - 1

    checks = []  # (kind, name, label, probe number)

    for name, record in sorted(s_records.items()):
        compared["records"] += 1
        apple = a_records.get(name)
        if apple is None:
            differences.append(("record", name, "%s is not declared by Apple's headers" % record["spelled"]))
            continue
        if record["tag"] != apple["tag"]:
            differences.append(("record", name, "%s, Apple's is a %s" % (record["tag"], apple["tag"])))
            continue
        if record["complete"] != apple["complete"]:
            differences.append(("record", name, "%s is %s, Apple's is %s" % (
                record["spelled"], "complete" if record["complete"] else "opaque (incomplete)",
                "complete" if apple["complete"] else "opaque (incomplete)")))
            continue
        if not record["complete"]:
            continue
        spelled = record["spelled"]
        if record["fields"] != apple["fields"]:
            missing = [field for field in apple["fields"] if field not in record["fields"]]
            extra = [field for field in record["fields"] if field not in apple["fields"]]
            if missing or extra:
                differences.append(("record", name, "fields: %s" % "; ".join(
                    ([("Apple's %s missing" % ", ".join(missing))] if missing else []) +
                    ([("%s not in Apple's" % ", ".join(extra))] if extra else []))))
            else:
                first = next(index for index, (ours, theirs) in enumerate(zip(record["fields"], apple["fields"])) if ours != theirs)
                differences.append(("record", name, "fields in another order from field %d (%s)" % (first + 1, describe(
                    ", ".join(record["fields"][first:first + 3]) + " ...", ", ".join(apple["fields"][first:first + 3]) + " ..."))))
        for field in record["fields"]:
            if field in apple["fields"] and record["nullability"][field] != apple["nullability"][field]:
                differences.append(("record", name, "field %s: nullability: %s" % (field, describe(
                    record["nullability"][field], apple["nullability"][field]))))
            if field in apple["fields"] and field:
                compared["fields"] += 1
                checks.append(("record", name, "field %s: type" % field,
                               ask("type", "decltype(((%s *)0)->%s)" % (spelled, field))))
                checks.append(("record", name, "field %s: offset" % field,
                               ask("value", "__builtin_offsetof(%s, %s)" % (spelled, field))))
        checks.append(("record", name, "size", ask("value", "sizeof(%s)" % spelled)))
        checks.append(("record", name, "alignment", ask("value", "alignof(%s)" % spelled)))

    for name in sorted(s_typedefs):
        compared["typedefs"] += 1
        if name not in a_typedefs:
            differences.append(("typedef", name, "typedef %s is not declared by Apple's headers" % name))
            continue
        checks.append(("typedef", name, "complete (1) or opaque (0)", ask("value", "__stowage_complete<%s>::value" % name)))
        checks.append(("typedef", name, "type", ask("type", name)))

    for name, function in sorted(s_functions.items()):
        compared["functions"] += 1
        if name not in a_functions:
            differences.append(("function", name, "%s is not declared by Apple's headers" % name))
            continue
        checks.append(("function", name, "type", ask("type", "decltype(%s)" % name)))
        if function["nullability"] != a_functions[name]["nullability"]:
            differences.append(("function", name, "nullability of its pointers: %s" % describe(
                function["nullability"], a_functions[name]["nullability"])))
        if function["variable"] != a_functions[name]["variable"]:
            differences.append(("function", name, "a %s, Apple's is a %s" % tuple(
                "variable" if entry["variable"] else "function" for entry in (function, a_functions[name]))))
        if function["variadic"] != a_functions[name]["variadic"]:
            differences.append(("function", name, "variadic: %s" % describe(function["variadic"], a_functions[name]["variadic"])))

    not_constant = []
    for name, (header, parameters) in sorted(macros.items()):
        compared["macros"] += 1
        if parameters is None:
            checks.append(("macro", name, "value", ask("value", name)))
            checks.append(("macro", name, "type", ask("type", "decltype(%s)" % name)))
        elif parameters == 1:
            for sample in SAMPLES:
                checks.append(("macro", name, "value of %s(%#x)" % (name, sample),
                               ask("function", (name, sample))))
        else:
            not_constant.append((name, parameters))

    s_answers = probe(standin_root, target, headers, probes, work)
    a_answers = probe(apple_root, target, headers, probes, work)
    unanswered_macros = set()
    reported = set()
    for kind, name, label, number in checks:
        standin, apple = s_answers.get(number), a_answers.get(number)
        if kind == "macro" and standin is None:
            unanswered_macros.add(name)  # not a constant in the stand-in: compared by expansion
            continue
        if (kind, name, label) in reported:
            continue
        if standin is None:
            reported.add((kind, name, label))
            differences.append((kind, name, "%s: clang could not evaluate it in the stand-in" % label))
            continue
        if standin != apple:
            reported.add((kind, name, label))
            if apple is None:
                apple = "not defined, or not the same kind of thing"
            if label.startswith("complete") and apple in ("0", "1"):
                differences.append((kind, name, "%s is %s, Apple's is %s" % (name, *[
                    "complete" if answer == "1" else "opaque (incomplete)" for answer in (standin, apple)])))
            else:
                differences.append((kind, name, "%s: %s" % (label, describe(standin, apple))))
    for name in sorted(unanswered_macros):
        not_constant.append((name, macros[name][1]))
    if not_constant:
        s_tokens = expansions(standin_root, target, headers, not_constant, work)
        a_tokens = expansions(apple_root, target, headers, not_constant, work)
        for name, _ in not_constant:
            if s_tokens.get(name) != a_tokens.get(name):
                differences.append(("macro", name, "expansion: %s" % describe(s_tokens.get(name), a_tokens.get(name))))

    s_availability = parse_availability(standin_root, target, headers, platform, work)
    a_availability = parse_availability(apple_root, target, headers, platform, work)
    for name in sorted(set(s_functions) | set(s_typedefs) | set(s_records)):
        standin, apple = s_availability.get(name, set()), a_availability.get(name, set())
        compared["availabilities"] += 1
        if standin != apple:
            differences.append(("availability", name, "on %s: %s" % (platform, describe(
                "; ".join(sorted(standin)) or "none", "; ".join(sorted(apple)) or "none"))))
    return differences, compared


def builtin_declarations(sysroot, target, work):
    """What <stddef.h> and <stdint.h> (the compiler's own) declare: not the stand-in's."""
    return parse_c(sysroot, target, ["stddef.h", "stdint.h"], work)


def verify(surface, apple_root, work, targets, quiet=False):
    headers = module_headers(surface)
    macros = standin_macros(surface)
    standin_root = standin_sysroot(surface, work, "standin-%d" % len(os.listdir(work)))
    by_difference = defaultdict(list)
    totals = defaultdict(int)
    for name, target, platform in targets:
        scratch = tempfile.mkdtemp(dir=work)
        builtins = builtin_declarations(standin_root, target, scratch)
        differences, compared = compare_target(standin_root, apple_root, target, platform, headers, macros, builtins, scratch)
        for key, count in compared.items():
            totals[key] = max(totals[key], count)
        for difference in differences:
            by_difference[difference].append(name)
        if not quiet:
            print("verify-surface: %s (%s): %d difference%s" % (name, target, len(differences), "" if len(differences) == 1 else "s"))
    return by_difference, totals


def report(surface, by_difference, totals, targets):
    kinds = {"record": "record", "typedef": "typedef", "function": "function", "availability": "function"}
    lines = []
    for (kind, name, what), where in sorted(by_difference.items()):
        if kind == "macro":
            header = standin_macros(surface).get(name, ("?",))[0]
        else:
            header = header_of(surface, name, kinds[kind])
        scope = "all targets" if len(where) == len(targets) else ", ".join(where)
        lines.append("  %s: %s %s: %s [%s]" % (header, kind, name, what, scope))
    summary = ("%d records (%d fields), %d typedefs, %d functions, %d macros, and the availability of %d of them; "
               "on %d targets" % (totals["records"], totals["fields"], totals["typedefs"], totals["functions"],
                                   totals["macros"], totals["availabilities"], len(targets)))
    return lines, summary


# ---------------------------------------------------------------------------------------------
# The self-test: known mistakes planted in a copy of the stand-in must each be reported, and a
# spelling that only goes through other typedefs must not.

MISTAKES = [
    # header, pattern, replacement, (kind, name) that must be reported
    ("dirent.h", r"(?s)typedef\s+struct\s*(\w+\s*)?(\{.*?\}\s*)?DIR\s*;", "typedef struct __stowage_opaque_dir DIR;",
     ("typedef", "DIR"), "an opaque DIR"),
    ("sys/stat.h", r"(?m)^(\s*)dev_t st_dev;\n(\s*)mode_t st_mode;", r"\1mode_t st_mode;\n\2dev_t st_dev;",
     ("record", "stat"), "two fields of struct stat swapped"),
    ("dirent.h", r"(?m)^(\s*)long(\s+__dd_loc;)", r"\1int\2",
     ("record", "DIR"), "int for long in DIR's __dd_loc"),
    ("sys/ioctl.h", r"(?s)struct winsize \{.*?\};", "struct winsize;",
     ("record", "winsize"), "an opaque struct winsize"),
    ("sys/wait.h", r"(?m)^(#define WEXITSTATUS\(x\)\s+\(\(\(x\) >> )8", r"\g<1>7",
     ("macro", "WEXITSTATUS"), "WEXITSTATUS reading the wrong bits"),
    ("sys/errno.h", r"(?m)^extern int \*__error\(void\);",
     "extern int *__error(void) __attribute__((availability(ios, introduced=99.0)));",
     ("availability", "__error"), "an availability on __error, declared extern"),
    ("sys/fcntl.h", r"(?m)^#define O_CREAT\s+\S+", "#define O_CREAT     0x00000400",
     ("macro", "O_CREAT"), "a wrong O_CREAT"),
    ("unistd.h", r"(?m)^int ftruncate\(int, off_t\);", "int ftruncate(int, long);",
     ("function", "ftruncate"), "long for off_t (long long) in ftruncate"),
    ("sys/mount.h", r"(?m)^(\s*)uint32_t f_fssubtype;\n", "",
     ("record", "statfs"), "a field of struct statfs left out"),
    ("dirent.h", r"(fdopendir\(int\)[^;]*?availability\(ios, introduced=)8\.0", r"\g<1>9.0",
     ("availability", "fdopendir"), "a wrong availability of fdopendir"),
]
HARMLESS = ("unistd.h", r"(?m)^int fsync\(int\);", "int fsync(__int32_t);", ("function", "fsync"),
            "fsync's int spelled __int32_t")


def self_test(surface, apple_root, work, targets):
    """Each mistake is planted alone in a fresh copy of the stand-in and must be reported; the
    harmless spelling must change nothing."""
    baseline, _ = verify(surface, apple_root, work, targets, quiet=True)
    failures = 0
    for number, (header, pattern, replacement, (kind, name), label) in enumerate(MISTAKES + [HARMLESS]):
        copy = os.path.join(work, "self-test-%d" % number)
        shutil.copytree(surface, copy)
        path = os.path.join(copy, header)
        changed, count = re.subn(pattern, replacement, open(path).read(), count=1)
        if count != 1:
            print("verify-surface: self-test FAILED: cannot plant %s: its pattern is no longer in %s; "
                  "update the self-test" % (label, header))
            failures += 1
            continue
        with open(path, "w") as file:
            file.write(changed)
        planted, _ = verify(copy, apple_root, work, targets, quiet=True)
        new = [(k, n, what) for (k, n, what) in planted if (k, n, what) not in baseline]
        if (header, pattern) == HARMLESS[:2]:
            if new:
                print("verify-surface: self-test FAILED: a spelling through typedefs was reported: %s (%s %s: %s)"
                      % ((label,) + new[0]))
                failures += 1
            else:
                print("verify-surface: self-test: not reported, as it must not be: %s" % label)
            continue
        found = [what for (k, n, what) in new if k == kind and n == name]
        if found:
            print("verify-surface: self-test: reported as it must be: %s (%s %s: %s)" % (label, kind, name, found[0]))
        else:
            print("verify-surface: self-test FAILED: not reported: %s" % label)
            failures += 1
    return failures


def main():
    global CLANG
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__.split("\n", 2)[2],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sources", help="a folder holding all of them, each under its project's name (or STOWAGE_APPLE_SOURCES)")
    parser.add_argument("--libc", help="Apple's Libc: a git directory or a folder at the tag")
    parser.add_argument("--xnu", help="Apple's xnu: a git directory or a folder at the tag")
    parser.add_argument("--libpthread", help="Apple's libpthread: a git directory or a folder at the tag")
    parser.add_argument("--libmalloc", help="Apple's libmalloc: a git directory or a folder at the tag")
    parser.add_argument("--libplatform", help="Apple's libplatform: a git directory or a folder at the tag")
    parser.add_argument("--availability-versions", help="Apple's AvailabilityVersions: a git directory or a folder at the tag")
    parser.add_argument("--surface", default=SURFACE, help="the stand-in's include folder (default: %(default)s)")
    parser.add_argument("--target", action="append", help="only these targets (names or triples; default: all)")
    parser.add_argument("--self-test", action="store_true", help="also plant known mistakes and fail unless each is reported")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (the two sysroots) and print its path")
    arguments = parser.parse_args()
    CLANG = clang_path()
    targets = TARGETS
    if arguments.target:
        targets = [t for t in TARGETS if t[0] in arguments.target or t[1] in arguments.target]
        if not targets:
            fail("unknown target; known: " + ", ".join(t[0] for t in TARGETS))
    surface = os.path.abspath(arguments.surface)
    tags = standin_tags(surface)
    work = tempfile.mkdtemp(prefix="verify-surface.")
    try:
        folders, notes = find_sources(arguments, tags, work)
        for note in notes:
            print("verify-surface: Apple's sources: " + note)
        apple_root = apple_sysroot(folders, work)
        by_difference, totals = verify(surface, apple_root, work, targets)
        lines, summary = report(surface, by_difference, totals, targets)
        print("verify-surface: compared %s" % summary)
        for line in lines:
            print(line)
        print("verify-surface: %d difference%s" % (len(lines), "" if len(lines) == 1 else "s"))
        status = 1 if lines else 0
        if arguments.self_test:
            if self_test(surface, apple_root, work, [t for t in TARGETS if t[0] == "iOS"]) != 0:
                status = 1
            else:
                print("verify-surface: self-test passed")
        return status
    finally:
        if arguments.keep:
            print("verify-surface: work folder kept: " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)


CLANG = None
if __name__ == "__main__":
    sys.exit(main())
