#!/usr/bin/env python3
"""Lists `package` declarations that no other module names: candidates to narrow to `internal`.

A declaration is listed when its name appears in no file of another module: no other target under Sources/, and no
test file that imports the module without `@testable` (a `@testable` import sees internal declarations already). The
match is by name, so it only errs on the safe side: a name that another module uses for something else keeps a
declaration off the list, never the other way round. Initializers, subscripts and members that a protocol of the
module requires (a witness must be as wide as the requirement) are not listed; `--baseline FILE` names those that
must stay as they are for a reason the script cannot see, one `Module/file.swift:name` a line.

Exit status: 0 when nothing is listed (or only what the baseline names), 1 otherwise; `--report` always exits 0.
"""
import os, re, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECL = re.compile(
    r'^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*package\s+'
    r'(?:(?:static|class|final|override|mutating|nonmutating|nonisolated|lazy|convenience|required|indirect|'
    r'dynamic|weak|unowned|optional|consuming|borrowing|async|distributed)\s+)*'
    r'(func|var|let|struct|class|enum|protocol|typealias|actor|case|extension)\s+`?([A-Za-z_][A-Za-z0-9_]*)')

def swift_files(folder):
    for dirpath, _, names in os.walk(folder):
        for name in names:
            if name.endswith('.swift'):
                yield os.path.join(dirpath, name)

def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()

modules = {}
for name in sorted(os.listdir(os.path.join(root, 'Sources'))):
    folder = os.path.join(root, 'Sources', name)
    if os.path.isdir(folder):
        modules[name] = {path: read(path) for path in swift_files(folder)}
tests = {}
for folder in [os.path.join(root, 'Tests'), os.path.join(root, 'Benchmarks')]:
    if os.path.isdir(folder):
        for path in swift_files(folder):
            tests[path] = read(path)

def words(text):
    return set(re.findall(r'[A-Za-z_][A-Za-z0-9_]*', text))

module_words = {m: set().union(*(words(t) for t in files.values())) if files else set() for m, files in modules.items()}
test_words = {path: words(text) for path, text in tests.items()}
testable = {path: set(re.findall(r'@testable\s+import\s+(\w+)', text)) for path, text in tests.items()}

def required_by_protocols(files):
    """Names a protocol of these files declares (its requirements)."""
    names = set()
    for text in files.values():
        for match in re.finditer(r'\bprotocol\s+\w+[^{]*\{', text):
            depth, i = 1, match.end()
            while i < len(text) and depth:
                depth += {'{': 1, '}': -1}.get(text[i], 0)
                i += 1
            names |= set(re.findall(r'\b(?:func|var|associatedtype)\s+`?([A-Za-z_]\w*)', text[match.end():i]))
    return names

baseline = set()
args = sys.argv[1:]
if '--baseline' in args:
    with open(args[args.index('--baseline') + 1]) as f:
        baseline = {line.strip() for line in f if line.strip() and not line.startswith('#')}

listed = []
for module, files in modules.items():
    outside = set().union(*(w for m, w in module_words.items() if m != module))
    for path, ws in test_words.items():
        if module not in testable[path]:
            outside |= ws
    required = required_by_protocols(files)
    for path, text in sorted(files.items()):
        for number, line in enumerate(text.split('\n'), 1):
            match = DECL.match(line)
            if not match or match.group(1) == 'extension':
                continue
            name = match.group(2)
            if name in outside or name in required:
                continue
            key = f'{module}/{os.path.relpath(path, os.path.join(root, "Sources", module))}:{name}'
            if key in baseline:
                continue
            listed.append((os.path.relpath(path, root), number, name))

for path, number, name in listed:
    print(f'{path}:{number}: `package` {name} is used only inside its own module: make it internal')
print(f'{len(listed)} package declarations used only inside their own module', file=sys.stderr)
sys.exit(0 if '--report' in args or not listed else 1)
