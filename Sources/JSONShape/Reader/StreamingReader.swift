import APIProbeShared
import Foundation

/// A single pass over the bytes of one JSON document that merges every value into a ``ShapeStore`` as it
/// goes: no document tree is built, nesting is kept on an explicit stack (never the call stack).
struct StreamingReader {
    let options: InferenceOptions

    init(options: InferenceOptions) {
        self.options = options
    }

    private struct Frame {
        let node: Int32
        let isObject: Bool
        let stamp: Int
        /// The slot of the last key read in this object; `-1` before the first.
        var previousSlot: Int32 = -1
        var count = 0
        var allDynamic = true
    }

    /// Reads one document from `bytes` into the store's root.
    ///
    /// - Parameters:
    ///   - firstLine: the line number of the first byte, for errors (JSON Lines).
    /// - Throws: ``JSONShapeError`` with the line and column of the first syntax error.
    func read(_ bytes: UnsafeBufferPointer<UInt8>, into store: inout ShapeStore, firstLine: Int = 1)
        throws(JSONShapeError)
    {
        var cursor = Cursor(bytes: bytes, firstLine: firstLine)
        try read(&cursor, into: &store)
    }

    /// Reads one document streamed from `source` into the store's root, in about one chunk of memory.
    func read(_ source: ByteSource, into store: inout ShapeStore) throws(JSONShapeError) {
        var cursor = Cursor(source: source)
        try read(&cursor, into: &store)
    }

    private func read(_ cursor: inout Cursor, into store: inout ShapeStore) throws(JSONShapeError) {
        var stack: [Frame] = []
        var target = ShapeStore.root

        valueLoop: while true {
            cursor.skipWhitespace()
            guard let c = cursor.peek() else { throw cursor.error(expected: "a JSON value") }
            switch c {
            case UInt8(ascii: "{"):
                guard stack.count < options.maximumDepth else { throw cursor.depthError(options.maximumDepth) }
                cursor.index += 1
                store.nodes[Int(target)].types.insert(.object)
                store.nodes[Int(target)].objectCount += 1
                store.stamp &+= 1
                var frame = Frame(node: target, isObject: true, stamp: store.stamp)
                cursor.skipWhitespace()
                if cursor.peek() == UInt8(ascii: "}") {
                    cursor.index += 1
                } else {
                    target = try readKey(&cursor, &frame, &store)
                    stack.append(frame)
                    continue valueLoop
                }
            case UInt8(ascii: "["):
                guard stack.count < options.maximumDepth else { throw cursor.depthError(options.maximumDepth) }
                cursor.index += 1
                store.nodes[Int(target)].types.insert(.array)
                cursor.skipWhitespace()
                if cursor.peek() == UInt8(ascii: "]") {
                    cursor.index += 1
                } else {
                    stack.append(Frame(node: target, isObject: false, stamp: 0))
                    target = store.itemsNode(of: target)
                    continue valueLoop
                }
            case UInt8(ascii: "\""):
                let (start, end, escaped) = try cursor.scanString()
                noteString(target, &store, bytes: cursor.bytes, start: start, end: end, escaped: escaped)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let isInteger = try cursor.scanNumber()
                store.nodes[Int(target)].types.insert(isInteger ? .integer : .number)
            case UInt8(ascii: "t"):
                try cursor.scanLiteral("true")
                store.nodes[Int(target)].types.insert(.boolean)
            case UInt8(ascii: "f"):
                try cursor.scanLiteral("false")
                store.nodes[Int(target)].types.insert(.boolean)
            case UInt8(ascii: "n"):
                try cursor.scanLiteral("null")
                store.nodes[Int(target)].types.insert(.null)
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
                        target = try readKey(&cursor, &stack[last], &store)
                        continue valueLoop
                    case UInt8(ascii: "}"):
                        cursor.index += 1
                        finishObject(stack.removeLast(), &store)
                    default:
                        throw cursor.error(expected: "',' or '}'")
                    }
                } else {
                    switch cursor.peek() {
                    case UInt8(ascii: ","):
                        cursor.index += 1
                        target = store.itemsNode(of: stack[last].node)
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
    private func readKey(_ cursor: inout Cursor, _ frame: inout Frame, _ store: inout ShapeStore)
        throws(JSONShapeError) -> Int32
    {
        cursor.skipWhitespace()
        guard cursor.peek() == UInt8(ascii: "\"") else { throw cursor.error(expected: "a string key") }
        frame.count += 1
        let node = frame.node
        let map = store.nodes[Int(node)].mapValue
        // Objects of one type list their keys in one order: the key after the last one is tried first,
        // compared in place, without scanning or hashing it.
        var slot =
            map >= 0
            ? -1
            : (frame.previousSlot >= 0 ? store.slots[Int(frame.previousSlot)].next : store.nodes[Int(node)].firstSlot)
        if slot >= 0 {
            let start = store.slots[Int(slot)].keyStart
            let length = store.slots[Int(slot)].keyLength
            let matched = store.keyBytes.withUnsafeBufferPointer { keys in
                cursor.skipKey(UnsafeBufferPointer(rebasing: keys[start..<(start + length)]))
            }
            if !matched { slot = -1 }
        }
        if slot < 0 {
            // The key's bounds are used before the next scan (a streamed window may slide then).
            let (start, end, escaped) = try cursor.scanString()
            if map >= 0 {
                try Self.expectColon(&cursor)
                return map
            }
            let raw = UnsafeBufferPointer(rebasing: cursor.bytes[start..<end])
            let key =
                escaped
                ? String(decoding: unescapeJSONString(raw), as: UTF8.self) : String(decoding: raw, as: UTF8.self)
            if let existing = store.lookups[Int(node)][key] {
                slot = existing
            } else {
                let child = store.addNode()
                slot = store.addSlot(to: node, key: key, raw: raw, child: child)
            }
        }
        try Self.expectColon(&cursor)
        frame.previousSlot = slot
        if store.slots[Int(slot)].stamp != frame.stamp {
            store.slots[Int(slot)].stamp = frame.stamp
            store.slots[Int(slot)].presentCount += 1
        }
        if frame.allDynamic && !store.slots[Int(slot)].isDynamicKey { frame.allDynamic = false }
        return store.slots[Int(slot)].node
    }

    @inline(__always) private static func expectColon(_ cursor: inout Cursor) throws(JSONShapeError) {
        cursor.skipWhitespace()
        guard cursor.peek() == UInt8(ascii: ":") else { throw cursor.error(expected: "':'") }
        cursor.index += 1
    }

    private func finishObject(_ frame: Frame, _ store: inout ShapeStore) {
        let node = frame.node
        guard store.nodes[Int(node)].mapValue < 0 else { return }
        if options.detectsMaps && frame.count > 0 && frame.allDynamic {
            store.collapseToMap(node, options: options)
        } else if store.lookups[Int(node)].count > options.maximumProperties {
            store.collapseToMap(node, options: options)
        }
    }

    private func noteString(
        _ node: Int32, _ store: inout ShapeStore, bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int,
        escaped: Bool
    ) {
        let first = !store.nodes[Int(node)].types.contains(.string)
        let format = store.nodes[Int(node)].format
        let needsValue = store.nodes[Int(node)].enumSet != nil
        guard first || format != ShapeStore.noFormat || needsValue else { return }
        let raw = UnsafeBufferPointer(rebasing: bytes[start..<end])
        // Escapes resolved into a temporary buffer (on the stack when small), not a new array a string.
        func withText<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            guard escaped else { return body(raw) }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: raw.count) { buffer in
                let count = unescapeJSONString(raw, into: buffer)
                return body(UnsafeBufferPointer(rebasing: buffer[0..<count]))
            }
        }
        if first {
            store.nodes[Int(node)].types.insert(.string)
            store.nodes[Int(node)].format = ShapeStore.code(withText { StringFormat.detect(inUTF8: $0) })
        } else if format != ShapeStore.noFormat, !withText({ StringFormat.fits(format: format, inUTF8: $0) }) {
            store.nodes[Int(node)].format = ShapeStore.noFormat
        }
        if needsValue, var set = store.nodes[Int(node)].enumSet {
            store.nodes[Int(node)].enumSet = nil  // keep the set uniquely referenced while inserting
            set.insert(withText { String(decoding: $0, as: UTF8.self) })
            store.nodes[Int(node)].enumSet = set.count <= options.maximumEnumValues ? set : nil
        }
    }
}

/// Whether `count` bytes at `a` and `b` are equal, eight at a time.
@inline(__always) private func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var i = 0
    while i + 8 <= count {
        let x = UnsafeRawPointer(a + i).loadUnaligned(as: UInt64.self)
        let y = UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self)
        guard x == y else { return false }
        i += 8
    }
    while i < count {
        guard a[i] == b[i] else { return false }
        i += 1
    }
    return true
}

/// Where a streamed document's bytes come from: a file read in chunks into one window that slides on.
///
/// The window keeps the token being scanned (a key or a string value the reader still needs) and what follows
/// it; everything before is dropped, so memory stays at about one chunk, whatever the document's size (a single
/// string longer than a chunk grows the window to hold it).
final class ByteSource {
    private let handle: FileHandle
    private let chunkSize: Int
    private var storage: UnsafeMutableBufferPointer<UInt8>
    private var count = 0
    private(set) var isFinished = false
    /// Line feeds in the bytes already dropped, and bytes since the last of them: error positions.
    private(set) var droppedLines = 0
    private(set) var droppedColumn = 0
    /// Why reading stopped early, when it did.
    private(set) var failure: String?

    init(handle: FileHandle, chunkSize: Int) {
        self.handle = handle
        self.chunkSize = max(chunkSize, 64)
        storage = .allocate(capacity: self.chunkSize)
    }

    deinit { storage.deallocate() }

    /// The bytes read and not yet dropped.
    var window: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: storage[0..<count]) }

    /// Drops the bytes before `keep` and reads more (none at the end of the file); returns how far the kept
    /// bytes moved.
    func refill(keepingFrom keep: Int) -> Int {
        guard !isFinished else { return 0 }
        for i in 0..<keep {
            if storage[i] == 0x0A {
                droppedLines += 1
                droppedColumn = 0
            } else {
                droppedColumn += 1
            }
        }
        let kept = count - keep
        if keep > 0, kept > 0, let base = storage.baseAddress {
            base.update(from: base + keep, count: kept)
        }
        count = kept
        if storage.count - count < chunkSize / 2 {
            let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(storage.count * 2, count + chunkSize))
            if count > 0, let from = storage.baseAddress, let to = larger.baseAddress {
                to.update(from: from, count: count)
            }
            storage.deallocate()
            storage = larger
        }
        do {
            guard let chunk = try handle.read(upToCount: storage.count - count), !chunk.isEmpty else {
                isFinished = true
                return keep
            }
            _ = chunk.copyBytes(to: UnsafeMutableBufferPointer(rebasing: storage[count..<(count + chunk.count)]))
            count += chunk.count
        } catch {
            failure = "\(error)"
            isFinished = true
        }
        return keep
    }
}

/// Position in the input, scanning primitives, and errors with line and column.
///
/// Over a complete buffer (`source == nil`) or a file streamed through a ``ByteSource``: the scanners ask for
/// more bytes at the end of the window, and a scanned string's bounds stay valid until the next scan.
struct Cursor {
    private(set) var bytes: UnsafeBufferPointer<UInt8>
    let firstLine: Int
    var index = 0
    private let source: ByteSource?
    /// The first byte of the token being scanned, kept when the window slides; `-1` for none.
    private var tokenStart = -1

    init(bytes: UnsafeBufferPointer<UInt8>, firstLine: Int) {
        self.bytes = bytes
        self.firstLine = firstLine
        self.source = nil
    }

    init(source: ByteSource) {
        self.bytes = source.window
        self.firstLine = 1
        self.source = source
    }

    /// More bytes past the window's end; `false` at the end of the input.
    @inline(never) mutating func refill() -> Bool {
        guard let source, !source.isFinished else { return false }
        let shift = source.refill(keepingFrom: tokenStart >= 0 ? min(tokenStart, index) : index)
        bytes = source.window
        index -= shift
        if tokenStart >= 0 { tokenStart -= shift }
        return index < bytes.count
    }

    /// Whether `count` bytes from the index are in the window (reading more when needed).
    @inline(__always) mutating func ensure(_ count: Int) -> Bool {
        while index + count > bytes.count {
            guard refill() else { return false }
        }
        return true
    }

    @inline(__always) mutating func peek() -> UInt8? {
        if index < bytes.count { return bytes[index] }
        return refill() && index < bytes.count ? bytes[index] : nil
    }

    @inline(__always) mutating func skipWhitespace() {
        while true {
            while index < bytes.count {
                let c = bytes[index]
                guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
                index += 1
            }
            guard refill() else { return }
        }
    }

    /// Skips the string `expected` (a key's raw bytes) and its closing quote when they are next, just after an
    /// opening quote at the index; `false`, with nothing consumed, otherwise.
    @inline(__always) mutating func skipKey(_ expected: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = expected.count
        guard ensure(length + 2), let a = expected.baseAddress ?? bytes.baseAddress, let b = bytes.baseAddress,
            bytesEqual(a, b + index + 1, length), bytes[index + 1 + length] == UInt8(ascii: "\"")
        else { return false }
        index += length + 2
        return true
    }

    /// Scans a string starting at its opening quote; returns the content's bounds and whether it has escapes.
    ///
    /// The bounds are valid until the next scan (a streamed window may slide then).
    mutating func scanString() throws(JSONShapeError) -> (Int, Int, Bool) {
        index += 1
        tokenStart = index
        defer { tokenStart = -1 }
        var escaped = false
        while true {
            // Eight bytes at a time while none is a quote, a backslash, a control character or non-ASCII.
            if let base = bytes.baseAddress {
                while index + 8 <= bytes.count {
                    let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                    let special =
                        hasZeroByte(word ^ 0x2222_2222_2222_2222) | hasZeroByte(word ^ 0x5C5C_5C5C_5C5C_5C5C)
                        | ((word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080)
                        | (word & 0x8080_8080_8080_8080)
                    if special == 0 {
                        index += 8
                        continue
                    }
                    // The lowest flagged byte is a real one (borrows only flag bytes above it).
                    index += special.trailingZeroBitCount >> 3
                    break
                }
            }
            guard index < bytes.count || refill() else { break }
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                return (tokenStart, index - 1, escaped)
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
                _ = ensure(4)
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
        let count = literal.utf8CodeUnitCount
        let text = literal.utf8Start
        _ = ensure(count)
        for offset in 0..<count {
            guard index + offset < bytes.count, bytes[index + offset] == text[offset] else {
                throw error(expected: "a JSON value")
            }
        }
        index += count
    }

    func depthError(_ limit: Int) -> JSONShapeError {
        var error = error(expected: "at most \(limit) levels of nested arrays and objects")
        error.found = "deeper nesting"
        return error
    }

    /// An error at the current index: line and column, and what is there.
    func error(expected: String) -> JSONShapeError {
        var line = firstLine + (source?.droppedLines ?? 0)
        var lineStart = -(source?.droppedColumn ?? 0)
        let end = min(index, bytes.count)
        for i in 0..<end where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        var error = JSONShapeError(
            location: .lineColumn(line: line, column: end - lineStart + 1),
            expected: expected,
            found: describeByte(at: index)
        )
        if let failure = source?.failure {
            error.expected = "a readable file"
            error.found = failure
        }
        return error
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

/// The high bit of each zero byte of `x` is set (exact for the lowest zero byte; a borrow may flag a byte
/// above it).
@inline(__always) private func hasZeroByte(_ x: UInt64) -> UInt64 {
    (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
}

/// The UTF-8 bytes of a JSON string's content with its escapes resolved (the content was validated).
func unescapeJSONString(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: raw.count) { buffer, count in
        count = unescapeJSONString(raw, into: buffer)
    }
}

/// Writes the content of a validated JSON string with its escapes resolved into `out` (at least `raw.count`
/// bytes: resolving escapes never lengthens a string); returns the length written.
func unescapeJSONString(_ raw: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
    var written = 0
    @inline(__always) func put(_ byte: UInt8) {
        out[written] = byte
        written += 1
    }
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
            put(c)
            i += 1
            continue
        }
        let e = raw[i + 1]
        i += 2
        switch e {
        case UInt8(ascii: "b"): put(0x08)
        case UInt8(ascii: "f"): put(0x0C)
        case UInt8(ascii: "n"): put(0x0A)
        case UInt8(ascii: "r"): put(0x0D)
        case UInt8(ascii: "t"): put(0x09)
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
            // A lone surrogate becomes U+FFFD (3 bytes, from the escape's 6).
            for byte in UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}")! { put(byte) }
        default: put(e)
        }
    }
    return written
}
