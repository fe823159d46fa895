import APIProbeShared
package import Foundation

/// The secret values of one run, shared by every copy of the ``Redactor`` that holds them: values substituted
/// from the environment into a config, and credentials met in traffic. Safe to use from any task.
///
/// Each value is masked wherever it occurs, in the forms it takes in the outputs: as written, JSON-escaped,
/// XML-escaped and percent-encoded. Values shorter than ``minimumLength``, numbers (a port, a count) and the
/// words `true`, `false`, `null` and `none` are not kept: masking them would mask timings, counts and
/// everything else. (A credential that is a number is still masked by name.)
package final class SecretValues: Sendable {
    /// The shortest value masked by value.
    static let minimumLength = 4
    /// The most values met in traffic kept at once; the oldest go first. (A probe that runs for days meets a new
    /// session cookie every round; the values of the current round are the ones its output can hold.)
    package static let maximumLearned = 256

    private struct Table {
        /// Each form of each value, with the text that replaces it.
        var forms: [String: String] = [:]
        /// `forms`' keys, longest first (so a value inside a longer one does not split it), rebuilt on change.
        var ordered: [(form: String, replacement: String)] = []
        /// The forms of each value met in traffic, oldest first, so the oldest can be dropped.
        var learned: [(value: String, forms: [String])] = []
        var learnedValues: Set<String> = []

        /// Inserts a form where ``ordered`` keeps it: longer forms first, then in code-unit order.
        mutating func insertOrdered(_ form: String, _ replacement: String) {
            func precedes(_ a: String, _ b: String) -> Bool {
                a.utf8.count != b.utf8.count ? a.utf8.count > b.utf8.count : a < b
            }
            var low = 0
            var high = ordered.count
            while low < high {
                let middle = (low + high) / 2
                if precedes(ordered[middle].form, form) { low = middle + 1 } else { high = middle }
            }
            ordered.insert((form, replacement), at: low)
        }
    }

    private let table = Locked(Table())

    package init() {}

    /// Whether no value is known.
    var isEmpty: Bool { table.withLock { $0.forms.isEmpty } }

    /// The forms known (plain, escaped, encoded), sorted; for tests.
    var knownForms: [String] { table.withLock { $0.forms.keys.sorted() } }

    /// Adds a value, masked from now on by `replacement`. Returns whether the value is long enough to be kept.
    ///
    /// - Parameter isPermanent: `false` for a value met in traffic: only the latest ``maximumLearned`` of those
    ///   are kept. A value of the config (from the environment) is kept for the whole run.
    @discardableResult
    package func add(_ value: String, replacement: String, isPermanent: Bool = true) -> Bool {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= Self.minimumLength,
            !["true", "false", "null", "none", "undefined"].contains(trimmed.lowercased()),
            !trimmed.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return false }
        // A value holding one already known keeps that one's replacement inside its own, so a check on
        // `Bearer ${TOKEN}` reads so, not `REDACTED`.
        let partlyKnown = mask(trimmed)
        let replacement = partlyKnown != trimmed ? partlyKnown : replacement
        var variants: [String] = [trimmed]
        variants.append(Self.jsonEscaped(trimmed))
        variants.append(Self.xmlEscaped(trimmed))
        if let encoded = trimmed.addingPercentEncoding(withAllowedCharacters: Self.unreserved) {
            variants.append(encoded)
        }
        if let form = trimmed.addingPercentEncoding(withAllowedCharacters: Self.unreserved.union([" "])) {
            variants.append(form.replacingOccurrences(of: " ", with: "+"))
        }
        table.withLock { table in
            var added: [String] = []
            for variant in variants where table.forms[variant] == nil {
                table.forms[variant] = replacement
                added.append(variant)
                table.insertOrdered(variant, replacement)
            }
            if !isPermanent, !added.isEmpty, table.learnedValues.insert(trimmed).inserted {
                table.learned.append((trimmed, added))
                if table.learned.count > Self.maximumLearned {
                    let oldest = table.learned.removeFirst()
                    table.learnedValues.remove(oldest.value)
                    for form in oldest.forms { table.forms[form] = nil }
                    let gone = Set(oldest.forms)
                    table.ordered.removeAll { gone.contains($0.form) }
                }
            }
        }
        return true
    }

    /// `text` with every known value replaced.
    ///
    /// - Complexity: O(n × k) for n characters and k known forms.
    func mask(_ text: String) -> String {
        let forms = table.withLock { $0.ordered }
        guard !forms.isEmpty, !text.isEmpty else { return text }
        var result = text
        for (form, replacement) in forms where result.contains(form) {
            result = result.replacingOccurrences(of: form, with: replacement)
        }
        return result
    }

    /// `data` with every known value replaced, byte for byte elsewhere.
    package func mask(_ data: Data) -> Data {
        let forms = table.withLock { $0.ordered }
        guard !forms.isEmpty, !data.isEmpty else { return data }
        var result = data
        for (form, replacement) in forms {
            let needle = Data(form.utf8)
            var searchStart = result.startIndex
            while let range = result.range(of: needle, in: searchStart..<result.endIndex) {
                let replacementBytes = Data(replacement.utf8)
                result.replaceSubrange(range, with: replacementBytes)
                searchStart = range.lowerBound + replacementBytes.count
            }
        }
        return result
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func jsonEscaped(_ text: String) -> String {
        var out: [UInt8] = []
        appendJSONString(text, to: &out)
        return String(decoding: out.dropFirst().dropLast(), as: UTF8.self)
    }

    static func xmlEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&apos;")
    }
}
