#!/usr/bin/python3
"""Validates taskmap's JSON documents against docs/schema/taskmap-output.schema.json.

Usage: validate_json.py SCHEMA NAME FILE...
Each FILE must be valid against the schema's $defs/NAME and against the whole schema; the
schema itself must be a valid draft 2020-12 schema. Prints one line per invalid document
(its file, the failing location and the reason) and exits 1 when any is invalid.
Needs python3-jsonschema (Debian; scripts/setup.sh installs it).
"""
import json
import sys

import jsonschema


def root_cause(errors):
    """The most telling error: the deepest one that is not a consequence of another
    (a property a failing subschema left unevaluated), looking inside anyOf/oneOf."""
    flat = []
    stack = list(errors)
    while stack:
        e = stack.pop()
        flat.append(e)
        stack.extend(e.context)
    causes = [e for e in flat if e.validator not in ("unevaluatedProperties", "anyOf", "oneOf", "allOf", "$ref")]
    pool = causes or flat
    return max(pool, key=lambda e: len(e.absolute_path)) if pool else None


def main():
    schema_path, name, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    if name not in schema["$defs"]:
        print(f"{schema_path}: no $defs/{name}")
        return 2
    whole = jsonschema.Draft202012Validator(schema)
    one = jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": f"#/$defs/{name}"})
    status = 0
    for path in files:
        with open(path) as f:
            document = json.load(f)
        error = root_cause(one.iter_errors(document))
        if error is not None:
            location = "/".join(str(p) for p in error.absolute_path) or "(top)"
            print(f"{path}: not a valid {name} document at {location}: {error.message[:300]}")
            status = 1
        if not whole.is_valid(document):
            print(f"{path}: valid under none of the schema's documents")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
