import APIProbeShared

/// A single pass over the bytes of one JSON document that merges every value into a ``ShapeNode`` tree
/// as it goes: no document tree is built, nesting is kept on an explicit stack (never the call stack).
struct StreamingReader {
    let options: InferenceOptions
    private var stamp = 0

    init(options: InferenceOptions) {
        self.options = options
    }

    private struct Frame {
        let node: ShapeNode
        let isObject: Bool
        let stamp: Int
        var position = 0
        var count = 0
        var allDynamic = true
    }

    /// Reads one document from `bytes` into `root`.
    ///
    /// - Parameters:
    ///   - firstLine: the line number of the first byte, for errors (JSON Lines).
    /// - Throws: ``JSONShapeError`` with the line and column of the first syntax error.
    mutating func read(_ bytes: UnsafeBufferPointer<UInt8>, into root: ShapeNode, firstLine: Int = 1)
        throws(JSONShapeError)
    {
        var cursor = Cursor(bytes: bytes, firstLine: firstLine)
        var stack: [Frame] = []
        var target = root
        let tracksEnums = options.detectsEnums

        valueLoop: while true {
            cursor.skipWhitespace()
            guard let c = cursor.peek() else { throw cursor.error(expected: "a JSON value") }
            switch c {
            case UInt8(ascii: "{"):
                guard stack.count < options.maximumDepth else { throw cursor.depthError(options.maximumDepth) }
                cursor.index += 1
                target.types.insert(.object)
                target.objectCount += 1
                stamp &+= 1
                var frame = Frame(node: target, isObject: true, stamp: stamp)
                cursor.skipWhitespace()
                if cursor.peek() == UInt8(ascii: "}") {
                    cursor.index += 1
                } else {
                    target = try readKey(&cursor, &frame, tracksEnums: tracksEnums)
                    stack.append(frame)
                    continue valueLoop
                }
            case UInt8(ascii: "["):
                guard stack.count < options.maximumDepth else { throw cursor.depthError(options.maximumDepth) }
                cursor.index += 1
                target.types.insert(.array)
                cursor.skipWhitespace()
                if cursor.peek() == UInt8(ascii: "]") {
                    cursor.index += 1
                } else {
                    stack.append(Frame(node: target, isObject: false, stamp: 0))
                    target = target.itemsNode(tracksEnums: tracksEnums)
                    continue valueLoop
                }
            case UInt8(ascii: "\""):
                let (start, end, escaped) = try cursor.scanString()
                noteString(target, bytes: bytes, start: start, end: end, escaped: escaped)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let isInteger = try cursor.scanNumber()
                target.types.insert(isInteger ? .integer : .number)
            case UInt8(ascii: "t"):
                try cursor.scanLiteral("true")
                target.types.insert(.boolean)
            case UInt8(ascii: "f"):
                try cursor.scanLiteral("false")
                target.types.insert(.boolean)
            case UInt8(ascii: "n"):
                try cursor.scanLiteral("null")
                target.types.insert(.null)
            default:
                throw cursor.error(expected: "a JSON value")
            }

            // After a complete value: close containers, or move to the next member or item.
            while true {
                guard !stack.isEmpty else {
                    cursor.skipWhitespace()
                    if cursor.peek() != nil { throw cursor.error(expected: "the end of the document") }
                    return
                }
                cursor.skipWhitespace()
                let last = stack.count - 1
                if stack[last].isObject {
                    switch cursor.peek() {
                    case UInt8(ascii: ","):
                        cursor.index += 1
                        target = try readKey(&cursor, &stack[last], tracksEnums: tracksEnums)
                        continue valueLoop
                    case UInt8(ascii: "}"):
                        cursor.index += 1
                        finishObject(stack.removeLast())
                    default:
                        throw cursor.error(expected: "',' or '}'")
                    }
                } else {
                    switch cursor.peek() {
                    case UInt8(ascii: ","):
                        cursor.index += 1
                        target = stack[last].node.itemsNode(tracksEnums: tracksEnums)
                        continue valueLoop
                    case UInt8(ascii: "]"):
                        cursor.index += 1
                        stack.removeLast()
                    default:
                        throw cursor.error(expected: "',' or ']'")
                    }
                }
            }
        }
    }

    /// Reads `"key" :` and returns the node the member's value merges into.
    private func readKey(_ cursor: inout Cursor, _ frame: inout Frame, tracksEnums: Bool) throws(JSONShapeError)
        -> ShapeNode
    {
        cursor.skipWhitespace()
        guard cursor.peek() == UInt8(ascii: "\"") else { throw cursor.error(expected: "a string key") }
        let (start, end, escaped) = try cursor.scanString()
        cursor.skipWhitespace()
        guard cursor.peek() == UInt8(ascii: ":") else { throw cursor.error(expected: "':'") }
        cursor.index += 1
        frame.count += 1
        let node = frame.node
        if let map = node.mapValue { return map }

        let bytes = cursor.bytes
        let length = end - start
        var found: PropertySlot?
        if frame.position < node.order.count {
            let candidate = node.order[frame.position]
            if candidate.bytes.count == length,
                candidate.bytes.withUnsafeBufferPointer({ own in
                    memoryEqual(own.baseAddress, bytes.baseAddress.map { $0 + start }, length)
                })
            {
                found = candidate
            }
        }
        let slot: PropertySlot
        if let found {
            slot = found
        } else {
            let raw = UnsafeBufferPointer(rebasing: bytes[start..<end])
            let key =
                escaped
                ? String(decoding: unescapeJSONString(raw), as: UTF8.self) : String(decoding: raw, as: UTF8.self)
            if let existing = node.slots[key] {
                slot = existing
            } else {
                slot = PropertySlot(
                    key: key,
                    bytes: Array(raw),
                    node: ShapeNode(tracksEnums: tracksEnums),
                    index: node.order.count
                )
                node.slots[key] = slot
                node.order.append(slot)
            }
        }
        frame.position = slot.index + 1
        if slot.stamp != frame.stamp {
            slot.stamp = frame.stamp
            slot.presentCount += 1
        }
        if frame.allDynamic && !slot.isDynamicKey { frame.allDynamic = false }
        return slot.node
    }

    private func finishObject(_ frame: Frame) {
        let node = frame.node
        guard node.mapValue == nil else { return }
        if options.detectsMaps && frame.count > 0 && frame.allDynamic {
            node.collapseToMap(options: options)
        } else if node.order.count > options.maximumProperties {
            node.collapseToMap(options: options)
        }
    }

    private func noteString(_ node: ShapeNode, bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int, escaped: Bool) {
        let first = !node.types.contains(.string)
        let needsFormat = first || node.format != nil
        let needsValue = node.enumSet != nil
        guard needsFormat || needsValue || first else { return }
        let raw = UnsafeBufferPointer(rebasing: bytes[start..<end])
        let decoded: [UInt8]? = escaped ? unescapeJSONString(raw) : nil
        func withText<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            if let decoded { return decoded.withUnsafeBufferPointer(body) }
            return body(raw)
        }
        if first {
            node.types.insert(.string)
            node.format = withText { StringFormat.detect(inUTF8: $0) }
        } else if let format = node.format, withText({ StringFormat.detect(inUTF8: $0) }) != format {
            node.format = nil
        }
        if needsValue, var set = node.enumSet {
            node.enumSet = nil  // keep the set uniquely referenced while inserting
            set.insert(withText { String(decoding: $0, as: UTF8.self) })
            node.enumSet = set.count <= options.maximumEnumValues ? set : nil
        }
    }
}

@inline(__always)
private func memoryEqual(_ a: UnsafePointer<UInt8>?, _ b: UnsafePointer<UInt8>?, _ count: Int) -> Bool {
    guard count > 0 else { return true }
    guard let a, let b else { return false }
    for i in 0..<count where a[i] != b[i] { return false }
    return true
}

/// Position in the input, scanning primitives, and errors with line and column.
struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    let firstLine: Int
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, firstLine: Int) {
        self.bytes = bytes
        self.firstLine = firstLine
    }

    @inline(__always) func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    @inline(__always) mutating func skipWhitespace() {
        while index < bytes.count {
            let c = bytes[index]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            index += 1
        }
    }

    /// Scans a string starting at its opening quote; returns the content's bounds and whether it has escapes.
    mutating func scanString() throws(JSONShapeError) -> (Int, Int, Bool) {
        index += 1
        let start = index
        var escaped = false
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                return (start, index - 1, escaped)
            }
            if c == UInt8(ascii: "\\") {
                escaped = true
                index += 1
                guard let e = peek() else { break }
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 1
                case UInt8(ascii: "u"):
                    index += 1
                    for _ in 0..<4 {
                        guard let h = peek(), StringFormat.isHex(h) else {
                            throw error(expected: "four hexadecimal digits after \\u")
                        }
                        index += 1
                    }
                default:
                    throw error(expected: "an escape (\\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\u)")
                }
                continue
            }
            if c < 0x20 { throw error(expected: "'\"' or a character (control characters must be escaped)") }
            if c >= 0x80 {
                // RFC 8259 §8.1: text is UTF-8; an invalid sequence is an error at its place, never a U+FFFD.
                guard let length = UTF8Validation.sequenceLength(in: bytes, at: index) else {
                    throw error(expected: "valid UTF-8 (RFC 8259)")
                }
                index += length
                continue
            }
            index += 1
        }
        throw error(expected: "'\"' closing the string")
    }

    /// Scans a number; returns whether it is an integer (no fraction, no exponent).
    mutating func scanNumber() throws(JSONShapeError) -> Bool {
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), StringFormat.isDigit(first) else { throw error(expected: "a digit") }
        index += 1
        if first != UInt8(ascii: "0") {
            while let c = peek(), StringFormat.isDigit(c) { index += 1 }
        }
        var isInteger = true
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let c = peek(), StringFormat.isDigit(c) else { throw error(expected: "a digit after '.'") }
            while let c = peek(), StringFormat.isDigit(c) { index += 1 }
        }
        if let e = peek(), e | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard let c = peek(), StringFormat.isDigit(c) else { throw error(expected: "a digit in the exponent") }
            while let c = peek(), StringFormat.isDigit(c) { index += 1 }
        }
        return isInteger
    }

    mutating func scanLiteral(_ literal: StaticString) throws(JSONShapeError) {
        let start = index
        let count = literal.utf8CodeUnitCount
        let text = literal.utf8Start
        for offset in 0..<count {
            guard let c = peek(), c == text[offset] else {
                index = start
                throw error(expected: "a JSON value")
            }
            index += 1
        }
    }

    func depthError(_ limit: Int) -> JSONShapeError {
        var error = error(expected: "at most \(limit) levels of nested arrays and objects")
        error.found = "deeper nesting"
        return error
    }

    /// An error at the current index: line and column, and what is there.
    func error(expected: String) -> JSONShapeError {
        var line = firstLine
        var lineStart = 0
        let end = min(index, bytes.count)
        for i in 0..<end where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        return JSONShapeError(
            location: .lineColumn(line: line, column: end - lineStart + 1),
            expected: expected,
            found: describeByte(at: index)
        )
    }

    private func describeByte(at position: Int) -> String {
        guard position < bytes.count else { return "the end of the input" }
        let c = bytes[position]
        switch c {
        case 0x0A: return "a line break"
        case 0x09: return "a tab"
        case 0x20..<0x7F: return "'\(Character(Unicode.Scalar(c)))'"
        default: return "byte 0x" + String(c, radix: 16, uppercase: true)
        }
    }
}

/// The UTF-8 bytes of a JSON string's content with its escapes resolved (the content was validated).
func unescapeJSONString(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(raw.count)
    var i = 0
    func hex4(_ at: Int) -> UInt32 {
        var value: UInt32 = 0
        for k in at..<min(at + 4, raw.count) {
            let c = raw[k]
            let digit: UInt32 = c <= 57 ? UInt32(c &- 48) : UInt32((c | 0x20) &- 87)
            value = value << 4 | digit
        }
        return value
    }
    while i < raw.count {
        let c = raw[i]
        guard c == UInt8(ascii: "\\"), i + 1 < raw.count else {
            out.append(c)
            i += 1
            continue
        }
        let e = raw[i + 1]
        i += 2
        switch e {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = hex4(i)
            i += 4
            if (0xD800..<0xDC00).contains(scalar), i + 5 < raw.count, raw[i] == UInt8(ascii: "\\"),
                raw[i + 1] == UInt8(ascii: "u")
            {
                let low = hex4(i + 2)
                if (0xDC00..<0xE000).contains(low) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
            }
            let value = Unicode.Scalar(scalar) ?? "\u{FFFD}"
            out.append(contentsOf: String(Character(value)).utf8)
        default: out.append(e)
        }
    }
    return out
}
