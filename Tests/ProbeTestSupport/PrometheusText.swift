import Foundation

/// A reader of Prometheus text exposition format 0.0.4 that enforces the format's rules, so a test fails on
/// any line Prometheus would reject.
///
/// Rules checked: `# HELP` and `# TYPE` at most once per family and TYPE before the family's first sample;
/// every sample belongs to a family with a TYPE (summaries own `_sum` and `_count`, counters may be
/// written as `_total`); metric and label names match the format's patterns; label values are quoted with
/// only `\\`, `\"` and `\n` escapes; values parse as floats; no series (name plus label set) repeats; the
/// text ends with a line feed.
package struct PrometheusText {
    package struct Sample: Hashable {
        package var name: String
        package var labels: [String: String]
        package var value: Double
    }

    package struct Problem: Error, CustomStringConvertible {
        package var line: Int
        package var message: String
        package var description: String { "line \(line): \(message)" }
    }

    package var samples: [Sample] = []
    package var types: [String: String] = [:]
    package var helps: [String: String] = [:]

    /// The value of the series `name{labels}`, or `nil`.
    package func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// The samples of one metric name.
    package func series(_ name: String) -> [Sample] { samples.filter { $0.name == name } }

    package init(parsing text: String) throws {
        guard text.isEmpty || text.hasSuffix("\n") else { throw Problem(line: 0, message: "no final line feed") }
        var seen: Set<String> = []
        var familiesWithSamples: Set<String> = []
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().enumerated() {
            let number = offset + 1
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                guard parts.count >= 3, parts[0] == "#", parts[1] == "HELP" || parts[1] == "TYPE" else { continue }
                let family = String(parts[2])
                guard Self.isMetricName(family) else { throw Problem(line: number, message: "bad name \(family)") }
                let rest = parts.count > 3 ? String(parts[3]) : ""
                if parts[1] == "TYPE" {
                    guard types[family] == nil else { throw Problem(line: number, message: "second TYPE \(family)") }
                    guard !familiesWithSamples.contains(family) else {
                        throw Problem(line: number, message: "TYPE of \(family) after its samples")
                    }
                    guard ["counter", "gauge", "histogram", "summary", "untyped"].contains(rest) else {
                        throw Problem(line: number, message: "unknown type \(rest)")
                    }
                    types[family] = rest
                } else {
                    guard helps[family] == nil else { throw Problem(line: number, message: "second HELP \(family)") }
                    helps[family] = rest
                }
                continue
            }
            let sample = try Self.parseSample(Substring(line), line: number)
            guard let family = family(of: sample.name) else {
                throw Problem(line: number, message: "\(sample.name) has no TYPE")
            }
            familiesWithSamples.insert(family)
            let key =
                sample.name + "{"
                + sample.labels.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: ",")
            guard seen.insert(key).inserted else { throw Problem(line: number, message: "duplicate series \(key)") }
            samples.append(sample)
        }
    }

    private func family(of name: String) -> String? {
        if types[name] != nil { return name }
        for suffix in ["_sum", "_count", "_bucket"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if let type = types[base], type == "summary" || type == "histogram" { return base }
        }
        return nil
    }

    package static func isMetricName(_ name: some StringProtocol) -> Bool {
        guard let first = name.first, first.isASCII, first.isLetter || first == "_" || first == ":" else {
            return false
        }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") }
    }

    package static func isLabelName(_ name: some StringProtocol) -> Bool {
        guard let first = name.first, first.isASCII, first.isLetter || first == "_" else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }

    private static func parseSample(_ line: Substring, line number: Int) throws -> Sample {
        var index = line.startIndex
        while index < line.endIndex, line[index] != "{", line[index] != " " { index = line.index(after: index) }
        let name = String(line[line.startIndex..<index])
        guard isMetricName(name) else { throw Problem(line: number, message: "bad metric name \(name)") }
        var labels: [String: String] = [:]
        if index < line.endIndex, line[index] == "{" {
            index = line.index(after: index)
            while true {
                guard index < line.endIndex else { throw Problem(line: number, message: "unclosed {") }
                if line[index] == "}" {
                    index = line.index(after: index)
                    break
                }
                let nameStart = index
                while index < line.endIndex, line[index] != "=" { index = line.index(after: index) }
                let label = String(line[nameStart..<index])
                guard isLabelName(label), index < line.endIndex else {
                    throw Problem(line: number, message: "bad label name \(label)")
                }
                index = line.index(after: index)
                guard index < line.endIndex, line[index] == "\"" else {
                    throw Problem(line: number, message: "label \(label): expected a quoted value")
                }
                index = line.index(after: index)
                var value = ""
                var closed = false
                while index < line.endIndex {
                    let character = line[index]
                    index = line.index(after: index)
                    if character == "\"" {
                        closed = true
                        break
                    }
                    if character == "\\" {
                        guard index < line.endIndex else { break }
                        let escaped = line[index]
                        index = line.index(after: index)
                        switch escaped {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default: throw Problem(line: number, message: "label \(label): bad escape \\\(escaped)")
                        }
                        continue
                    }
                    value.append(character)
                }
                guard closed else { throw Problem(line: number, message: "label \(label): unclosed value") }
                guard labels.updateValue(value, forKey: label) == nil else {
                    throw Problem(line: number, message: "label \(label) repeats")
                }
                if index < line.endIndex, line[index] == "," { index = line.index(after: index) }
            }
        }
        guard index < line.endIndex, line[index] == " " else {
            throw Problem(line: number, message: "expected a space before the value")
        }
        let fields = line[line.index(after: index)...].split(separator: " ", omittingEmptySubsequences: false)
        guard (1...2).contains(fields.count), let value = parseFloat(fields[0]) else {
            throw Problem(line: number, message: "bad value \(line[index...])")
        }
        if fields.count == 2, Int64(fields[1]) == nil {
            throw Problem(line: number, message: "bad timestamp \(fields[1])")
        }
        return Sample(name: name, labels: labels, value: value)
    }

    private static func parseFloat(_ text: Substring) -> Double? {
        switch text {
        case "NaN": return .nan
        case "+Inf", "Inf": return .infinity
        case "-Inf": return -.infinity
        default:
            guard text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) else { return nil }
            return Double(text)
        }
    }
}
