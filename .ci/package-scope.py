#!/usr/bin/env python3
"""Lists `package` declarations that no other module uses: candidates to narrow to `internal`.

Exact, by the compiler's index (the store a debug build writes, `.build/debug/index/store`, read through the
toolchain's libIndexStore): each `package` declaration under Sources/ is resolved to its symbol (USR), and it is
used outside when an occurrence that references that symbol is in a file of another module: another target under
Sources/, or a test or benchmark file that does not import the module with `@testable` (a `@testable` import sees
internal declarations already). A name that another module uses for something else no longer hides a declaration.

What the index cannot judge is counted on stderr, never passed in silence:
- a declaration the index does not have (code this platform does not compile, such as `#if os(macOS)`);
- a declaration whose name appears in code of another module that this platform does not compile (an `#if`
  branch for Apple platforms; a condition this check cannot read counts as not compiled): kept, as a use there
  may exist;
- a witness of, or override of, a requirement declared outside the module (the compiler holds it as wide as the
  requirement); a witness of the module's own requirement is used outside when the requirement is.
`--baseline FILE` names those that must stay as they are for a reason the index does not show (a type named in the
signature of a declaration another module calls), one `Module/file.swift:name` a line.

A baseline line that holds nothing any more (the declaration was narrowed, another module uses it now, or it is
gone) is listed too, so the baseline stays the list of real exceptions.

Exit status: 0 when nothing is listed (or only what the baseline names), 1 otherwise, 2 when the index is missing
or unreadable; `--report` exits 0 after listing.
"""
import ctypes, os, re, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECL = re.compile(
    r'^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*package\s+'
    r'(?:(?:static|class|final|override|mutating|nonmutating|nonisolated|lazy|convenience|required|indirect|'
    r'dynamic|weak|unowned|optional|consuming|borrowing|async|distributed)\s+)*'
    r'(?:(func|var|let|struct|class|enum|protocol|typealias|actor|extension)\s+`?([A-Za-z_][A-Za-z0-9_]*)'
    r'|(init|subscript)\b)')

ROLE_DECLARATION, ROLE_DEFINITION, ROLE_REFERENCE = 1 << 0, 1 << 1, 1 << 2
ROLE_REL_OVERRIDEOF = 1 << 11
DEPENDENCY_RECORD = 2


def fail(message):
    print(f'package-scope: {message}', file=sys.stderr)
    sys.exit(2)


class Ref(ctypes.Structure):
    _fields_ = [('data', ctypes.c_char_p), ('length', ctypes.c_size_t)]


def text(ref):
    return ctypes.string_at(ref.data, ref.length).decode('utf-8', 'replace') if ref.length else ''


class IndexStore:
    """The few calls of libIndexStore's C API (indexstore.h) this check needs."""

    def __init__(self, path):
        library = os.environ.get('APIPROBE_LIBINDEXSTORE') or self.find_library()
        try:
            lib = ctypes.CDLL(library)
        except OSError as error:
            fail(f'cannot load libIndexStore ({library}): {error}')
        vp = ctypes.c_void_p
        self.UNIT = ctypes.CFUNCTYPE(ctypes.c_bool, vp, Ref)
        self.ITEM = ctypes.CFUNCTYPE(ctypes.c_bool, vp, vp)
        signatures = {
            'indexstore_store_create': (vp, [ctypes.c_char_p, ctypes.POINTER(vp)]),
            'indexstore_error_get_description': (ctypes.c_char_p, [vp]),
            'indexstore_store_units_apply_f': (ctypes.c_bool, [vp, ctypes.c_uint, vp, self.UNIT]),
            'indexstore_unit_reader_create': (vp, [vp, ctypes.c_char_p, ctypes.POINTER(vp)]),
            'indexstore_unit_reader_dispose': (None, [vp]),
            'indexstore_unit_reader_get_main_file': (Ref, [vp]),
            'indexstore_unit_reader_get_module_name': (Ref, [vp]),
            'indexstore_unit_reader_get_modification_time': (ctypes.c_bool, [vp, ctypes.POINTER(ctypes.c_int64),
                                                                              ctypes.POINTER(ctypes.c_int64)]),
            'indexstore_unit_reader_dependencies_apply_f': (ctypes.c_bool, [vp, vp, self.ITEM]),
            'indexstore_unit_dependency_get_kind': (ctypes.c_int, [vp]),
            'indexstore_unit_dependency_get_name': (Ref, [vp]),
            'indexstore_record_reader_create': (vp, [vp, ctypes.c_char_p, ctypes.POINTER(vp)]),
            'indexstore_record_reader_dispose': (None, [vp]),
            'indexstore_record_reader_occurrences_apply_f': (ctypes.c_bool, [vp, vp, self.ITEM]),
            'indexstore_occurrence_get_symbol': (vp, [vp]),
            'indexstore_occurrence_get_roles': (ctypes.c_uint64, [vp]),
            'indexstore_occurrence_get_line_col': (None, [vp, ctypes.POINTER(ctypes.c_uint),
                                                          ctypes.POINTER(ctypes.c_uint)]),
            'indexstore_occurrence_relations_apply_f': (ctypes.c_bool, [vp, vp, self.ITEM]),
            'indexstore_symbol_relation_get_roles': (ctypes.c_uint64, [vp]),
            'indexstore_symbol_relation_get_symbol': (vp, [vp]),
            'indexstore_symbol_get_usr': (Ref, [vp]),
            'indexstore_symbol_get_name': (Ref, [vp]),
        }
        for name, (result, arguments) in signatures.items():
            function = getattr(lib, name)
            function.restype, function.argtypes = result, arguments
        self.lib = lib
        error = vp()
        self.store = lib.indexstore_store_create(path.encode(), ctypes.byref(error))
        if not self.store:
            fail(f'cannot open the index store {path}: {self.describe(error)}')

    @staticmethod
    def find_library():
        """The toolchain's own: beside the `swift` on PATH (after its links), in its `lib` folder."""
        import shutil
        swift = shutil.which('swift')
        if swift:
            candidate = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(swift))), 'lib',
                                     'libIndexStore.so')
            if os.path.exists(candidate):
                return candidate
        return 'libIndexStore.so'

    def describe(self, error):
        return self.lib.indexstore_error_get_description(error).decode() if error else 'no reason given'

    def units(self):
        """(module, main file, record names) for every unit, the newest unit of a main file only."""
        names = []
        self.lib.indexstore_store_units_apply_f(self.store, 0, None, self.UNIT(lambda _, n: names.append(text(n)) or True))
        newest = {}
        for name in names:
            error = ctypes.c_void_p()
            reader = self.lib.indexstore_unit_reader_create(self.store, name.encode(), ctypes.byref(error))
            if not reader:
                fail(f'cannot read unit {name}: {self.describe(error)}')
            main = text(self.lib.indexstore_unit_reader_get_main_file(reader))
            module = text(self.lib.indexstore_unit_reader_get_module_name(reader))
            seconds, nanoseconds = ctypes.c_int64(), ctypes.c_int64()
            self.lib.indexstore_unit_reader_get_modification_time(reader, ctypes.byref(seconds),
                                                                  ctypes.byref(nanoseconds))
            records = []

            def dependency(_, item):
                if self.lib.indexstore_unit_dependency_get_kind(item) == DEPENDENCY_RECORD:
                    records.append(text(self.lib.indexstore_unit_dependency_get_name(item)))
                return True

            self.lib.indexstore_unit_reader_dependencies_apply_f(reader, None, self.ITEM(dependency))
            self.lib.indexstore_unit_reader_dispose(reader)
            stamp = (seconds.value, nanoseconds.value)
            if main and (main not in newest or newest[main][0] < stamp):
                newest[main] = (stamp, module, records)
        return {main: (module, records) for main, (_, module, records) in newest.items()}

    def occurrences(self, record):
        """(usr, name, roles, line, relations) of every occurrence in a record; relations as (roles, usr)."""
        error = ctypes.c_void_p()
        reader = self.lib.indexstore_record_reader_create(self.store, record.encode(), ctypes.byref(error))
        if not reader:
            fail(f'cannot read record {record}: {self.describe(error)}')
        found = []
        lib = self.lib

        def occurrence(_, item):
            symbol = lib.indexstore_occurrence_get_symbol(item)
            line, column = ctypes.c_uint(), ctypes.c_uint()
            lib.indexstore_occurrence_get_line_col(item, ctypes.byref(line), ctypes.byref(column))
            roles = lib.indexstore_occurrence_get_roles(item)
            relations = []
            if roles & (ROLE_DEFINITION | ROLE_DECLARATION):
                def relation(_, rel):
                    relations.append((lib.indexstore_symbol_relation_get_roles(rel),
                                      text(lib.indexstore_symbol_get_usr(lib.indexstore_symbol_relation_get_symbol(rel)))))
                    return True
                lib.indexstore_occurrence_relations_apply_f(item, None, self.ITEM(relation))
            found.append((text(lib.indexstore_symbol_get_usr(symbol)), text(lib.indexstore_symbol_get_name(symbol)),
                          roles, line.value, relations))
            return True

        lib.indexstore_record_reader_occurrences_apply_f(reader, None, self.ITEM(occurrence))
        lib.indexstore_record_reader_dispose(reader)
        return found


def swift_files(folder):
    for dirpath, _, names in os.walk(folder):
        for name in names:
            if name.endswith('.swift'):
                yield os.path.join(dirpath, name)


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


# What `#if` conditions mean on this platform (Linux: CI's and this check's), to find the code it does not compile.
LINUX_MODULES = {'FoundationNetworking', 'FoundationXML', 'Foundation', 'Glibc', 'Dispatch', 'Testing', 'XCTest'}
APPLE_MODULES = {'Darwin', 'Musl', 'UIKit', 'AppKit', 'ObjectiveC', 'WatchKit', 'WASILibc', 'ucrt', 'WinSDK'}


def compiler_version():
    import subprocess
    try:
        output = subprocess.run(['swift', '--version'], capture_output=True, text=True).stdout
    except OSError:
        return None
    match = re.search(r'Swift version (\d+)\.(\d+)', output)
    return (int(match.group(1)), int(match.group(2))) if match else None


COMPILER = compiler_version()


def active(condition):
    """Whether a `#if` condition holds here; None when this check cannot tell (counted as code not compiled)."""
    def atom(match):
        kind, value = match.group(1), match.group(2).strip()
        if kind == 'canImport':
            if value in LINUX_MODULES:
                return 'True'
            if value in APPLE_MODULES:
                return 'False'
            raise ValueError(value)
        if kind == 'os':
            return 'True' if value == 'Linux' else 'False'
        if kind in ('compiler', 'swift') and COMPILER:
            version = re.fullmatch(r'([<>]=?)\s*(\d+)(?:\.(\d+))?', value)
            if version:
                wanted = (int(version.group(2)), int(version.group(3) or 0))
                return str(eval(f'{COMPILER} {version.group(1)} {wanted}'))
        raise ValueError(value)
    try:
        expression = re.sub(r'\b(canImport|os|compiler|swift|arch)\(([^)]*)\)', atom, condition)
        expression = expression.replace('&&', ' and ').replace('||', ' or ').replace('!', ' not ')
        if not re.fullmatch(r'[\sTrueFalsandotr()]*', expression):
            return None
        return bool(eval(expression))
    except (ValueError, SyntaxError):
        return None


def uncompiled_words(source):
    """Names in the `#if` branches this platform does not compile (or whose condition this check cannot read):
    the index lacks whatever they use."""
    found, stack = set(), []  # per open #if: (enclosing active, this branch active, a branch taken already)
    for line in source.split('\n'):
        stripped = line.strip()
        directive = re.match(r'#(if|elseif|else|endif)\b(.*)', stripped)
        enclosing = all(branch for _, branch, _ in stack)
        if directive:
            kind, condition = directive.group(1), directive.group(2).split('//')[0].strip()
            if kind == 'if':
                holds = active(condition)
                stack.append((enclosing, holds is True, holds is not False))
            elif kind == 'elseif' and stack:
                outer, _, taken = stack.pop()
                holds = active(condition)
                stack.append((outer, holds is True and not taken, taken or holds is not False))
            elif kind == 'else' and stack:
                outer, _, taken = stack.pop()
                stack.append((outer, not taken, True))
            elif kind == 'endif' and stack:
                stack.pop()
            continue
        if not enclosing:
            found |= set(re.findall(r'[A-Za-z_][A-Za-z0-9_]*', line))
    return found


def main():
    args = sys.argv[1:]
    store_path = os.path.join(root, '.build', 'debug', 'index', 'store')
    if '--index-store' in args:
        store_path = args[args.index('--index-store') + 1]
    if not os.path.isdir(store_path):
        fail(f'no index store at {store_path}: build first (`swift build --build-tests`, a debug build writes it)')
    baseline = set()
    if '--baseline' in args:
        with open(args[args.index('--baseline') + 1]) as f:
            baseline = {line.strip() for line in f if line.strip() and not line.startswith('#')}

    modules = {}
    for name in sorted(os.listdir(os.path.join(root, 'Sources'))):
        folder = os.path.join(root, 'Sources', name)
        if os.path.isdir(folder):
            modules[name] = {path: read(path) for path in swift_files(folder)}
    others = {}
    for folder in ['Tests', 'Benchmarks']:
        for path in swift_files(os.path.join(root, folder)):
            others[path] = read(path)
    sources = {path: source for files in modules.values() for path, source in files.items()} | others
    module_of = {path: module for module, files in modules.items() for path in files}
    testable = {path: set(re.findall(r'@testable\s+import\s+(\w+)', source)) for path, source in sources.items()}

    store = IndexStore(store_path)
    units = store.units()
    missing = [os.path.relpath(p, root) for p in sources if p not in units]
    if missing:
        fail(f'{len(missing)} source files are not in the index (first {missing[0]}): build first, '
             '`swift build --build-tests`')
    occurrences = {path: [o for record in units[path][1] for o in store.occurrences(record)] for path in sources}

    # Each `package` declaration, resolved to its symbols through the definitions on its line.
    declarations = []
    unindexed = []
    for module, files in modules.items():
        for path, source in sorted(files.items()):
            for number, line in enumerate(source.split('\n'), 1):
                match = DECL.match(line)
                if not match or match.group(1) == 'extension':
                    continue
                name = match.group(2) or match.group(3)
                usrs = {usr for usr, symbol, roles, at, _ in occurrences[path]
                        if at == number and roles & (ROLE_DEFINITION | ROLE_DECLARATION)
                        and symbol.split('(')[0] == name}
                if not usrs:
                    unindexed.append((os.path.relpath(path, root), number, name))
                    continue
                relations = {usr for o in occurrences[path] if o[0] in usrs and o[3] == number
                             for roles, usr in o[4] if roles & ROLE_REL_OVERRIDEOF}
                declarations.append((module, path, number, name, usrs, relations))

    # Where each symbol is referenced from outside its module (a @testable import does not count).
    used_outside = set()
    for path, found in occurrences.items():
        importer = module_of.get(path)
        for usr, _, roles, _, _ in found:
            if roles & ROLE_REFERENCE:
                used_outside.add((usr, importer, path))
    outside_by_usr = {}
    for usr, importer, path in used_outside:
        outside_by_usr.setdefault(usr, []).append((importer, path))

    def used_from_outside(module, usrs):
        return any(importer != module and module not in testable[path]
                   for usr in usrs for importer, path in outside_by_usr.get(usr, []))

    own_usrs = {usr: d for d in declarations for usr in d[4]}
    conditional = {module: set().union(set(), *(uncompiled_words(s) for p, s in sources.items()
                                               if module_of.get(p) != module and module not in testable[p]))
                   for module in modules}
    listed, witnesses, by_conditional, in_baseline, used, held = [], 0, 0, 0, 0, set()
    for module, path, number, name, usrs, relations in declarations:
        if used_from_outside(module, usrs):
            used += 1
            continue
        if relations:
            # A witness or override: as wide as what it satisfies. Its own module's requirement counts when used.
            foreign = [usr for usr in relations if usr not in own_usrs]
            if foreign or any(used_from_outside(own_usrs[usr][0], own_usrs[usr][4]) for usr in relations):
                witnesses += 1
                continue
        if name in conditional[module]:
            by_conditional += 1
            continue
        key = f'{module}/{os.path.relpath(path, os.path.join(root, "Sources", module))}:{name}'
        if key in baseline:
            in_baseline += 1
            held.add(key)
            continue
        listed.append((os.path.relpath(path, root), number, name))
    stale = sorted(baseline - held)

    for path, number, name in listed:
        print(f'{path}:{number}: `package` {name} is used only inside its own module: make it internal')
    for key in stale:
        print(f'.ci/package-scope-baseline.txt: {key} holds no declaration used only inside its module any more '
              '(narrowed, used elsewhere now, or gone): remove the line')
    for path, number, name in unindexed:
        print(f'package-scope: note: {path}:{number}: `package` {name} is not in the index (code this platform '
              'does not compile): not judged', file=sys.stderr)
    print(f'{len(declarations) + len(unindexed)} package declarations: {used} used by another module, '
          f'{witnesses} witnesses or overrides of a requirement declared or used elsewhere, {in_baseline} in the '
          f'baseline, {by_conditional} kept by their name in code of another module this platform does not compile, {len(unindexed)} not in '
          f'the index, {len(listed)} used only inside their own module, {len(stale)} stale baseline lines',
          file=sys.stderr)
    sys.exit(0 if '--report' in args or not (listed or stale) else 1)


main()
