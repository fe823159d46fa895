import APIProbeShared
import Foundation
import JSONShape

/// SplitMix64: a seeded generator; tests print the seed so a failure can be replayed.

/// Random JSON documents over a small vocabulary, so samples overlap the way an API's responses do.
struct RandomJSON {
    var rng: SeededGenerator
    let keys = ["id", "name", "url", "when", "day", "tags", "owner", "count", "rank", "items", "mail", "key"]
    let strings = [
        "plain", "2026-11-22T18:00:00Z", "2026-11-22", "https://example.com/a", "0b0e5a4c-93f5-4f0e-9d63-1c1e4e7a2b10",
        "cook@example.com", "with \\\"quote\\\"", "caf\\u00e9",
    ]

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    mutating func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }

    mutating func document() -> String { value(depth: 0) }

    mutating func value(depth: Int) -> String {
        let limit = depth >= 4 ? 6 : 9
        switch pick(limit) {
        case 0: return "null"
        case 1: return pick(2) == 0 ? "true" : "false"
        case 2: return String(Int(rng.next() % 1000) - 500)
        case 3: return pick(2) == 0 ? "\(pick(100)).5" : "1e3"
        case 4, 5: return "\"\(strings[pick(strings.count)])\""
        case 6, 7:
            var members: [String] = []
            let dynamic = pick(6) == 0
            for _ in 0..<pick(5) {
                let key = dynamic ? String(pick(1000)) : keys[pick(keys.count)]
                members.append("\"\(key)\": \(value(depth: depth + 1))")
            }
            return "{" + members.joined(separator: ", ") + "}"
        default:
            var items: [String] = []
            for _ in 0..<pick(4) { items.append(value(depth: depth + 1)) }
            return "[" + items.joined(separator: ",") + "]"
        }
    }
}

func infer(_ text: String, enums: Bool = false) throws -> ShapeNode {
    try ShapeNode.infer(from: Data(text.utf8), options: InferenceOptions(detectsEnums: enums))
}

func inferAll(_ texts: [String], enums: Bool = false) throws -> ShapeNode {
    var inference = ShapeInference(options: InferenceOptions(detectsEnums: enums))
    for text in texts { try inference.addSample(Data(text.utf8)) }
    return inference.shape
}

func seedFromEnvironment() -> UInt64 {
    if let text = ProcessInfo.processInfo.environment["APIPROBE_SEED"], let seed = UInt64(text) { return seed }
    return UInt64.random(in: 1...UInt64.max)
}
