"""Validates JSON documents against an apiprobe snapshot with PyPI's `jsonschema` (Draft 2020-12), following its
`$ref`s into the files beside it (`components.json#/$defs/NAME`) through `referencing`: an oracle for the
snapshot format that apiprobe does not write itself.

    python3 validate_snapshot.py SNAPSHOT DOCUMENT...

Prints, per document, `DOCUMENT: valid` or `DOCUMENT: invalid at POINTER` (the first error's JSON Pointer into the
document). Exits 2 when a file cannot be read or the snapshot is no valid 2020-12 schema.
"""
import json
import pathlib
import sys

import jsonschema
import referencing
import referencing.jsonschema


def main():
    snapshot_path = pathlib.Path(sys.argv[1]).resolve()
    folder = snapshot_path.parent
    schema = json.loads(snapshot_path.read_text())

    def retrieve(uri):
        name = uri.removeprefix(folder.as_uri() + "/")
        if "/" in name:
            raise referencing.exceptions.NoSuchResource(ref=uri)
        contents = json.loads((folder / name).read_text())
        return referencing.Resource.from_contents(contents, default_specification=referencing.jsonschema.DRAFT202012)

    registry = referencing.Registry(retrieve=retrieve)
    schema = dict(schema, **{"$id": snapshot_path.as_uri()})
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema, registry=registry)
    for path in sys.argv[2:]:
        document = json.loads(pathlib.Path(path).read_text())
        errors = sorted(validator.iter_errors(document), key=lambda error: list(error.absolute_path))
        if errors:
            pointer = "".join("/" + str(step) for step in errors[0].absolute_path)
            print(f"{path}: invalid at {pointer}")
        else:
            print(f"{path}: valid")


main()
