import Foundation

/// A small JSON document model for the files JSONShape reads whole (snapshots, usage manifests) and writes.
indirect enum JSONTree: Hashable {
    case null
    case bool(Bool)
    /// A number as its literal text.
    case number(String)
    case string(String)
    case array([JSONTree])
    /// Members in document order.
    case object([(String, JSONTree)])

    static func == (lhs: JSONTree, rhs: JSONTree) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: return false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(b)
        case .number(let n): hasher.combine(n)
        case .string(let s): hasher.combine(s)
        case .array(let items): hasher.combine(items)
        case .object(let members):
            for (key, value) in members {
                hasher.combine(key)
                hasher.combine(value)
            }
        }
    }

    var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return "boolean \(b)"
        case .number(let n): return "number \(n)"
        case .string(let s): return "string \"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Parses a file's bytes; errors name `file`.
    static func parse(_ data: Data, file: String) throws(JSONShapeError) -> JSONTree {
        let result: Result<JSONTree, JSONShapeError> = data.withUnsafeBytes { raw in
            do throws(JSONShapeError) {
                return .success(try JSONTree.parse(raw.bindMemory(to: UInt8.self)))
            } catch {
                return .failure(error.inFile(file))
            }
        }
        return try result.get()
    }

    /// Parses a document, with an explicit stack (no recursion) and line:column errors.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int = 2_048) throws(JSONShapeError) -> JSONTree
    {
        var cursor = Cursor(bytes: bytes, firstLine: 1)
        enum Container {
            case array([JSONTree])
            case object([(String, JSONTree)], key: String)
        }
        var stack: [Container] = []
        valueLoop: while true {
            guard let c = cursor.peekPastWhitespace() else { throw cursor.error(expected: "a JSON value") }
            var value: JSONTree
            switch c {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard stack.count < maximumDepth else { throw cursor.depthError(maximumDepth) }
                cursor.index += 1
                cursor.skipWhitespace()
                if c == UInt8(ascii: "[") {
                    if cursor.peek() == UInt8(ascii: "]") {
                        cursor.index += 1
                        value = .array([])
                    } else {
                        stack.append(.array([]))
                        continue valueLoop
                    }
                } else if cursor.peek() == UInt8(ascii: "}") {
                    cursor.index += 1
                    value = .object([])
                } else {
                    stack.append(.object([], key: try readKey(&cursor)))
                    continue valueLoop
                }
            case UInt8(ascii: "\""):
                let (start, end, escaped) = try cursor.scanString()
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<end])
                value = .string(
                    escaped
                        ? String(decoding: unescapeJSONString(raw), as: UTF8.self)
                        : String(decoding: raw, as: UTF8.self)
                )
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = cursor.index
                _ = try cursor.scanNumber()
                value = .number(
                    String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<cursor.index]), as: UTF8.self)
                )
            case UInt8(ascii: "t"):
                try cursor.scanLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try cursor.scanLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try cursor.scanLiteral("null")
                value = .null
            default:
                throw cursor.error(expected: "a JSON value")
            }
            while true {
                guard let top = stack.popLast() else {
                    if cursor.peekPastWhitespace() != nil { throw cursor.error(expected: "the end of the document") }
                    return value
                }
                cursor.skipWhitespace()
                switch top {
                case .array(var items):
                    items.append(value)
                    switch cursor.peek() {
                    case UInt8(ascii: ","):
                        cursor.index += 1
                        stack.append(.array(items))
                        continue valueLoop
                    case UInt8(ascii: "]"):
                        cursor.index += 1
                        value = .array(items)
                    default:
                        throw cursor.error(expected: "',' or ']'")
                    }
                case .object(var members, let key):
                    members.append((key, value))
                    switch cursor.peek() {
                    case UInt8(ascii: ","):
                        cursor.index += 1
                        stack.append(.object(members, key: try readKey(&cursor)))
                        continue valueLoop
                    case UInt8(ascii: "}"):
                        cursor.index += 1
                        value = .object(members)
                    default:
                        throw cursor.error(expected: "',' or '}'")
                    }
                }
            }
        }
    }

    private static func readKey(_ cursor: inout Cursor) throws(JSONShapeError) -> String {
        guard cursor.peekPastWhitespace() == UInt8(ascii: "\"") else { throw cursor.error(expected: "a string key") }
        let (start, end, escaped) = try cursor.scanString()
        let raw = UnsafeBufferPointer(rebasing: cursor.bytes[start..<end])
        let key =
            escaped ? String(decoding: unescapeJSONString(raw), as: UTF8.self) : String(decoding: raw, as: UTF8.self)
        guard cursor.peekPastWhitespace() == UInt8(ascii: ":") else { throw cursor.error(expected: "':'") }
        cursor.index += 1
        return key
    }

    /// Writes the tree: keys sorted by their UTF-8 bytes, two-space indent, no trailing newline.
    func write(into out: inout [UInt8], indent: Int = 0) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.utf8)
        case .string(let s): JSONTree.writeString(s, into: &out)
        case .array(let items):
            guard !items.isEmpty else {
                out.append(contentsOf: "[]".utf8)
                return
            }
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONTree.newline(&out, indent + 1)
                item.write(into: &out, indent: indent + 1)
            }
            JSONTree.newline(&out, indent)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else {
                out.append(contentsOf: "{}".utf8)
                return
            }
            out.append(UInt8(ascii: "{"))
            let sorted = members.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            for (index, member) in sorted.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONTree.newline(&out, indent + 1)
                JSONTree.writeString(member.0, into: &out)
                out.append(contentsOf: ": ".utf8)
                member.1.write(into: &out, indent: indent + 1)
            }
            JSONTree.newline(&out, indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The document as file bytes: sorted keys, two-space indent, trailing newline.
    var fileBytes: [UInt8] {
        var out: [UInt8] = []
        write(into: &out)
        out.append(0x0A)
        return out
    }

    private static func newline(_ out: inout [UInt8], _ indent: Int) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0..<0x20:
                let hex = String(c, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            default: out.append(c)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    subscript(key: String) -> JSONTree? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.0 == key })?.1
    }
}
