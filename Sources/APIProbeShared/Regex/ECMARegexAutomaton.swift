// A matcher of its own for the patterns that are regular languages: ICU through `NSRegularExpression` costs
// microseconds a call on Linux (the text bridged to UTF-16, a matcher reset, a callback per start position), which
// a fixture's `pathPattern` paid for every request `apiprobe serve` tried it on, and a schema's `pattern` for every
// string that JSONSchemaValidation's `SimplePattern` (a bit-parallel automaton for a sequence of ASCII classes
// between anchors, tried before this type) does not take: groups, alternation, `\s`, `\b`, non-ASCII characters.
// The two are one engine's two tiers in all but place; moving `SimplePattern` here, built from the same tree, is
// the next step (so that fixtures' patterns get its speed too).
//
// Whether a pattern matches somewhere in a text does not depend on how a backtracking engine orders its choices
// (greedy or lazy, which alternative first) as long as the pattern has no backreference or lookaround: the answer is
// whether the text holds a string of the pattern's language. So the tree is compiled to a small program (a
// Thompson automaton: characters, sets, splits and jumps, and the assertions `^ $ \b \B`) and searched depth
// first, remembering every (instruction, position) pair already tried: each is tried at most once, so a search costs
// at most instructions × (text length + 1) steps, whatever the pattern (`(a+)+$` included), with no time limit to
// enforce. Patterns with lookarounds, backreferences, modifier groups or Unicode properties, programs above
// ``maximumInstructions`` (a large counted quantifier) and texts for which the bitmap would be too large keep
// ICU, with its limits.

/// A pattern compiled for ``ECMARegex``'s own search; `nil` from ``init(_:)`` when the pattern is beyond it.
struct ECMARegexAutomaton: Sendable {
    /// One instruction. Sets are indices into ``sets``.
    enum Instruction: Sendable, Equatable {
        case character(UInt32)
        /// `.` without the `s` flag: any code point but the four line terminators.
        case anyButLineTerminator
        case set(Int)
        /// Try `first`, then `second`.
        case split(Int, Int)
        case jump(Int)
        /// `^` without the `m` flag: the start of the text.
        case textStart
        /// `$` without the `m` flag: the end of the text.
        case textEnd
        case wordBoundary(negated: Bool)
        case match
    }

    /// A bracketed class or a class escape: its items, any of which admits a code point, and whether the class is
    /// the complement of their union.
    struct CharacterSet: Sendable {
        let items: [ECMARegexClassItem]
        let negated: Bool

        func contains(_ scalar: UInt32) -> Bool {
            var inside = false
            for item in items {
                switch item {
                case .character(let value): inside = value == scalar
                case .range(let low, let high): inside = low <= scalar && scalar <= high
                case .escape(let escape): inside = ECMARegexAutomaton.contains(escape, scalar)
                }
                if inside { break }
            }
            return inside != negated
        }
    }

    let program: [Instruction]
    let sets: [CharacterSet]

    /// The largest program compiled: a counted quantifier is written out (`a{3,5}` as five copies), so a large count
    /// keeps ICU.
    static let maximumInstructions = 4_096
    /// The most (instruction, position) pairs a search may remember (a 512 KiB bitmap); a longer text keeps ICU.
    static let maximumStates = 4 << 20

    /// Compiles `tree`; `nil` when it holds what only ICU matches (see the file's comment).
    init?(_ tree: ECMARegexSyntaxTree) {
        var compiler = Compiler()
        guard compiler.emit(tree.root) else { return nil }
        compiler.program.append(.match)
        guard compiler.program.count <= Self.maximumInstructions else { return nil }
        program = compiler.program
        sets = compiler.sets
    }

    /// Whether the pattern matches somewhere in `text`; `nil` when the text is too long for the bitmap (the caller
    /// asks ICU).
    func matches(_ text: String) -> Bool? {
        var text = text
        text.makeContiguousUTF8()
        let found = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            // ASCII, as paths and most schema strings are: the bytes are the code points, read in place.
            if !bytes.contains(where: { $0 >= 0x80 }) { return search(count: bytes.count) { UInt32(bytes[$0]) } }
            let scalars = text.unicodeScalars.map(\.value)
            return scalars.withUnsafeBufferPointer { scalars in search(count: scalars.count) { scalars[$0] } }
        }
        return found ?? nil
    }

    /// The search over `count` code points that `at` reads: depth first from every start, each (instruction,
    /// position) pair at most once.
    @inline(__always)
    private func search(count: Int, at: (Int) -> UInt32) -> Bool? {
        let width = count + 1
        let (states, overflow) = program.count.multipliedReportingOverflow(by: width)
        guard !overflow, states <= Self.maximumStates else { return nil }
        // The bitmap on the stack when it is small (most texts), zeroed.
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: (states + 63) / 64) { tried -> Bool in
            tried.initialize(repeating: 0)
            var pending: [(instruction: Int, position: Int)] = []
            pending.reserveCapacity(min(states, 64))
            for start in 0..<width {
                pending.append((0, start))
                while let (instruction, position) = pending.popLast() {
                    let state = instruction * width + position
                    let (word, bit) = (state >> 6, UInt64(1) << UInt64(state & 63))
                    if tried[word] & bit != 0 { continue }
                    tried[word] |= bit
                    switch program[instruction] {
                    case .match:
                        return true
                    case .character(let value):
                        if position < count, at(position) == value { pending.append((instruction + 1, position + 1)) }
                    case .anyButLineTerminator:
                        if position < count, !Self.isLineTerminator(at(position)) {
                            pending.append((instruction + 1, position + 1))
                        }
                    case .set(let index):
                        if position < count, sets[index].contains(at(position)) {
                            pending.append((instruction + 1, position + 1))
                        }
                    case .split(let first, let second):
                        // The first choice is searched first: pushed last.
                        pending.append((second, position))
                        pending.append((first, position))
                    case .jump(let target):
                        pending.append((target, position))
                    case .textStart:
                        if position == 0 { pending.append((instruction + 1, position)) }
                    case .textEnd:
                        if position == count { pending.append((instruction + 1, position)) }
                    case .wordBoundary(let negated):
                        let before = position > 0 && Self.isWordCharacter(at(position - 1))
                        let after = position < count && Self.isWordCharacter(at(position))
                        if (before != after) != negated { pending.append((instruction + 1, position)) }
                    }
                }
                // `^` at the start of every path: no later start can match.
                if program.first == .textStart { return false }
            }
            return false
        }
    }

    /// `\d`, `\s` or `\w` (or their complements), with the `u` flag and without `i`: ASCII digits and word
    /// characters, and ECMA-262's WhiteSpace and LineTerminator code points.
    static func contains(_ escape: ECMARegexClassEscape, _ scalar: UInt32) -> Bool {
        let inside: Bool
        switch escape.kind {
        case .digit: inside = (0x30...0x39).contains(scalar)
        case .word: inside = isWordCharacter(scalar)
        case .space: inside = isSpace(scalar)
        case .property: inside = false  // not compiled (see `Compiler.emit`)
        }
        return inside != escape.negated
    }

    static func isWordCharacter(_ scalar: UInt32) -> Bool {
        (0x30...0x39).contains(scalar) || (0x41...0x5A).contains(scalar) || (0x61...0x7A).contains(scalar)
            || scalar == 0x5F
    }

    static func isLineTerminator(_ scalar: UInt32) -> Bool {
        scalar == 0x0A || scalar == 0x0D || scalar == 0x2028 || scalar == 0x2029
    }

    /// ECMA-262's WhiteSpace (tab, vertical tab, form feed, ZWNBSP and the Space_Separator category) and
    /// LineTerminator.
    static func isSpace(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x09, 0x0B, 0x0C, 0x20, 0xA0, 0xFEFF, 0x1680, 0x2000...0x200A, 0x202F, 0x205F, 0x3000: true
        default: isLineTerminator(scalar)
        }
    }

    /// Writes the program for a tree, depth first.
    private struct Compiler {
        var program: [Instruction] = []
        var sets: [CharacterSet] = []

        /// Appends the instructions of `node`; false when it holds what only ICU matches, or the program grows
        /// past the maximum.
        mutating func emit(_ node: ECMARegexNode) -> Bool {
            guard program.count <= ECMARegexAutomaton.maximumInstructions else { return false }
            switch node {
            case .empty:
                return true
            case .sequence(let nodes):
                for node in nodes where !emit(node) { return false }
                return true
            case .alternation(let alternatives):
                // split(a, next) a jump(end) split(b, next) b jump(end) … the last alternative without a split.
                var jumps: [Int] = []
                for (index, alternative) in alternatives.enumerated() {
                    let isLast = index == alternatives.count - 1
                    let split = program.count
                    if !isLast { program.append(.split(split + 1, -1)) }
                    guard emit(alternative) else { return false }
                    if !isLast {
                        jumps.append(program.count)
                        program.append(.jump(-1))
                        program[split] = .split(split + 1, program.count)
                    }
                }
                for jump in jumps { program[jump] = .jump(program.count) }
                return true
            case .character(let value):
                // A lone surrogate (`\uD800`) never equals a code point of a Swift string: ICU decides as before.
                guard !(0xD800...0xDFFF).contains(value) else { return false }
                program.append(.character(value))
                return true
            case .dot:
                program.append(.anyButLineTerminator)
                return true
            case .lineStart:
                program.append(.textStart)
                return true
            case .lineEnd:
                program.append(.textEnd)
                return true
            case .wordBoundary(let negated):
                program.append(.wordBoundary(negated: negated))
                return true
            case .classEscape(let escape):
                return appendSet([.escape(escape)], negated: false)
            case .characterClass(let items, let negated):
                return appendSet(items, negated: negated)
            case .group(_, let body):
                return emit(body)
            case .quantified(let body, let minimum, let maximum, _):
                return emitQuantified(body, minimum: minimum, maximum: maximum)
            case .modifiers, .lookahead, .lookbehind, .backreference, .namedBackreference:
                return false
            }
        }

        private mutating func appendSet(_ items: [ECMARegexClassItem], negated: Bool) -> Bool {
            for case .escape(let escape) in items {
                if case .property = escape.kind { return false }
            }
            if items.contains(where: {
                if case .character(let value) = $0 { return (0xD800...0xDFFF).contains(value) }
                if case .range(let low, let high) = $0 { return low <= 0xDFFF && high >= 0xD800 }
                return false
            }) {
                return false
            }
            sets.append(CharacterSet(items: items, negated: negated))
            program.append(.set(sets.count - 1))
            return true
        }

        /// `body` `minimum` times, then optionally up to `maximum` (or any number of times more).
        private mutating func emitQuantified(_ body: ECMARegexNode, minimum: Int, maximum: Int?) -> Bool {
            let optional = maximum.map { $0 - minimum }
            guard minimum <= ECMARegexAutomaton.maximumInstructions,
                (optional ?? 0) <= ECMARegexAutomaton.maximumInstructions
            else { return false }
            for _ in 0..<minimum where !emit(body) { return false }
            guard let optional else {
                // loop: split(body, out) body jump(loop)
                let loop = program.count
                program.append(.split(loop + 1, -1))
                guard emit(body) else { return false }
                program.append(.jump(loop))
                program[loop] = .split(loop + 1, program.count)
                return true
            }
            // Each optional copy: split(body, out) body; every split leaves to the end.
            var splits: [Int] = []
            for _ in 0..<optional {
                splits.append(program.count)
                program.append(.split(program.count + 1, -1))
                guard emit(body) else { return false }
            }
            for split in splits { program[split] = .split(split + 1, program.count) }
            return true
        }
    }
}
