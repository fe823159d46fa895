"""The response properties one OpenAPI description removes from another, found without apiprobe.

    python3 removed_properties.py OLD.json NEW.json

Prints one line per operation, response status and removed property name (`GET /v1/charges response 200: name`),
sorted. Operations are matched by method and path template with parameter names blanked; a schema is the union of
what its $ref, allOf, anyOf and oneOf lead to (as a client that decodes any of them must); only properties both
versions have are walked into, array items too; each pair of places is walked once. RealSpecTests compares
apiprobe's `openapi diff` with this.
"""
import json
import re
import sys


def at(root, pointer):
    value = root
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list):
            value = value[int(token)]
        elif isinstance(value, dict) and token in value:
            value = value[token]
        else:
            return None
    return value


def escape(text):
    return text.replace("~", "~0").replace("/", "~1")


class Walk:
    def __init__(self, old, new):
        self.old, self.new = old, new
        self.parts_cache = {}

    def parts(self, pointers, root):
        key = (id(root), tuple(sorted(pointers)))
        if key in self.parts_cache:
            return self.parts_cache[key]
        result, pending, seen = [], list(pointers), set()
        while pending:
            pointer = pending.pop()
            if pointer in seen:
                continue
            seen.add(pointer)
            schema = at(root, pointer)
            if schema is None:
                continue
            result.append(pointer)
            if isinstance(schema, dict):
                reference = schema.get("$ref")
                if isinstance(reference, str) and reference.startswith("#"):
                    pending.append(reference[1:])
                for keyword in ("allOf", "anyOf", "oneOf"):
                    if isinstance(schema.get(keyword), list):
                        pending.extend(f"{pointer}/{keyword}/{i}" for i in range(len(schema[keyword])))
        result = tuple(sorted(result))
        self.parts_cache[key] = result
        return result

    @staticmethod
    def properties(parts, root):
        result, is_object = {}, False
        for part in parts:
            members = at(root, part + "/properties")
            if isinstance(members, dict):
                is_object = True
                for name, schema in members.items():
                    if isinstance(schema, dict) and schema.get("writeOnly"):
                        continue
                    result.setdefault(name, []).append(part + "/properties/" + escape(name))
        return result if is_object else None

    def removed(self, old_pointer, new_pointer):
        names, seen, pending = set(), set(), [([old_pointer], [new_pointer])]
        while pending:
            old_pointers, new_pointers = pending.pop()
            a, b = self.parts(old_pointers, self.old), self.parts(new_pointers, self.new)
            if (a, b) in seen:
                continue
            seen.add((a, b))
            old_properties, new_properties = self.properties(a, self.old), self.properties(b, self.new)
            if old_properties is not None and new_properties is not None:
                for name, pointers in old_properties.items():
                    if name in new_properties:
                        pending.append((pointers, new_properties[name]))
                    else:
                        names.add(name)
            old_items = [p + "/items" for p in a if at(self.old, p + "/items") is not None]
            new_items = [p + "/items" for p in b if at(self.new, p + "/items") is not None]
            if old_items and new_items:
                pending.append((old_items, new_items))
        return names


METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def operations(root):
    result = {}
    for template, item in root.get("paths", {}).items():
        key_path = re.sub(r"\{[^}]*\}", "{}", template)
        for method in METHODS:
            if method in item:
                result[f"{method.upper()} {key_path}"] = (method.upper() + " " + template, "/paths/" + escape(template) + "/" + method)
    return result


def main():
    old, new = (json.load(open(path)) for path in sys.argv[1:3])
    walk = Walk(old, new)
    lines = set()
    new_operations = operations(new)
    for key, (_, old_pointer) in operations(old).items():
        if key not in new_operations:
            continue
        name, new_pointer = new_operations[key]
        old_responses = at(old, old_pointer + "/responses") or {}
        new_responses = at(new, new_pointer + "/responses") or {}
        for status in old_responses:
            suffix = "/responses/" + escape(status) + "/content/application~1json/schema"
            if status in new_responses and at(old, old_pointer + suffix) is not None and at(new, new_pointer + suffix) is not None:
                for removed in walk.removed(old_pointer + suffix, new_pointer + suffix):
                    lines.add(f"{name} response {status}: {removed}")
    sys.stdout.write("".join(line + "\n" for line in sorted(lines)))


main()
