import APIProbeShared
import Foundation
import HTTPFixtures

/// A single pass over the bytes of one JSON document that merges every value into a ``ShapeStore`` as it
/// goes: no document tree is built, nesting is kept on an explicit stack (never the call stack).
struct StreamingReader {
    let options: InferenceOptions

    init(options: InferenceOptions) {
        self.options = options
    }

    /// An open object or array.
    private struct Frame {
        let node: Int32
        let isObject: Bool
        let stamp: Int
        /// The slot of the key expected next in this object (the one after the last key read, in first-seen
        /// order); `-1` for none.
        var expectedSlot: Int32 = -1
        var count = 0
        var allDynamic = true

        /// Stands for the document itself, outside every container.
        static var document: Frame { Frame(node: -1, isObject: false, stamp: 0) }
    }

    /// Reads one document from `bytes` into the store's root.
    ///
    /// - Parameters:
    ///   - firstLine: the line number of the first byte, for errors (JSON Lines).
    /// - Throws: `InputError` with the line and column of the first syntax error.
    func read(_ bytes: UnsafeBufferPointer<UInt8>, into store: inout ShapeStore, firstLine: Int = 1)
        throws(InputError)
    {
        var cursor = Cursor(bytes: bytes, firstLine: firstLine)
        try read(&cursor, into: &store)
    }

    /// Reads one document streamed from `source` into the store's root, in about one chunk of memory.
    func read(_ source: ByteSource, into store: inout ShapeStore) throws(InputError) {
        var cursor = Cursor(source: source)
        try read(&cursor, into: &store)
    }

    private func read(_ cursor: inout Cursor, into store: inout ShapeStore) throws(InputError) {
        store.makeUnique()
        // The innermost open container is kept in `frame`, the ones around it on `stack`.
        var stack: [Frame] = []
        var frame = Frame.document
        var depth = 0
        var target = ShapeStore.root

        valueLoop: while true {
            guard let c = cursor.peekPastWhitespace() else { throw cursor.error(expected: "a JSON value") }
            // Set when an object opens with a member: its key is read below, at the one place keys are read.
            var keyFollows = false
            switch c {
            case UInt8(ascii: "{"):
                guard depth < options.maximumDepth else { throw cursor.depthError(options.maximumDepth) }
                cursor.index += 1
                store.addType(at: target, .object)
                store.nodes[Int(target)].objectCount += 1
                store.stamp &+= 1
                if cursor.peekPastWhitespace() == UInt8(ascii: "}") {
                    cursor.index += 1
                } else {
                    if depth > 0 { stack.append(frame) }
                    frame = Frame(node: target, isObject: true, stamp: store.stamp)
                    frame.expectedSlot = store.nodes[Int(target)].firstSlot
                    depth += 1
                    keyFollows = true
                }
            case UInt8(ascii: "["):
                guard depth < options.maximumDepth else { throw cursor.depthError(options.maximumDepth) }
                cursor.index += 1
                store.addType(at: target, .array)
                if cursor.peekPastWhitespace() == UInt8(ascii: "]") {
                    cursor.index += 1
                } else {
                    if depth > 0 { stack.append(frame) }
                    frame = Frame(node: target, isObject: false, stamp: 0)
                    depth += 1
                    target = store.itemsNode(of: target)
                    continue valueLoop
                }
            case UInt8(ascii: "\""):
                let (start, end, escaped) = try cursor.scanString()
                noteString(target, &store, bytes: cursor.bytes, start: start, end: end, escaped: escaped)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let isInteger = try cursor.scanNumber()
                store.addType(at: target, isInteger ? .integer : .number)
            case UInt8(ascii: "t"):
                try cursor.scanLiteral("true")
                store.addType(at: target, .boolean)
            case UInt8(ascii: "f"):
                try cursor.scanLiteral("false")
                store.addType(at: target, .boolean)
            case UInt8(ascii: "n"):
                try cursor.scanLiteral("null")
                store.addType(at: target, .null)
            default:
                throw cursor.error(expected: "a JSON value")
            }

            // After a complete value: close containers, or move to the next member or item.
            while !keyFollows {
                guard depth > 0 else {
                    if cursor.peekPastWhitespace() != nil { throw cursor.error(expected: "the end of the document") }
                    return
                }
                let next = cursor.peekPastWhitespace()
                if next == UInt8(ascii: ",") {
                    cursor.index += 1
                    guard frame.isObject else {
                        target = store.itemsNode(of: frame.node)
                        continue valueLoop
                    }
                    break
                }
                if frame.isObject {
                    guard next == UInt8(ascii: "}") else { throw cursor.error(expected: "',' or '}'") }
                    finishObject(frame, &store)
                } else {
                    guard next == UInt8(ascii: "]") else { throw cursor.error(expected: "',' or ']'") }
                }
                cursor.index += 1
                depth -= 1
                frame = depth > 0 ? stack.removeLast() : .document
            }
            target = try readKey(&cursor, &frame, &store)
        }
    }

    /// Reads `"key" :` and returns the node the member's value merges into.
    @inline(__always) private func readKey(_ cursor: inout Cursor, _ frame: inout Frame, _ store: inout ShapeStore)
        throws(InputError) -> Int32
    {
        guard cursor.peekPastWhitespace() == UInt8(ascii: "\"") else { throw cursor.error(expected: "a string key") }
        frame.count += 1
        // Objects of one type list their keys in one order: the key after the last one is tried first,
        // compared in place, without scanning or hashing it. (A map's node has no slots: it never matches.)
        let expected = frame.expectedSlot
        var slot: Int32
        if expected >= 0,
            store.keyBytes.withUnsafeBufferPointer({ keys in
                cursor.skipKey(
                    keys, from: store.slots[Int(expected)].keyStart, count: store.slots[Int(expected)].keyLength)
            })
        {
            slot = expected
            if cursor.peek() == UInt8(ascii: ":") { cursor.index += 1 } else { try Self.expectColon(&cursor) }
        } else {
            slot = try lookUpKey(&cursor, frame.node, &store)
            try Self.expectColon(&cursor)
            if slot < 0 { return store.nodes[Int(frame.node)].mapValue }
        }
        frame.expectedSlot = store.slots[Int(slot)].next
        if store.slots[Int(slot)].stamp != frame.stamp {
            store.slots[Int(slot)].stamp = frame.stamp
            store.slots[Int(slot)].presentCount += 1
        }
        if frame.allDynamic && !store.slots[Int(slot)].isDynamicKey { frame.allDynamic = false }
        return store.slots[Int(slot)].node
    }

    /// Scans a key out of the usual order and finds its slot (adding one for a new key); `-1` when the
    /// object is a map.
    @inline(never) private func lookUpKey(_ cursor: inout Cursor, _ node: Int32, _ store: inout ShapeStore)
        throws(InputError) -> Int32
    {
        // The key's bounds are used before the next scan (a streamed window may slide then).
        let (start, end, escaped) = try cursor.scanString()
        if store.nodes[Int(node)].mapValue >= 0 { return -1 }
        let raw = UnsafeBufferPointer(rebasing: cursor.bytes[start..<end])
        let key =
            escaped
            ? String(decoding: unescapeJSONString(raw), as: UTF8.self) : String(decoding: raw, as: UTF8.self)
        if let existing = store.lookups[Int(node)][key] { return existing }
        let child = store.addNode()
        return store.addSlot(to: node, key: key, raw: raw, child: child)
    }

    @inline(__always) private static func expectColon(_ cursor: inout Cursor) throws(InputError) {
        guard cursor.peekPastWhitespace() == UInt8(ascii: ":") else { throw cursor.error(expected: "':'") }
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

    /// Merges a string value into `node`: its type, format and enum values.
    @inline(__always) private func noteString(
        _ node: Int32, _ store: inout ShapeStore, bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int,
        escaped: Bool
    ) {
        // The usual case, a node of strings in no format with no enum tracked, costs one load.
        let data = store.nodes[Int(node)]
        guard !data.types.contains(.string) || data.format != ShapeStore.noFormat || store.tracksEnums else { return }
        noteStringValue(node, &store, bytes: bytes, start: start, end: end, escaped: escaped)
    }

    @inline(never) private func noteStringValue(
        _ node: Int32, _ store: inout ShapeStore, bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int,
        escaped: Bool
    ) {
        let first = !store.nodes[Int(node)].types.contains(.string)
        let format = store.nodes[Int(node)].format
        let needsValue = store.tracksEnums && store.enumSets[Int(node)] != nil
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
            store.addType(at: node, .string)
            store.nodes[Int(node)].format = ShapeStore.code(withText { StringFormat.detect(inUTF8: $0) })
        } else if format != ShapeStore.noFormat, !withText({ StringFormat.fits(format: format, inUTF8: $0) }) {
            store.nodes[Int(node)].format = ShapeStore.noFormat
        }
        if needsValue, var set = store.enumSets[Int(node)] {
            store.enumSets[Int(node)] = nil  // keep the set uniquely referenced while inserting
            set.insert(withText { String(decoding: $0, as: UTF8.self) })
            store.enumSets[Int(node)] = set.count <= options.maximumEnumValues ? set : nil
        }
    }
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
        // Line feeds found with memchr (vectorised), not byte by byte: this loop was 44% of `schema infer`'s time
        // over 1,600 responses of 60 KB (issue 25).
        if keep > 0, let base = storage.baseAddress {
            var position = 0
            var lastLineFeed = -1
            while position < keep, let found = memchr(base + position, 0x0A, keep - position) {
                lastLineFeed = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                droppedLines += 1
                position = lastLineFeed + 1
            }
            droppedColumn = lastLineFeed >= 0 ? keep - lastLineFeed - 1 : droppedColumn + keep
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
        // read(2) straight into the window: FileHandle's `read(upToCount:)` made a `Data` and copied it again.
        guard let base = storage.baseAddress else { return keep }
        var got: Int
        repeat {
            got = read(handle.fileDescriptor, base + count, storage.count - count)
        } while got < 0 && errno == EINTR
        if got < 0 {
            failure = String(cString: strerror(errno))
            isFinished = true
        } else if got == 0 {
            isFinished = true
        } else {
            count += got
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

    /// The next byte that is not whitespace, the index on it; `nil` at the end of the input.
    @inline(__always) mutating func peekPastWhitespace() -> UInt8? {
        if index < bytes.count {
            let c = bytes[index]
            if c > 0x20 { return c }
        }
        skipWhitespace()
        return peek()
    }

    @inline(never) mutating func skipWhitespace() {
        while true {
            while index < bytes.count {
                let c = bytes[index]
                guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
                index += 1
            }
            guard refill() else { return }
        }
    }

    /// Skips a key and its closing quote (`count` bytes at `start` in `keys`) when they follow the opening
    /// quote at the index; `false`, with nothing consumed, otherwise.
    ///
    /// `keys` holds at least eight bytes from `start` (``ShapeStore/keyBytes`` is padded), so a key of up to
    /// eight bytes is one masked comparison.
    @inline(__always) mutating func skipKey(_ keys: UnsafeBufferPointer<UInt8>, from start: Int, count: Int) -> Bool {
        let from = index + 1
        guard from + max(count, 8) <= bytes.count, let input = bytes.baseAddress, let key = keys.baseAddress else {
            return skipKeyNearTheEnd(keys, from: start, count: count)
        }
        let a = input + from
        let b = key + start
        if count <= 8 {
            let difference = Word.load(a) ^ Word.load(b)
            guard difference & (UInt64.max >> (64 - 8 * count)) == 0 else { return false }
        } else {
            var i = 0
            while i + 8 < count {
                guard Word.load(a + i) == Word.load(b + i) else { return false }
                i += 8
            }
            // The last word overlaps the one before.
            guard Word.load(a + count - 8) == Word.load(b + count - 8) else { return false }
        }
        index = from + count
        return true
    }

    /// ``skipKey(_:from:count:)`` where fewer than eight bytes are left in the window.
    @inline(never) private mutating func skipKeyNearTheEnd(
        _ keys: UnsafeBufferPointer<UInt8>, from start: Int, count: Int
    )
        -> Bool
    {
        guard ensure(count + 1) else { return false }
        for i in 0..<count where bytes[index + 1 + i] != keys[start + i] { return false }
        index += 1 + count
        return true
    }

    /// Scans a string starting at its opening quote; returns the content's bounds and whether it has escapes.
    ///
    /// The bounds are valid until the next scan (a streamed window may slide then).
    @inline(__always) mutating func scanString() throws(InputError) -> (Int, Int, Bool) {
        index += 1
        let start = index
        // The usual string, ASCII without escapes and inside the window, is found eight bytes at a time with
        // the index in a register; anything else goes on in `scanStringRest`.
        if let base = bytes.baseAddress {
            var i = index
            while i + 8 <= bytes.count {
                let word = Word.load(base + i)
                let special = Self.specialBytes(word)
                if special == 0 {
                    i += 8
                    continue
                }
                // The lowest flagged byte is a real one (borrows only flag bytes above it).
                let offset = special.trailingZeroBitCount >> 3
                if UInt8(truncatingIfNeeded: word >> UInt64(offset << 3)) == UInt8(ascii: "\"") {
                    index = i + offset + 1
                    return (start, i + offset, false)
                }
                index = i + offset
                break
            }
        }
        return try scanStringRest(from: start)
    }

    /// Quotes, backslashes, control characters and non-ASCII bytes in `word`: the bytes that end the fast scan
    /// of a string.
    ///
    /// The three borrow tests share one `& ~word`: that mask only clears bytes from 0x80 up, which are flagged
    /// anyway. A borrow flags a byte only above a flagged one, so the lowest flagged byte is exact.
    @inline(__always) private static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones = Word.repeating(1)
        let quote = (word ^ Word.repeating(0x22)) &- ones
        let backslash = (word ^ Word.repeating(0x5C)) &- ones
        let control = word &- Word.repeating(0x20)
        return (quote | backslash | control | word) & Word.highs
    }

    /// ``scanString()`` from the index on, for a string that started at `start`: escapes, non-ASCII bytes,
    /// errors and the end of the window.
    @inline(never) private mutating func scanStringRest(from start: Int) throws(InputError) -> (Int, Int, Bool) {
        tokenStart = start
        defer { tokenStart = -1 }
        var escaped = false
        while true {
            // Eight bytes at a time while none is a quote, a backslash, a control character or non-ASCII.
            if let base = bytes.baseAddress {
                while index + 8 <= bytes.count {
                    let special = Self.specialBytes(Word.load(base + index))
                    if special == 0 {
                        index += 8
                        continue
                    }
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
    @inline(__always) mutating func scanNumber() throws(InputError) -> Bool {
        // The usual number, `-12` or `3.25` followed by more bytes in the window, with the index in a register;
        // anything else (an exponent, an error, the window's end) is scanned again by `scanNumberRest`.
        if let base = bytes.baseAddress {
            let n = bytes.count
            var i = index
            if i < n, base[i] == UInt8(ascii: "-") { i += 1 }
            if i < n, StringFormat.isDigit(base[i]) {
                i = base[i] == UInt8(ascii: "0") ? i + 1 : Self.digitsEnd(base, from: i + 1, count: n)
                var isInteger = true
                if i < n, base[i] == UInt8(ascii: "."), i + 1 < n, StringFormat.isDigit(base[i + 1]) {
                    isInteger = false
                    i = Self.digitsEnd(base, from: i + 2, count: n)
                }
                if i < n, base[i] != UInt8(ascii: "."), base[i] | 0x20 != UInt8(ascii: "e") {
                    index = i
                    return isInteger
                }
            }
        }
        return try scanNumberRest()
    }

    /// Where the digits from `i` end, eight at a time.
    @inline(__always) private static func digitsEnd(_ base: UnsafePointer<UInt8>, from i: Int, count n: Int) -> Int {
        var i = i
        while i + 8 <= n {
            let word = Word.load(base + i)
            let digits = Word.inRange(word & Word.repeating(0x7F), 0x30, 0x39) & ~word
            guard digits == Word.highs else { return i + (~digits & Word.highs).trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < n, StringFormat.isDigit(base[i]) { i += 1 }
        return i
    }

    /// ``scanNumber()`` for any number at the index, and its errors.
    @inline(never) private mutating func scanNumberRest() throws(InputError) -> Bool {
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), StringFormat.isDigit(first) else { throw error(expected: "a digit") }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        var isInteger = true
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let c = peek(), StringFormat.isDigit(c) else { throw error(expected: "a digit after '.'") }
            skipDigits()
        }
        if let e = peek(), e | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard let c = peek(), StringFormat.isDigit(c) else { throw error(expected: "a digit in the exponent") }
            skipDigits()
        }
        return isInteger
    }

    /// Moves past the digits at the index (and past the window's end, when more digits follow).
    private mutating func skipDigits() {
        while true {
            if let base = bytes.baseAddress { index = Self.digitsEnd(base, from: index, count: bytes.count) }
            guard index == bytes.count, refill() else { return }
        }
    }

    mutating func scanLiteral(_ literal: StaticString) throws(InputError) {
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

    func depthError(_ limit: Int) -> InputError {
        var error = error(expected: "at most \(limit) levels of nested arrays and objects")
        error.found = "deeper nesting"
        return error
    }

    /// An error at the current index: line and column, and what is there.
    func error(expected: String) -> InputError {
        var line = firstLine + (source?.droppedLines ?? 0)
        var lineStart = -(source?.droppedColumn ?? 0)
        let end = min(index, bytes.count)
        for i in 0..<end where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        var error = InputError(
            position: .lineColumn(line: line, column: end - lineStart + 1),
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
