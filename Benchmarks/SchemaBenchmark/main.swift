// SchemaBenchmark: apiprobe's JSON Schema validator (JSONSchemaValidation) beside jsonschema-rs (PyPI), on the same
// schemas and the same instance bytes, in one run.
//
//   swift build -c release --product SchemaBenchmark
//   JSONSCHEMA_RS_PYTHON=venv/bin/python .build/release/SchemaBenchmark [--python PATH] [--binary PATH]
//       [--mb 10] [--rounds 15] [--instances 10000] [--fixtures 10000] [--spec stripe/2020-07.json] [--keep]
//       [--profile generated|stripe] [--patterns]
//
// 0. Patterns: ECMARegex's own automaton (regular patterns) against ICU on the same patterns and texts, rounds
//    alternated (`--patterns` runs only this, without Python).
// The reference is jsonschema_rs_reference.py (beside this file), run as a child process by the interpreter that
// --python or JSONSCHEMA_RS_PYTHON names (python3 -m venv venv && venv/bin/pip install jsonschema-rs).
//
// 1. Generated: a seeded 10 MB JSON array of orders against a 2020-12 schema with `$ref` to `$defs`, `allOf`,
//    `pattern`, `format` (date-time, email), `minimum`, `enum` and `unevaluatedProperties: false`. Both sides read
//    the same files; parse and compile are not timed, only `isValid` / `is_valid`.
// 2. Stripe: 10,000 instances generated from the operations' 200 response schemas of the Stripe 2020-07 description
//    (OpenAPI 3.0: apiprobe's `openAPI30` dialect; for jsonschema-rs `nullable` turned into types as the repo's
//    oracle.py does, draft-04 semantics, each schema as {"$ref": "…#POINTER"} against the whole document), 4% broken
//    on purpose. Every verdict of the two is compared; only validation is timed. The generator writes `null` only
//    where `nullable` sits beside a `type` and no `enum`: elsewhere (Stripe's `anyOf` + `nullable`, nullable enums)
//    apiprobe lets `null` through and oracle.py's conversion does not, a difference of reading, not of validators.
// 3. Process against process: the same instances as 10,000 fixtures, `apiprobe openapi check SPEC --stubs FOLDER`
//    (--binary, default .build/release/apiprobe; skipped when it is not built) against the script's `check`, three
//    runs each, alternating; wall time and each process's peak memory (`wait4`).
//
// The in-process rounds alternate, one of apiprobe then one of jsonschema-rs (the script serves rounds on its
// standard input), after one of each not counted: the machine is shared and noisy, and a ratio of two things
// measured together holds where a time does not. Printed: each side's median and rounds, the ratio of the medians
// and the median of the rounds' ratios (the target is judged on the lower of the two), and, for the noise, the ratio
// of each side's fastest round.
//
// --keep keeps the files (schemas, instances, fixtures); --profile generated|stripe runs only apiprobe's side of
// that workload (no Python needed), for a profiler.
//
// Both sides assert `format` (apiprobe's default `assertsFormat`; jsonschema-rs `validate_formats=True`).
// Targets (the issue): in-process throughput at least 1.0× jsonschema-rs (workloads 1 and 2); `openapi check` over
// 10,000 fixtures no slower than the Python script; peak memory printed for both sides.
import APIProbeShared
import BenchmarkSupport
import Foundation
import HTTPFixtures
import JSONSchemaValidation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The text after `name` on the command line, or `nil`.
func option(_ name: String) -> String? {
    let args = CommandLine.arguments
    guard let index = args.firstIndex(of: name), index + 1 < args.count else { return nil }
    return args[index + 1]
}

func fail(_ message: String, status: Int32 = 2) -> Never {
    print("error: \(message)")
    try? FileManager.default.removeItem(at: workFolder)
    exit(status)
}

if CommandLine.arguments.contains("--help") {
    print(
        """
        usage: SchemaBenchmark [--python PATH] [--binary PATH] [--mb 10] [--rounds 15] [--instances 10000]
                               [--fixtures 10000] [--spec PATH] [--keep] [--profile generated|stripe]
        The Python interpreter (with jsonschema-rs) comes from --python or JSONSCHEMA_RS_PYTHON.
        """)
    exit(0)
}

let megabytes = argument("--mb", default: 10)
let rounds = argument("--rounds", default: 15)
let instanceCount = argument("--instances", default: 10_000)
let fixtureCount = argument("--fixtures", default: 10_000)
let specPath = option("--spec") ?? "/work/shared/real-collections/stripe/2020-07.json"
let binary = option("--binary") ?? ".build/release/apiprobe"
let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("jsonschema_rs_reference.py").path
let workFolder = FileManager.default.temporaryDirectory.appendingPathComponent("schema-benchmark-\(getpid())")

// MARK: Child processes

/// What a child process did: its wall time, exit status, peak resident memory and standard output.
struct ChildRun {
    var seconds: Double
    var status: Int32
    var peakMiB: Double
    var output: Data
}

/// Runs `executable` with its standard output in a file (read back) and its standard error passed through, and
/// waits for it with `wait4`, whose resource usage gives the child's own peak memory.
func run(_ executable: String, _ arguments: [String], quiet: Bool = false) -> ChildRun {
    let outputPath = workFolder.appendingPathComponent("child-output-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: outputPath) }
    #if os(Linux)
    var actions = posix_spawn_file_actions_t()
    #else
    var actions: posix_spawn_file_actions_t?
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    if quiet { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let start = now()
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    guard spawned == 0 else { fail("\(executable): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let seconds = now() - start
    // WIFEXITED / WEXITSTATUS, which Swift does not import.
    let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    #if os(Linux)
    let peak = Double(usage.ru_maxrss) / 1024
    #else
    let peak = Double(usage.ru_maxrss) / 1024 / 1024
    #endif
    let output = FileManager.default.contents(atPath: outputPath) ?? Data()
    return ChildRun(seconds: seconds, status: exitStatus, peakMiB: peak, output: output)
}

/// Runs the reference script in `mode`; its one line of JSON output, or the benchmark stops.
func reference(_ python: String, _ arguments: [String]) -> (run: ChildRun, result: JSONValue) {
    let child = run(python, [script] + arguments)
    guard child.status == 0, let result = try? JSONValue(parsing: child.output) else {
        fail(
            "\(script) \(arguments.first ?? "") exited \(child.status): \(String(decoding: child.output, as: UTF8.self))"
        )
    }
    return (child, result)
}

/// The reference script serving rounds (`generated`, `stripe`): started once, then asked for one round at a time,
/// so that its rounds alternate with apiprobe's and both sides see the same moments of a noisy machine.
final class ReferenceRounds {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()
    /// What the script said when it was ready.
    private(set) var setup = JSONValue.null

    init(_ python: String, _ arguments: [String]) {
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script] + arguments
        process.standardInput = input
        process.standardOutput = output
        do { try process.run() } catch { fail("\(python): \(error)") }
        setup = line()
    }

    /// One timed round: the script's answer (`seconds` and the verdicts).
    func round() -> JSONValue {
        send("round")
        return line()
    }

    /// Ends the script; its last answer (`peakMiB`).
    func finish() -> JSONValue {
        send("quit")
        let last = line()
        process.waitUntilExit()
        return last
    }

    private func send(_ command: String) {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
    }

    private func line() -> JSONValue {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let text = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[(newline + 1)...])
                guard let value = try? JSONValue(parsing: Data(text)) else {
                    fail("\(script): expected a line of JSON, found \(String(decoding: text, as: UTF8.self))")
                }
                return value
            }
            let more = output.fileHandleForReading.availableData
            if more.isEmpty {
                process.waitUntilExit()
                fail("\(script) ended (status \(process.terminationStatus)) without answering")
            }
            buffer += more
        }
    }
}

/// Alternates `rounds` rounds of apiprobe (`body`, timed here) and of the reference (timed by the script), after
/// one of each not counted; the times of each side and the reference's answers.
func alternate(_ reference: ReferenceRounds?, _ body: () -> Void) -> (
    apiprobe: [Double], python: [Double], answers: [JSONValue]
) {
    var apiprobe: [Double] = []
    var python: [Double] = []
    var answers: [JSONValue] = []
    for round in 0...rounds {
        let start = now()
        body()
        let seconds = now() - start
        let answer = reference?.round()
        // Round 0 warms both sides up (caches, page faults) and is not counted.
        guard round > 0 else { continue }
        apiprobe.append(seconds)
        if let answer {
            python.append(number(answer, "seconds"))
            answers.append(answer)
        }
    }
    return (apiprobe, python, answers)
}

/// The lines of one in-process comparison: each side's median and rounds, and the ratios.
func report(megabytes: Double, apiprobe: [Double], python: [Double]) -> Double {
    print(
        "   apiprobe      median \(ms(median(apiprobe))) (\(format(megabytes / median(apiprobe), 1)) MB/s), rounds "
            + apiprobe.map { ms($0) }.joined(separator: ", "))
    print(
        "   jsonschema-rs median \(ms(median(python))) (\(format(megabytes / median(python), 1)) MB/s), rounds "
            + python.map { ms($0) }.joined(separator: ", "))
    let ratio = median(python) / median(apiprobe)
    let paired = median(zip(python, apiprobe).map { $0 / $1 })
    let fastest = (python.min() ?? 0) / (apiprobe.min() ?? 1)
    print(
        "   ratio (apiprobe throughput / jsonschema-rs): \(format(ratio, 2))× of the medians, \(format(paired, 2))× "
            + "median of the rounds' ratios (target ≥ 1.0, judged on the lower); \(format(fastest, 2))× of the "
            + "fastest rounds")
    return min(ratio, paired)
}

/// The number `result[key]` as a `Double`.
func number(_ result: JSONValue, _ key: String) -> Double {
    guard case .number(let literal)? = result[key] else { return 0 }
    return Double(literal) ?? 0
}

/// The numbers of the array `result[key]`.
func numbers(_ result: JSONValue, _ key: String) -> [Double] {
    guard case .array(let items)? = result[key] else { return [] }
    return items.compactMap { if case .number(let literal) = $0 { Double(literal) } else { nil } }
}

func text(_ result: JSONValue, _ key: String) -> String {
    if case .string(let value)? = result[key] { return value }
    return ""
}

/// The Python interpreter with jsonschema-rs, checked: the benchmark is a comparison and stops without it.
func findPython() -> String {
    guard let python = option("--python") ?? ProcessInfo.processInfo.environment["JSONSCHEMA_RS_PYTHON"] else {
        fail(
            "no Python with jsonschema-rs: pass --python PATH or set JSONSCHEMA_RS_PYTHON (python3 -m venv venv && "
                + "venv/bin/pip install jsonschema-rs)")
    }
    guard FileManager.default.isExecutableFile(atPath: python) else { fail("\(python): not an executable") }
    let probe = run(python, ["-c", "import jsonschema_rs"], quiet: true)
    guard probe.status == 0 else {
        fail("\(python) has no jsonschema_rs module: \(python) -m pip install jsonschema-rs (in a venv)")
    }
    return python
}

// MARK: 1. Generated

let generatedSchema = #"""
    {
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "array",
      "items": {"$ref": "#/$defs/order"},
      "$defs": {
        "timestamps": {
          "type": "object",
          "required": ["created"],
          "properties": {
            "created": {"type": "string", "format": "date-time"},
            "updated": {"type": ["string", "null"], "format": "date-time"}
          }
        },
        "money": {
          "type": "object",
          "required": ["amount", "currency"],
          "properties": {
            "amount": {"type": "integer", "minimum": 0},
            "currency": {"type": "string", "pattern": "^[a-z]{3}$"}
          },
          "unevaluatedProperties": false
        },
        "customer": {
          "type": "object",
          "required": ["id", "email"],
          "properties": {
            "id": {"type": "string", "pattern": "^cus_[A-Za-z0-9]{10}$"},
            "email": {"type": "string", "format": "email"},
            "name": {"type": "string", "minLength": 1, "maxLength": 80},
            "vip": {"type": "boolean"}
          },
          "unevaluatedProperties": false
        },
        "line": {
          "type": "object",
          "required": ["sku", "quantity", "price"],
          "properties": {
            "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
            "quantity": {"type": "integer", "minimum": 1, "maximum": 1000},
            "price": {"$ref": "#/$defs/money"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 8}
          },
          "unevaluatedProperties": false
        },
        "order": {
          "type": "object",
          "allOf": [{"$ref": "#/$defs/timestamps"}],
          "required": ["id", "status", "customer", "lines", "total"],
          "properties": {
            "id": {"type": "string", "pattern": "^ord_[A-Za-z0-9]{12}$"},
            "status": {"enum": ["pending", "paid", "shipped", "cancelled"]},
            "customer": {"$ref": "#/$defs/customer"},
            "lines": {"type": "array", "items": {"$ref": "#/$defs/line"}, "minItems": 1},
            "total": {"$ref": "#/$defs/money"},
            "note": {"type": ["string", "null"], "maxLength": 200}
          },
          "unevaluatedProperties": false
        }
      }
    }
    """#

/// A seeded array of orders of about `bytes` bytes, every one valid.
func generatedOrders(bytes: Int) -> Data {
    var random = SeededGenerator(seed: 2_026_1127)
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    let names = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov", "Ken Thompson"]
    let statuses = ["pending", "paid", "shipped", "cancelled"]
    let currencies = ["eur", "usd", "gbp", "jpy"]
    func token(_ count: Int) -> String { String((0..<count).map { _ in alphabet[random.nextIndex(alphabet.count)] }) }
    func date() -> String {
        String(
            format: "2026-%02d-%02dT%02d:%02d:%02d.%03dZ", 1 + random.nextIndex(12), 1 + random.nextIndex(28),
            random.nextIndex(24), random.nextIndex(60), random.nextIndex(60), random.nextIndex(1000))
    }
    var out = "["
    var count = 0
    while out.utf8.count < bytes {
        if count > 0 { out += "," }
        count += 1
        let currency = currencies[random.nextIndex(currencies.count)]
        var lines: [String] = []
        for _ in 0..<(1 + random.nextIndex(4)) {
            let sku =
                String((0..<3).map { _ in alphabet[random.nextIndex(26)] }) + "-"
                + String(format: "%04d", random.nextIndex(10_000))
            let tags = random.nextIndex(3) == 0 ? #","tags":["gift","fragile"]"# : ""
            lines.append(
                #"{"sku":"\#(sku)","quantity":\#(1 + random.nextIndex(20)),"price":{"amount":\#(random.nextIndex(100_000)),"currency":"\#(currency)"}\#(tags)}"#
            )
        }
        let name = names[random.nextIndex(names.count)]
        let user = name.lowercased().replacingOccurrences(of: " ", with: ".")
        let note = random.nextIndex(4) == 0 ? #""Leave at the door""# : "null"
        let updated = random.nextIndex(2) == 0 ? #""\#(date())""# : "null"
        out +=
            #"{"id":"ord_\#(token(12))","status":"\#(statuses[random.nextIndex(4)])","created":"\#(date())","updated":\#(updated),"#
            + #""customer":{"id":"cus_\#(token(10))","email":"\#(user)@example.com","name":"\#(name)","vip":\#(random.nextIndex(2) == 0)},"#
            + #""lines":[\#(lines.joined(separator: ","))],"total":{"amount":\#(random.nextIndex(1_000_000)),"currency":"\#(currency)"},"note":\#(note)}"#
    }
    out += "]"
    return Data(out.utf8)
}

// MARK: 2. Stripe instances

/// An instance generator that follows a schema of an OpenAPI 3.0 document: objects with their properties (all of
/// them near the top, the required ones deeper), arrays of 1–3 items, the first alternative of `anyOf`/`oneOf`,
/// `null` now and then where `nullable`, an enum's first value, strings of the common formats.
struct InstanceGenerator {
    let document: JSONValue
    var random: SeededGenerator
    /// Below this depth only required properties are written; at `cutDepth` nothing is nested any more.
    let fullDepth = 3
    let cutDepth = 7

    mutating func value(for schema: JSONValue, depth: Int = 0) -> JSONValue {
        var schema = schema
        var hops = 0
        while case .string(let reference)? = schema["$ref"], reference.hasPrefix("#"), hops < 64,
            let target = document.value(at: String(reference.dropFirst()).removingPercentEncoding ?? "")
        {
            schema = target
            hops += 1
        }
        // `null` only where `nullable` sits beside a `type` and no `enum`: there both readings agree. OpenAPI 3.0.3
        // says `nullable` needs a `type` beside it, and oracle.py's conversion (used for jsonschema-rs) adds "null"
        // to the type but not to an enum; apiprobe lets `null` through any nullable node (Stripe's
        // `anyOf` + `nullable` mean it so), which jsonschema-rs would then call invalid.
        if schema["nullable"] == .bool(true), schema["type"] != nil, schema["enum"] == nil,
            depth >= cutDepth || random.nextIndex(8) == 0
        {
            return .null
        }
        if case .array(let values)? = schema["enum"], let first = values.first { return first }
        for keyword in ["anyOf", "oneOf"] {
            if case .array(let alternatives)? = schema[keyword], let first = alternatives.first {
                return value(for: first, depth: depth)
            }
        }
        if case .array(let parts)? = schema["allOf"] {
            var members: [(key: String, value: JSONValue)] = []
            for part in parts {
                let made = value(for: part, depth: depth)
                guard case .object(let more) = made else { return made }
                for member in more where !members.contains(where: { $0.key == member.key }) { members.append(member) }
            }
            return .object(members)
        }
        let type = schema["type"].flatMap { if case .string(let name) = $0 { name } else { nil } }
        switch type ?? (schema["properties"] != nil ? "object" : "string") {
        case "object": return object(schema, depth: depth)
        case "array":
            guard depth < cutDepth, let items = schema["items"] else { return .array([]) }
            return .array((0..<(1 + random.nextIndex(3))).map { _ in value(for: items, depth: depth + 1) })
        case "integer":
            var low = 0
            if case .number(let literal)? = schema["minimum"], let minimum = Int(literal) { low = minimum }
            return .number(String(low + random.nextIndex(1_000_000)))
        case "number": return .number(String(format: "%.2f", Double(random.nextIndex(1_000_000)) / 100))
        case "boolean": return .bool(random.nextIndex(2) == 0)
        default: return .string(string(schema))
        }
    }

    private mutating func object(_ schema: JSONValue, depth: Int) -> JSONValue {
        var required: [String] = []
        if case .array(let names)? = schema["required"] {
            required = names.compactMap { if case .string(let name) = $0 { name } else { nil } }
        }
        var members: [(key: String, value: JSONValue)] = []
        if case .object(let properties)? = schema["properties"] {
            for (name, property) in properties where depth < fullDepth || required.contains(name) {
                members.append((name, depth < cutDepth ? value(for: property, depth: depth + 1) : .null))
            }
        }
        if case .object = schema["additionalProperties"], depth < cutDepth {
            for index in 0..<random.nextIndex(3) {
                members.append(("key_\(index)", value(for: schema["additionalProperties"]!, depth: depth + 1)))
            }
        }
        return .object(members)
    }

    private mutating func string(_ schema: JSONValue) -> String {
        let format = schema["format"].flatMap { if case .string(let name) = $0 { name } else { nil } }
        switch format {
        case "date-time": return "2020-07-\(10 + random.nextIndex(18))T12:34:56Z"
        case "date": return "2020-07-\(10 + random.nextIndex(18))"
        case "email": return "user\(random.nextIndex(1000))@example.com"
        case "uri", "url": return "https://example.com/\(random.nextIndex(1000))"
        case "uuid": return UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!.uuidString.lowercased()
        default:
            // Stripe's patterns are literal prefixes (`^/v1/charges`).
            if case .string(let pattern)? = schema["pattern"], pattern.hasPrefix("^"),
                !pattern.dropFirst().contains(where: { "\\[](){}.*+?|^$".contains($0) })
            {
                return String(pattern.dropFirst()) + "/x"
            }
            var text = "id_" + String(random.next() % 1_000_000_000, radix: 36)
            if case .number(let literal)? = schema["maxLength"], let length = Int(literal), text.count > length {
                text = String(text.prefix(length))
            }
            return text
        }
    }

    /// A copy of `instance` broken on purpose: its first required property removed, else its first property
    /// given a value of another type.
    static func broken(_ instance: JSONValue, schema: JSONValue, document: JSONValue) -> JSONValue {
        var schema = schema
        while case .string(let reference)? = schema["$ref"],
            let target = document.value(at: String(reference.dropFirst()))
        {
            schema = target
        }
        guard case .object(var members) = instance, !members.isEmpty else { return .array([.bool(true)]) }
        if case .array(let names)? = schema["required"], case .string(let first)? = names.first,
            let index = members.firstIndex(where: { $0.key == first })
        {
            members.remove(at: index)
        } else {
            members[0].value = members[0].value == .bool(true) ? .number("1") : .bool(true)
        }
        return .object(members)
    }
}

/// One operation's 200 response: its method, path template and the JSON Pointer of its schema.
struct ResponseSchema {
    var method: String
    var path: String
    var pointer: String
}

func responseSchemas(of spec: JSONValue) -> [ResponseSchema] {
    guard case .object(let paths)? = spec["paths"] else { return [] }
    var found: [ResponseSchema] = []
    for (path, item) in paths {
        guard case .object(let operations) = item else { continue }
        for (method, _) in operations where ["get", "post", "put", "patch", "delete"].contains(method) {
            let pointer =
                "/paths/\(JSONPointer.escape(path))/\(method)/responses/200/content/application~1json/schema"
            if spec.value(at: pointer) != nil {
                found.append(ResponseSchema(method: method, path: path, pointer: pointer))
            }
        }
    }
    return found
}

/// The fixture of instance `index`: the operation's request (its path parameters filled in, its required query
/// parameters given) and the instance as the 200 response's JSON body.
func fixture(_ index: Int, _ operation: ResponseSchema, body: JSONValue, spec: JSONValue) -> JSONValue {
    let definition = spec.value(at: "/paths/\(JSONPointer.escape(operation.path))/\(operation.method)")
    var parameters: [JSONValue] = []
    if case .array(let list)? = definition?["parameters"] { parameters = list }
    /// A value that fits the parameter's schema: its enum's first value, else a short word within `maxLength`.
    func value(of parameter: JSONValue?) -> String {
        if case .array(let values)? = parameter?["schema"]?["enum"], case .string(let first)? = values.first {
            return first
        }
        var text = "v\(index)"
        if case .number(let literal)? = parameter?["schema"]?["maxLength"], let length = Int(literal), length > 0 {
            text = String(text.prefix(length))
        }
        return text
    }
    var path = operation.path
    while let open = path.firstIndex(of: "{"), let close = path[open...].firstIndex(of: "}") {
        let name = String(path[path.index(after: open)..<close])
        let parameter = parameters.first { $0["in"] == .string("path") && $0["name"] == .string(name) }
        path.replaceSubrange(open...close, with: value(of: parameter))
    }
    var query: [String] = []
    for parameter in parameters where parameter["in"] == .string("query") && parameter["required"] == .bool(true) {
        guard case .string(let name)? = parameter["name"] else { continue }
        query.append("\(name)=\(value(of: parameter))")
    }
    var request: [(key: String, value: JSONValue)] = [
        ("method", .string(operation.method.uppercased())),
        ("url", .string("https://api.stripe.com\(path)\(query.isEmpty ? "" : "?" + query.joined(separator: "&"))")),
    ]
    if definition?["requestBody"]?["required"] == .bool(true) {
        request.append(("headers", .object([("Content-Type", .string("application/x-www-form-urlencoded"))])))
        request.append(("body", .string("")))
        request.append(("bodyEncoding", .string("text")))
    }
    return .object([
        ("request", .object(request)),
        (
            "response",
            .object([
                ("status", .number("200")), ("headers", .object([("Content-Type", .string("application/json"))])),
                ("body", body),
            ])
        ),
    ])
}

// MARK: The run

func write(_ data: Data, _ name: String) -> String {
    let url = workFolder.appendingPathComponent(name)
    do { try data.write(to: url) } catch { fail("\(url.path): \(error)") }
    return url.path
}

func parse(_ data: Data, _ what: String) -> JSONValue {
    do { return try JSONValue(parsing: data) } catch { fail("\(what): \(error)") }
}

func ms(_ seconds: Double) -> String { format(seconds * 1000, 1) + " ms" }

/// With --profile, the apiprobe side of one workload alone (for a profiler): its times, then the end.
func profiled(_ times: [Double]) -> Never {
    print(
        "   apiprobe alone (--profile): median \(ms(median(times))), rounds "
            + times.map { ms($0) }.joined(separator: ", "))
    if !CommandLine.arguments.contains("--keep") { try? FileManager.default.removeItem(at: workFolder) }
    exit(0)
}

/// Workload 1; whether its target is met.
func generatedWorkload(_ python: String) -> Bool {
    print(
        "1. Generated: \(megabytes) MB array of orders, 2020-12 schema ($ref, allOf, pattern, format, unevaluatedProperties)"
    )
    let schemaData = Data(generatedSchema.utf8)
    let instanceData = generatedOrders(bytes: megabytes * 1_000_000)
    let schemaPath = write(schemaData, "generated.schema.json")
    let instancePath = write(instanceData, "generated.instance.json")
    let schema: JSONSchema
    do { schema = try JSONSchema(parse(schemaData, "schema")) } catch { fail("the generated schema: \(error)") }
    let instance = parse(instanceData, "instance")
    let reference = python.isEmpty ? nil : ReferenceRounds(python, ["generated", schemaPath, instancePath])
    var valid = false
    var limitErrors = 0
    let (apiprobe, times, answers) = alternate(reference) {
        do { valid = try schema.isValid(instance) } catch { limitErrors += 1 }
    }
    if python.isEmpty { profiled(apiprobe) }
    let swiftPeak = peakResidentMiB()
    let last = reference!.finish()
    let pythonValid = answers.allSatisfy { $0["valid"] == .bool(true) }
    print(
        "   format assertion: apiprobe assertsFormat = true (its default); jsonschema-rs validate_formats=True "
            + "(\(text(reference!.setup, "validator")), jsonschema-rs \(text(last, "jsonschema_rs")))")
    print(
        "   verdicts: apiprobe \(valid ? "valid" : "invalid")\(limitErrors > 0 ? " (limit errors)" : ""), "
            + "jsonschema-rs \(pythonValid ? "valid" : "invalid")\(pythonValid == valid ? "" : "  DISAGREE")")
    let ratio = report(megabytes: Double(instanceData.count) / 1e6, apiprobe: apiprobe, python: times)
    print(
        "   peak memory: apiprobe process \(format(swiftPeak, 0)) MiB; jsonschema-rs process "
            + "\(format(number(last, "peakMiB"), 0)) MiB")
    return ratio >= 1.0 && pythonValid == valid
}

/// Workload 2: whether its target is met, and the instances for workload 3.
func stripeWorkload(_ python: String) -> (
    met: Bool, spec: JSONValue, schemas: [ResponseSchema], instances: [(Int, JSONValue)]
) {
    print("2. Stripe: \(specPath)")
    guard let specData = FileManager.default.contents(atPath: specPath) else { fail("\(specPath): not readable") }
    let spec = parse(specData, specPath)
    let schemas = responseSchemas(of: spec)
    guard !schemas.isEmpty else { fail("\(specPath): no 200 JSON response schemas") }
    var generator = InstanceGenerator(document: spec, random: SeededGenerator(seed: 2_020_07))
    var made: [JSONValue] = []
    var broken = 0
    for index in 0..<instanceCount {
        let operation = schemas[index % schemas.count]
        let schema = spec.value(at: operation.pointer)!
        var instance = generator.value(for: schema)
        if index % 25 == 12 {
            instance = InstanceGenerator.broken(instance, schema: schema, document: spec)
            broken += 1
        }
        made.append(.array([.number(String(index % schemas.count)), instance]))
    }
    let file = JSONValue.object([
        ("pointers", .array(schemas.map { .string($0.pointer) })), ("instances", .array(made)),
    ]).serialized()
    let instancesPath = write(file, "stripe.instances.json")
    // Both sides validate what they parse from the same bytes.
    guard case .array(let parsed)? = parse(file, "instances")["instances"] else { fail("instances") }
    let instances: [(Int, JSONValue)] = parsed.map { pair in
        guard case .array(let items) = pair, case .number(let literal) = items[0] else { fail("instances") }
        return (Int(literal)!, items[1])
    }
    print(
        "   \(schemas.count) response schemas, \(instances.count) instances (\(broken) broken on purpose), "
            + "\(format(Double(file.count) / 1e6, 1)) MB")

    var options = SchemaOptions()
    options.defaultDialect = .openAPI30
    options.direction = .response
    options.checksAgainstMetaschema = false
    options.baseURI = "apiprobe:///openapi.json"
    let compiled: [JSONSchema]
    let compileStart = now()
    do {
        compiled = try JSONSchema.compile(document: spec, pointers: schemas.map(\.pointer), options: options)
    } catch { fail("compiling \(specPath): \(error)") }
    let compileSeconds = now() - compileStart
    let reference = python.isEmpty ? nil : ReferenceRounds(python, ["stripe", specPath, instancesPath])
    var verdicts: [Bool] = []
    var limitErrors = 0
    let (apiprobe, times, answers) = alternate(reference) {
        let keep = verdicts.isEmpty
        for (index, instance) in instances {
            let verdict: Bool
            do { verdict = try compiled[index].isValid(instance) } catch {
                if keep { limitErrors += 1 }
                verdict = false
            }
            if keep { verdicts.append(verdict) }
        }
    }
    if python.isEmpty { profiled(apiprobe) }
    let swiftPeak = peakResidentMiB()
    let last = reference!.finish()
    let pythonVerdicts = Array(text(answers[0], "verdicts").utf8).map { $0 == UInt8(ascii: "1") }
    var disagreements: [Int] = []
    for index in verdicts.indices where index >= pythonVerdicts.count || pythonVerdicts[index] != verdicts[index] {
        disagreements.append(index)
    }
    print(
        "   format assertion: apiprobe assertsFormat = true (its default); jsonschema-rs validate_formats=True "
            + "(\(text(reference!.setup, "validator")))")
    print("   apiprobe compiled the \(schemas.count) schemas together in \(ms(compileSeconds)) (not timed below)")
    print(
        "   verdicts: apiprobe \(verdicts.count { $0 }) valid, \(verdicts.count { !$0 }) invalid"
            + (limitErrors > 0 ? " (\(limitErrors) limit errors)" : "")
            + "; jsonschema-rs \(pythonVerdicts.count { $0 }) valid, \(pythonVerdicts.count { !$0 }) invalid; "
            + "disagreements: \(disagreements.count)")
    // The reporting path (`validate`, which the tool's commands print) must give a reason for every invalid one.
    var unexplained = 0
    for (index, (schema, instance)) in instances.enumerated() where index < verdicts.count && !verdicts[index] {
        if (try? compiled[schema].validate(instance).isEmpty) == true { unexplained += 1 }
    }
    print(
        "   apiprobe's validate() gives errors for every invalid instance: \(unexplained == 0 ? "yes" : "NO, \(unexplained) without")"
    )
    for index in disagreements.prefix(5) {
        let (schema, _) = instances[index]
        print(
            "     instance \(index) (\(schemas[schema].method.uppercased()) \(schemas[schema].path)): apiprobe "
                + "\(verdicts[index]), jsonschema-rs \(index < pythonVerdicts.count ? "\(pythonVerdicts[index])" : "none")"
        )
    }
    let ratio = report(megabytes: Double(file.count) / 1e6, apiprobe: apiprobe, python: times)
    print(
        "   peak memory: apiprobe process \(format(swiftPeak, 0)) MiB (both workloads so far); jsonschema-rs process "
            + "\(format(number(last, "peakMiB"), 0)) MiB")
    return (ratio >= 1.0 && disagreements.isEmpty && unexplained == 0, spec, schemas, instances)
}

/// Workload 3; whether its target is met (not, when the tool is not built).
func checkWorkload(
    _ python: String, spec: JSONValue, schemas: [ResponseSchema], instances: [(Int, JSONValue)]
) -> Bool {
    print("3. Process against process: `apiprobe openapi check` over \(fixtureCount) fixtures")
    guard FileManager.default.isExecutableFile(atPath: binary) else {
        print(
            "   skipped: \(binary) is not built (swift build -c release --product apiprobe, or --binary PATH)")
        return false
    }
    let folder = workFolder.appendingPathComponent("stubs")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var bytes = 0
    for index in 0..<fixtureCount {
        let (schema, body) = instances[index % instances.count]
        let data = fixture(index, schemas[schema], body: body, spec: spec).serialized(pretty: true)
        bytes += data.count
        _ = write(data, "stubs/\(String(format: "%05d", index)).json")
    }
    print("   \(fixtureCount) fixtures, \(format(Double(bytes) / 1e6, 1)) MB in \(folder.path)")
    let specFile = URL(fileURLWithPath: specPath).standardizedFileURL.path
    var apiprobeRuns: [ChildRun] = []
    var pythonRuns: [ChildRun] = []
    var pythonResult = JSONValue.null
    for _ in 0..<3 {
        let tool = run(binary, ["openapi", "check", specFile, "--stubs", folder.path, "--format", "json"])
        guard tool.status == 0 || tool.status == 1 else { fail("\(binary) openapi check exited \(tool.status)") }
        apiprobeRuns.append(tool)
        let (child, result) = reference(python, ["check", specFile, folder.path])
        pythonRuns.append(child)
        pythonResult = result
    }
    let report = try? JSONValue(parsing: apiprobeRuns[0].output)
    var violations = 0
    var failing = Set<String>()
    if case .array(let items)? = report?["violations"] {
        violations = items.count
        for item in items { if case .string(let file)? = item["file"] { failing.insert(file) } }
    }
    print(
        "   apiprobe: \(failing.count) fixtures with violations (\(violations) violations); python: "
            + "\(Int(number(pythonResult, "failing"))) fixtures failing (\(Int(number(pythonResult, "violations"))) "
            + "errors), \(Int(number(pythonResult, "unmatched"))) unmatched")
    let tool = median(apiprobeRuns.map(\.seconds))
    let script = median(pythonRuns.map(\.seconds))
    print(
        "   wall time (median of 3, alternating): apiprobe \(format(tool, 2)) s (runs "
            + apiprobeRuns.map { format($0.seconds, 2) }.joined(separator: ", ") + "), python + jsonschema-rs "
            + "\(format(script, 2)) s (runs " + pythonRuns.map { format($0.seconds, 2) }.joined(separator: ", ") + ")")
    print("   ratio (python time / apiprobe time): \(format(script / tool, 2))× (target ≥ 1.0)")
    print(
        "   peak memory: apiprobe \(format(apiprobeRuns.map(\.peakMiB).max() ?? 0, 0)) MiB; python "
            + "\(format(pythonRuns.map(\.peakMiB).max() ?? 0, 0)) MiB (its own getrusage: "
            + "\(format(number(pythonResult, "peakMiB"), 0)) MiB)")
    return script / tool >= 1.0 && failing.count == Int(number(pythonResult, "failing"))
}

/// 0. Patterns: `ECMARegex`'s automaton against ICU (the engine it answers for regular patterns; the same
/// translation as before), on the generated schema's patterns and `serve`'s path patterns, alternated. True when the
/// automaton is not slower on any.
func patternWorkload() -> Bool {
    let cases: [(pattern: String, text: String)] = [
        ("^cus_[A-Za-z0-9]{10}$", "cus_A1b2C3d4E5"), ("^[a-z]{3}$", "usd"), ("^[A-Z]{3}-[0-9]{4}$", "ABC-1234"),
        ("^/items/10(/details)?$", "/items/100"), ("^/items/10(/details)?$", "/items/10/details"),
        ("[0-9]+-[a-z]+", "an order 123-abc in a longer sentence"), ("^.+@.+\\..+$", "someone@example.com"),
    ]
    let matches = 50_000
    print("0. Patterns: ECMARegex's automaton against ICU, \(matches) matches a round, \(rounds) rounds alternated")
    var slowest = Double.infinity
    for (pattern, text) in cases {
        guard let regex = try? ECMARegex(pattern) else { fail("\(pattern) does not compile") }
        var ours: [Double] = []
        var icu: [Double] = []
        for _ in 0..<rounds {
            var start = ContinuousClock.now
            var found = 0
            for _ in 0..<matches where (try? regex.matches(text)) == true { found += 1 }
            ours.append(seconds(ContinuousClock.now - start))
            start = ContinuousClock.now
            var icuFound = 0
            for _ in 0..<matches where (try? regex.matchesWithICU(text)) == true {
                icuFound += 1
            }
            icu.append(seconds(ContinuousClock.now - start))
            guard found == icuFound else { fail("\(pattern) on \(text): the engines disagree") }
        }
        let ratio = median(icu) / median(ours)
        slowest = min(slowest, ratio)
        print(
            "   \(pattern) on \"\(text)\": automaton \(format(median(ours) / Double(matches) * 1e9, 0)) ns, ICU "
                + "\(format(median(icu) / Double(matches) * 1e9, 0)) ns a match; \(format(ratio, 2))× "
                + "(automaton searched: \(regex.searchesByAutomaton))")
    }
    print("   slowest ratio \(format(slowest, 2))× (target ≥ 1.0: the automaton no slower than ICU)")
    return slowest >= 1.0
}

let thread = Thread {
    do { try FileManager.default.createDirectory(at: workFolder, withIntermediateDirectories: true) } catch {
        fail("\(workFolder.path): \(error)")
    }
    if CommandLine.arguments.contains("--patterns") {
        exit(patternWorkload() ? 0 : 1)
    }
    let profile = option("--profile")
    let python = profile == nil ? findPython() : ""
    print("python: \(python); rounds: \(rounds)")
    let patternsMet = profile != nil || patternWorkload()
    let generatedMet = profile == "stripe" || generatedWorkload(python)
    let (stripeMet, spec, schemas, instances) = stripeWorkload(python)
    let checkMet = checkWorkload(python, spec: spec, schemas: schemas, instances: instances)
    print(String(format: "peak memory of this process: %.0f MiB", peakResidentMiB()))
    print(
        "targets: patterns \(patternsMet ? "met" : "NOT met"), generated \(generatedMet ? "met" : "NOT met"), Stripe \(stripeMet ? "met" : "NOT met"), "
            + "openapi check \(checkMet ? "met" : "NOT met")")
    if CommandLine.arguments.contains("--keep") {
        print("kept the schemas, instances and fixtures in \(workFolder.path)")
    } else {
        try? FileManager.default.removeItem(at: workFolder)
    }
    exit(generatedMet && stripeMet && checkMet ? 0 : 1)
}
thread.stackSize = 256 << 20
thread.start()
while true { sleep(60) }
