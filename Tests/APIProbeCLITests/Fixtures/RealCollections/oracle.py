#!/usr/bin/env python3
"""An independent oracle for the real-collection tests (RealCollectionTests.swift).

Reads a Postman collection (v2.1) with its environment and the vendor's OpenAPI description, and for every saved
example response: builds the URL Postman sends (from the structured URL, enabled query items only; an empty or
undefined variable in the path becomes the placeholder {name}), finds the operation by method and path (with or
without the first server's base path), and validates the JSON body against the response's schema with PyPI's
`jsonschema` (Draft 4 semantics plus `nullable` for OpenAPI 3.0, Draft 2020-12 for 3.1). Written from the
Postman and OpenAPI documentation, not from apiprobe's code.

Usage: oracle.py COLLECTION SPEC [ENVIRONMENT]  (SPEC in JSON, or YAML when PyYAML is installed)
Prints {"examples": [{"pointer", "name", "method", "path", "query", "template", "status", "statusDeclared", "json",
"violations", "requestViolations"}]}: `template` is the matched OpenAPI path template or null; `violations` are JSON
Pointers into the response body, `requestViolations` into the request body under `/body` (the missing or extra
property appended for `required` and `additionalProperties`; `P/*` where no branch of a `oneOf` or `anyOf` at P
fits). Formats are checked where jsonschema has a checker.
"""
import copy
import http
import json
import re
import sys
import urllib.parse

import jsonschema


def load(path):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if path.endswith((".yaml", ".yml")):
        import yaml

        return yaml.safe_load(text)
    return json.loads(text)


VARIABLE = re.compile(r"\{\{\s*([^{}]+?)\s*\}\}")


def substitute(text, values):
    return VARIABLE.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def path_segment(segment, values, path_variables):
    if segment.startswith(":") and len(segment) > 1:
        name = segment[1:]
        value = values.get(":" + name, substitute(path_variables.get(name, ""), values))
        return value if value else "{%s}" % name

    def one(match):
        name = match.group(1)
        value = values.get(name)
        return value if value else "{%s}" % name.lstrip("$")

    return VARIABLE.sub(one, segment)


def postman_url(url, values):
    """The URL Postman sends, as (path, [(key, value)]) with the base URL's own path included."""
    if isinstance(url, str):
        url = {"raw": url}
    path_variables = {v["key"]: v.get("value") or "" for v in url.get("variable", []) if not v.get("disabled")}
    if "host" in url or "path" in url:
        host = url.get("host", [])
        host = ".".join(host) if isinstance(host, list) else host
        base = substitute(host, values)
        path = url.get("path", [])
        segments = path if isinstance(path, list) else path.strip("/").split("/")
        query = [(q["key"], q.get("value")) for q in url.get("query", []) if not q.get("disabled")]
    else:
        raw = url.get("raw", "").split("#")[0]
        raw, _, query_text = raw.partition("?")
        scheme, sep, rest = raw.partition("://")
        head = rest if sep else raw
        host, slash, tail = head.partition("/")
        base = substitute((scheme + sep if sep else "") + host, values)
        segments = tail.split("/") if slash else []
        query = [tuple(item.split("=", 1)) if "=" in item else (item, None) for item in query_text.split("&") if item]
    base_path = urllib.parse.urlsplit(base if "://" in base else "https://" + base).path.rstrip("/")
    path = base_path + "".join("/" + path_segment(s, values, path_variables) for s in segments)
    query = [(substitute(k, values), None if v is None else substitute(v, values)) for k, v in query]
    return path or "/", query


def server_base(spec):
    servers = spec.get("servers") or [{"url": "/"}]
    url = servers[0]["url"]
    for name, variable in (servers[0].get("variables") or {}).items():
        url = url.replace("{%s}" % name, str(variable.get("default", "")))
    return urllib.parse.urlsplit(url).path.rstrip("/")


def match_operation(spec, method, path):
    base = server_base(spec)
    candidates = [path]
    if base and (path == base or path.startswith(base + "/")):
        candidates.append(path[len(base):] or "/")
    best = None
    for candidate in candidates:
        parts = [urllib.parse.unquote(p) for p in candidate.strip("/").split("/") if p]
        for template, item in (spec.get("paths") or {}).items():
            operation = item.get(method.lower())
            if operation is None:
                continue
            pattern = [p for p in template.strip("/").split("/") if p]
            if len(pattern) != len(parts):
                continue
            literals = 0
            for expected, actual in zip(pattern, parts):
                if "{" in expected:
                    regex = "^" + re.sub(r"\\\{[^}]*\\\}", ".+", re.escape(expected)) + "$"
                    if not re.match(regex, actual):
                        break
                elif expected != actual:
                    break
                else:
                    literals += 1
            else:
                if best is None or literals > best[0]:
                    best = (literals, template, operation)
        if best:
            break
    return (best[1], best[2]) if best else (None, None)


def nullable_to_types(node):
    """OpenAPI 3.0 `nullable: true` as JSON Schema's null type, everywhere in a document."""
    if isinstance(node, dict):
        node = {k: nullable_to_types(v) for k, v in node.items()}
        if node.get("nullable") is True:
            if "type" in node:
                types = node["type"] if isinstance(node["type"], list) else [node["type"]]
                node["type"] = types + ["null"]
            elif "$ref" not in node:
                pass
            else:
                node = {"anyOf": [{"$ref": node.pop("$ref")}, {"type": "null"}], **node}
        return node
    if isinstance(node, list):
        return [nullable_to_types(v) for v in node]
    return node


def response_schema(operation, status):
    responses = operation.get("responses") or {}
    response = responses.get(str(status)) or responses.get("%dXX" % (status // 100)) or responses.get("default")
    declared = str(status) in responses or ("%dXX" % (status // 100)) in responses or "default" in responses
    if not response:
        return None, declared
    content = response.get("content") or {}
    for media, body in content.items():
        if media.split(";")[0].strip().endswith("json") and "schema" in body:
            return body["schema"], declared
    return None, declared


def pointer_of(path):
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def violations(document, schema, body, version):
    root = copy.copy(document)
    root.update({"$ref": "#/x-oracle-schema", "x-oracle-schema": schema})
    if version.startswith("3.1"):
        root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        kind = jsonschema.Draft202012Validator
    else:
        kind = jsonschema.Draft4Validator
    # Formats are checked where jsonschema has a checker for them (date-time needs rfc3339-validator).
    validator = kind(root, format_checker=kind.FORMAT_CHECKER)
    found = set()
    for error in validator.iter_errors(body):
        base = pointer_of(error.absolute_path)
        if error.validator in ("oneOf", "anyOf"):
            # No branch fits: a checker that joins the branches finds the problem somewhere below.
            found.add(base + "/*")
        if error.validator == "required":
            missing = re.match(r"'(.*)' is a required property", error.message)
            found.add(base + "/" + (missing.group(1) if missing else "?"))
        elif error.validator == "additionalProperties":
            for extra in re.findall(r"'([^']*)'", error.message.split("(")[-1]):
                found.add(base + "/" + extra)
        else:
            found.add(base)
    return sorted(found)


def main():
    collection = load(sys.argv[1])
    collection = collection.get("collection", collection)
    spec = load(sys.argv[2])
    version = str(spec.get("openapi", "3.0"))
    document = spec if version.startswith("3.1") else nullable_to_types(spec)
    values = {v["key"]: v.get("value") or "" for v in collection.get("variable", []) if not v.get("disabled")}
    if len(sys.argv) > 3:
        environment = load(sys.argv[3])
        values.update({v["key"]: v.get("value") or "" for v in environment.get("values", []) if v.get("enabled", True)})
    examples = []

    def walk(items, pointer):
        for index, item in enumerate(items):
            here = "%s/%d" % (pointer, index)
            if "item" in item:
                walk(item["item"], here + "/item")
                continue
            for offset, response in enumerate(item.get("response") or []):
                request = response.get("originalRequest") or item["request"]
                url = request if isinstance(request, str) else request.get("url", "")
                empty = (isinstance(url, str) and not url.strip()) or (
                    isinstance(url, dict) and "host" not in url and "path" not in url and not url.get("raw", "").strip()
                )
                if empty:
                    request = item["request"]
                    url = request if isinstance(request, str) else request.get("url", "")
                method = "GET" if isinstance(request, str) else request.get("method", "GET")
                path, query = postman_url(url, values)
                template, operation = match_operation(spec, method, path)
                status = response.get("code")
                if status is None:
                    # Postman's schema lets an example omit its code; its status text (or its name) may be the
                    # reason phrase. Python's own table of phrases, else 200 (what a saved example usually is).
                    phrases = {s.phrase.lower(): s.value for s in http.HTTPStatus}
                    texts = [response.get("status"), response.get("name")]
                    status = next((phrases[t.strip().lower()] for t in texts if isinstance(t, str) and t.strip().lower() in phrases), 200)
                text = response.get("body") or ""
                example = {
                    "pointer": "%s/response/%d" % (here, offset), "name": item.get("name"), "method": method,
                    "path": path, "query": [[k, v] for k, v in query], "template": template, "status": status,
                    "statusDeclared": None, "json": False, "violations": [],
                }
                try:
                    body = json.loads(text)
                    example["json"] = bool(text.strip())
                except ValueError:
                    body = None
                example["requestViolations"] = []
                if operation is not None and isinstance(status, int):
                    schema, declared = response_schema(operation, status)
                    example["statusDeclared"] = declared
                    if schema is not None and example["json"]:
                        example["violations"] = violations(document, schema, body, version)
                    raw = (request.get("body") or {}).get("raw") if isinstance(request, dict) else None
                    content = ((operation.get("requestBody") or {}).get("content")) or {}
                    schemas = [b["schema"] for m, b in content.items() if m.split(";")[0].endswith("json") and "schema" in b]
                    only_json = bool(content) and all(m.split(";")[0].strip().endswith("json") for m in content)
                    if raw and schemas:
                        try:
                            sent = json.loads(substitute(raw, values))
                        except ValueError:
                            sent = None
                            # Bytes that are not JSON do not fit an operation that takes JSON only.
                            if only_json:
                                example["requestViolations"] = ["/body"]
                        if sent is not None:
                            example["requestViolations"] = [
                                "/body" + p for p in violations(document, schemas[0], sent, version)
                            ]
                examples.append(example)

    walk(collection.get("item", []), "/item")
    json.dump({"examples": examples}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
