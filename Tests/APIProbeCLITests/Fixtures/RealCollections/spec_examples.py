#!/usr/bin/env python3
"""The examples an OpenAPI description carries for its JSON responses, judged by PyPI's `jsonschema`.

Usage: spec_examples.py SPEC  (SPEC in JSON, or YAML when PyYAML is installed)

For each operation, each response status (a number: `default` and `2XX` are skipped) and each JSON example of it
(`example`, or each of `examples`, following `$ref`s into `components/examples`), prints the request that reaches
the operation (the first server's base path and the template, each path parameter replaced by its example, default
or first enum value, else `1` for an integer and `x` otherwise) and the JSON Pointers where the example breaks the
response's schema, by `oracle.py`'s rules (`violations`). RealCollectionTests writes each as a fixture and compares
`apiprobe openapi check` with this: {"examples": [{"pointer", "method", "path", "status", "body" (its JSON text), "violations"}]}.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (beside this file)


def resolve(spec, node):
    seen = set()
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/"):
        if node["$ref"] in seen:
            return None
        seen.add(node["$ref"])
        target = spec
        for token in node["$ref"][2:].split("/"):
            token = token.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or token not in target:
                return None
            target = target[token]
        node = target
    return node


def parameter_value(spec, parameter):
    parameter = resolve(spec, parameter) or {}
    schema = resolve(spec, parameter.get("schema") or {}) or {}
    for value in (parameter.get("example"), schema.get("example"), schema.get("default")):
        if value is not None:
            return str(value)
    if schema.get("enum"):
        return str(schema["enum"][0])
    return "1" if schema.get("type") in ("integer", "number") else "x"


def main():
    spec = oracle.load(sys.argv[1])
    version = str(spec.get("openapi", "3.0"))
    document = spec if version.startswith("3.1") else oracle.nullable_to_types(spec)
    base = oracle.server_base(spec)
    examples = []
    for template, item in (spec.get("paths") or {}).items():
        item = resolve(spec, item) or {}
        for method in ("get", "put", "post", "delete", "patch", "head", "options", "trace"):
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            parameters = {}
            for parameter in (item.get("parameters") or []) + (operation.get("parameters") or []):
                parameter = resolve(spec, parameter) or {}
                if parameter.get("in") == "path":
                    parameters[parameter.get("name")] = parameter_value(spec, parameter)
            path = template
            for name, value in parameters.items():
                path = path.replace("{%s}" % name, value)
            for status, response in (operation.get("responses") or {}).items():
                if not str(status).isdigit():
                    continue
                response = resolve(spec, response) or {}
                pointer = "/paths/%s/%s/responses/%s" % (
                    template.replace("~", "~0").replace("/", "~1"), method, status)
                for media, content in (response.get("content") or {}).items():
                    if not media.split(";")[0].strip().endswith("json"):
                        continue
                    found = []
                    if "example" in content:
                        found.append((pointer + "/content/" + media.replace("/", "~1") + "/example", content["example"]))
                    for name, example in (content.get("examples") or {}).items():
                        example = resolve(spec, example) or {}
                        if "value" in example:
                            found.append((
                                pointer + "/content/" + media.replace("/", "~1") + "/examples/" + name + "/value",
                                example["value"]))
                    # The schema as the oracle reads it: from the document with 3.0's `nullable` made a type.
                    judged = resolve(document, resolve(document, document["paths"][template])[method]["responses"][status])
                    schema = None
                    for judged_media, judged_content in ((judged or {}).get("content") or {}).items():
                        if judged_media == media:
                            schema = judged_content.get("schema")
                    for where, body in found:
                        examples.append({
                            "pointer": where, "method": method.upper(), "path": base + path, "status": int(status),
                            "body": json.dumps(body),
                            "violations": oracle.violations(document, schema, body, version) if schema is not None else [],
                        })
                    break
    json.dump({"examples": examples}, sys.stdout)


main()
