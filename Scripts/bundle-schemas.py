#!/usr/bin/env python3
"""Makes every command's JSON Schema in Schemas/ self-contained.

Schemas/definitions.json holds the definitions several commands share, once. Each command's
schema names them as "#/$defs/<name>", and this script copies into its "$defs" exactly the
definitions it uses (and those they use), taken from definitions.json, so that a plain validator
needs no registry:

    jsonschema.validate(instance, json.load(open("Schemas/sweep.json")))

It also gives every schema its "$id", https://stowage.invalid/schemas/<file>: an identifier in
the reserved .invalid domain (RFC 6761), never a URL to fetch.

    Scripts/bundle-schemas.py          # rewrite the schemas
    Scripts/bundle-schemas.py --check  # exit 1, naming them, if any schema is not bundled

StowageCLITests (JSONSchemaCommandTests) checks the same: edit definitions.json, then run this.
"""
import json
import pathlib
import sys

FOLDER = pathlib.Path(__file__).resolve().parent.parent / "Schemas"
SHARED = "definitions.json"
BASE = "https://stowage.invalid/schemas/"
PREFIX = "#/$defs/"


def references(node):
    """The definition names `node` refers to with "#/$defs/<name>"."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                if not value.startswith(PREFIX):
                    sys.exit(f"bundle-schemas: {value}: only {PREFIX}<name> references are bundled")
                yield value[len(PREFIX):]
            elif key != "$defs":
                yield from references(value)
    elif isinstance(node, list):
        for value in node:
            yield from references(value)


def bundled(name, schema, shared):
    """`schema` with its $id, and with $defs holding the closure of what it refers to."""
    result = {key: value for key, value in schema.items() if key != "$defs"}
    result["$id"] = BASE + name
    if name == SHARED:
        result["$defs"] = shared
    else:
        needed, pending = set(), list(references(result))
        while pending:
            definition = pending.pop()
            if definition not in shared:
                sys.exit(f"bundle-schemas: {name}: no definition {definition} in {SHARED}")
            if definition not in needed:
                needed.add(definition)
                pending.extend(references(shared[definition]))
        if needed:
            result["$defs"] = {key: value for key, value in shared.items() if key in needed}
    ordered = {key: result[key] for key in ("$schema", "$id") if key in result}
    ordered.update({key: value for key, value in result.items() if key not in ordered})
    return ordered


def main():
    check = sys.argv[1:] == ["--check"]
    shared = json.loads((FOLDER / SHARED).read_text())["$defs"]
    stale = []
    for path in sorted(FOLDER.glob("*.json")):
        text = json.dumps(bundled(path.name, json.loads(path.read_text()), shared), indent=2, ensure_ascii=False) + "\n"
        if path.read_text() != text:
            stale.append(path.name)
            if not check:
                path.write_text(text)
    if check and stale:
        sys.exit("bundle-schemas: not bundled (run Scripts/bundle-schemas.py): " + ", ".join(stale))


if __name__ == "__main__":
    main()
