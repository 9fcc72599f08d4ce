"""Parsing and comparing with clang, for verify-surface.py: what the stand-in and Apple's headers
declare for one target, and where they differ."""

import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict

# Sample arguments for function-like macros: wait statuses (exit 0x12, killed by 9, stopped)
# and file modes (a folder, a regular file, a link).
SAMPLES = [0, 0x7F, 0x1200, 0x0009, 0x137F, 0o040755, 0o100644, 0o120777]


def fail(message, status=64):
    print("verify-surface: " + message, file=sys.stderr)
    sys.exit(status)


def run(command, **keywords):
    return subprocess.run(command, check=False, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **keywords)


_clang = None


def clang():
    """The clang of the Swift toolchain on PATH, found once."""
    global _clang
    if _clang is None:
        _clang = clang_path()
    return _clang


def clang_path():
    swiftc = shutil.which("swiftc")
    if swiftc is None:
        fail("swiftc is not on PATH (the script uses the clang next to it)")
    path = os.path.join(os.path.dirname(os.path.realpath(swiftc)), "clang")
    if not os.access(path, os.X_OK):
        fail("no clang next to swiftc: " + path)
    return path


# ---------------------------------------------------------------------------------------------
# Parsing with clang.

def clang_flags(sysroot, target):
    return [clang(), "-target", target, "-isysroot", sysroot, "-fsyntax-only", "-w", "-ferror-limit=0",
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
            # The name on the left is part of one identifier, so the preprocessor leaves it alone
            # (written alone, an object-like macro's name would be expanded there too).
            file.write("__stowage_macro_%s = %s%s ;\n" % (name, name, arguments))
    result = run([clang(), "-target", target, "-isysroot", sysroot, "-E", "-P", "-w", source])
    found = {}
    for match in re.finditer(r"__stowage_macro_(\w+)\s*=(.*?);\s*$", result.stdout, re.M | re.S):
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
            if s_tokens.get(name) is None:
                differences.append(("macro", name, "expansion: clang could not expand it in the stand-in"))
            elif s_tokens.get(name) != a_tokens.get(name):
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

