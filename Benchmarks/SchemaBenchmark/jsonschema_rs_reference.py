#!/usr/bin/env python3
"""The reference side of SchemaBenchmark: the same work as apiprobe's validator, done with jsonschema-rs (PyPI).

Run by SchemaBenchmark (main.swift) as a child process, with the interpreter from `--python PATH` or
JSONSCHEMA_RS_PYTHON (a venv with `pip install jsonschema-rs`). Each mode prints one JSON object on stdout.

  generated SCHEMA INSTANCE   validator_for(schema, validate_formats=True); each round times
                              `is_valid(instance)` (json.loads and the compile are not timed)
  stripe SPEC INSTANCES       OpenAPI 3.0: `nullable: true` turned into JSON Schema as the repo's oracle does
                              (Tests/APIProbeCLITests/Fixtures/RealCollections/oracle.py), the document in a Registry,
                              and each response schema compiled as {"$ref": "urn:spec#POINTER"} with draft-04
                              semantics; each round times `is_valid` of every instance
  check SPEC FOLDER           what `apiprobe openapi check SPEC --stubs FOLDER` does for the response bodies: read
                              every fixture, find the operation by method and path template, validate the JSON body
                              against the status's schema (the errors listed when it fails)

`generated` and `stripe` take their rounds from standard input, so that the benchmark can alternate them with its
own: after the setup they print {"ready": true}, then answer each line `round` with {"seconds": …, …} and the line
`quit` with {"peakMiB": …}. `check` prints its counts and its peak resident memory (`resource.getrusage`).
"""
import json
import os
import re
import resource
import sys
import time
import urllib.parse

try:
    import jsonschema_rs
except ImportError:
    sys.stderr.write(
        "error: jsonschema_rs is not installed for %s (python3 -m venv venv && venv/bin/pip install jsonschema-rs)\n"
        % sys.executable
    )
    sys.exit(3)


def peak_mib():
    # ru_maxrss is in KiB on Linux, bytes on macOS.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def load(path):
    with open(path, "rb") as handle:
        return json.loads(handle.read())


# OpenAPI 3.0's `nullable` read as the real-collection oracle reads it: one rule, imported from beside it.
sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "APIProbeCLITests", "Fixtures",
                    "RealCollections"))
from oracle import nullable_to_types  # noqa: E402


def fragment(pointer):
    """A JSON Pointer as a URI fragment (`{` and `}` of path templates percent-encoded)."""
    return "#" + urllib.parse.quote(pointer, safe="/~!$&'()*+,;=:@")


def escape(token):
    return token.replace("~", "~0").replace("/", "~1")


class Spec:
    """An OpenAPI 3.0 description's documents for jsonschema-rs: the converted document in a registry."""

    BASE = "urn:spec"

    def __init__(self, path):
        self.raw = load(path)
        self.document = nullable_to_types(self.raw)
        self.registry = jsonschema_rs.Registry([(self.BASE, self.document)], draft=jsonschema_rs.Draft4)
        self.validators = {}

    def validator(self, pointer):
        validator = self.validators.get(pointer)
        if validator is None:
            validator = jsonschema_rs.Draft4Validator(
                {"$ref": self.BASE + fragment(pointer)}, validate_formats=True, registry=self.registry
            )
            self.validators[pointer] = validator
        return validator


def answer(result):
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    sys.stdout.flush()


def serve_rounds(one_round, setup):
    """Prints `setup` as ready, then times `one_round()` for each `round` line of standard input."""
    answer(dict(setup, ready=True))
    for line in sys.stdin:
        command = line.strip()
        if command == "round":
            start = time.perf_counter()
            result = one_round()
            answer(dict(result, seconds=time.perf_counter() - start))
        elif command == "quit":
            break
    return {}


def generated(schema_path, instance_path):
    schema = load(schema_path)
    instance = load(instance_path)
    validator = jsonschema_rs.validator_for(schema, validate_formats=True)
    return serve_rounds(lambda: {"valid": validator.is_valid(instance)}, {"validator": type(validator).__name__})


def stripe(spec_path, instances_path):
    spec = Spec(spec_path)
    data = load(instances_path)
    pointers = data["pointers"]
    validators = [spec.validator(pointer) for pointer in pointers]
    pairs = [(validators[index], body) for index, body in data["instances"]]

    def one_round():
        results = [validator.is_valid(body) for validator, body in pairs]
        return {"verdicts": "".join("1" if result else "0" for result in results)}

    return serve_rounds(one_round, {"validator": type(validators[0]).__name__})


class Operations:
    """Operations by method and path template; the most literal segments win, as in oracle.py."""

    def __init__(self, spec):
        servers = spec.get("servers") or [{"url": "/"}]
        self.base = urllib.parse.urlsplit(servers[0]["url"]).path.rstrip("/")
        self.by_shape = {}
        for template, item in (spec.get("paths") or {}).items():
            segments = [s for s in template.strip("/").split("/") if s]
            matchers = []
            for segment in segments:
                if "{" in segment:
                    regex = "^" + re.sub(r"\\\{[^}]*\\\}", ".+", re.escape(segment)) + "$"
                    matchers.append(re.compile(regex))
                else:
                    matchers.append(segment)
            for method, operation in item.items():
                if not isinstance(operation, dict) or method.startswith("x-") or method == "parameters":
                    continue
                key = (method.upper(), len(segments))
                self.by_shape.setdefault(key, []).append((matchers, template, method, operation))

    def find(self, method, url):
        path = urllib.parse.urlsplit(url).path
        if self.base and (path == self.base or path.startswith(self.base + "/")):
            path = path[len(self.base):] or "/"
        parts = [urllib.parse.unquote(p) for p in path.strip("/").split("/") if p]
        best = None
        for matchers, template, lower, operation in self.by_shape.get((method.upper(), len(parts)), ()):
            literals = 0
            for matcher, part in zip(matchers, parts):
                if isinstance(matcher, str):
                    if matcher != part:
                        break
                    literals += 1
                elif not matcher.match(part):
                    break
            else:
                if best is None or literals > best[0]:
                    best = (literals, template, lower, operation)
        return best


def response_pointer(template, method, operation, status):
    responses = operation.get("responses") or {}
    for key in (str(status), "%dXX" % (status // 100), "default"):
        response = responses.get(key)
        if response is None:
            continue
        for media, body in (response.get("content") or {}).items():
            if media.split(";")[0].strip().endswith("json") and "schema" in body:
                return "/paths/%s/%s/responses/%s/content/%s/schema" % (
                    escape(template), method, escape(key), escape(media))
        return None
    return None


def check(spec_path, folder):
    spec = Spec(spec_path)
    operations = Operations(spec.raw)
    names = []
    for root, _, files in os.walk(folder):
        names += [os.path.join(root, name) for name in files if name.endswith(".json")]
    names.sort()
    violations = 0
    failing = 0
    unmatched = 0
    for name in names:
        fixture = load(name)
        request = fixture["request"]
        response = fixture["response"]
        found = operations.find(request["method"], request["url"])
        if found is None:
            unmatched += 1
            continue
        _, template, method, operation = found
        pointer = response_pointer(template, method, operation, response["status"])
        if pointer is None or "body" not in response or response.get("bodyEncoding", "json") != "json":
            continue
        validator = spec.validator(pointer)
        body = response["body"]
        if not validator.is_valid(body):
            failing += 1
            violations += sum(1 for _ in validator.iter_errors(body))
    return {"fixtures": len(names), "failing": failing, "violations": violations, "unmatched": unmatched}


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "generated" and len(sys.argv) == 4:
        result = generated(sys.argv[2], sys.argv[3])
    elif mode == "stripe" and len(sys.argv) == 4:
        result = stripe(sys.argv[2], sys.argv[3])
    elif mode == "check" and len(sys.argv) == 4:
        result = check(sys.argv[2], sys.argv[3])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
    result["peakMiB"] = peak_mib()
    try:
        from importlib.metadata import version

        result["jsonschema_rs"] = version("jsonschema-rs")
    except Exception:  # noqa: BLE001 (the version is only shown)
        result["jsonschema_rs"] = "?"
    answer(result)


if __name__ == "__main__":
    main()
