import Foundation

/// HTTP header fields as they were sent: names keep their spelling, order and repeats are kept, and every
/// lookup ignores the case of the name (RFC 9110 §5.1), on every platform.
///
/// Foundation's `[String: String]` keeps whichever case a name was sent in, and on Linux `URLRequest` keeps the
/// caller's spelling, so `headers["X-API-Key"]` finds nothing for a request that set `x-api-key`. Here it does:
///
/// ```swift
/// let headers: HeaderFields = ["x-api-key": "k1", "Accept": "application/json"]
/// headers["X-API-Key"]          // "k1"
/// headers.contains("ACCEPT")    // true
/// ```
///
/// A name sent more than once keeps each value: ``values(for:)`` returns them in order, and the subscript joins
/// them with `", "`, as RFC 9110 §5.3 allows for every field but `Set-Cookie`.
public struct HeaderFields: Sendable, Hashable {
    /// One header field: a name, as it was spelled, and its value.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields, in order.
    public private(set) var fields: [Field]

    /// No fields.
    public init() { fields = [] }

    /// The fields of a dictionary, ordered by name (a dictionary has no order of its own, and this one is the
    /// same in every process).
    public init(_ dictionary: [String: String]) {
        fields = dictionary.sorted { $0.key < $1.key }.map { Field(name: $0.key, value: $0.value) }
    }

    /// The fields, in the order given; a name may repeat.
    public init(_ fields: some Sequence<Field>) {
        self.fields = Array(fields)
    }

    /// The value of the field named `name` in any case; the values of a repeated field joined with `", "`;
    /// `nil` when there is none. Setting a value replaces every field of that name (in place of the first);
    /// setting `nil` removes them.
    public subscript(name: String) -> String? {
        get {
            // No array for the common case of one field (a lookup on every stubbed response).
            var found: String?
            for field in fields where headerNamesMatch(field.name, name) {
                found = found.map { $0 + ", " + field.value } ?? field.value
            }
            return found
        }
        set {
            guard let first = fields.firstIndex(where: { headerNamesMatch($0.name, name) }) else {
                if let newValue { fields.append(Field(name: name, value: newValue)) }
                return
            }
            var kept: [Field] = []
            kept.reserveCapacity(fields.count)
            for (index, field) in fields.enumerated() {
                if index == first {
                    if let newValue { kept.append(Field(name: field.name, value: newValue)) }
                } else if !headerNamesMatch(field.name, name) {
                    kept.append(field)
                }
            }
            fields = kept
        }
    }

    /// Every value of the field named `name` in any case, in the order sent.
    public func values(for name: String) -> [String] {
        fields.lazy.filter { headerNamesMatch($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` in any case is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { headerNamesMatch($0.name, name) }
    }

    /// Adds a field at the end, keeping any of the same name (`Set-Cookie` is sent once per cookie).
    public mutating func append(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// These fields with `other`'s in place of every field of the same names in any case (`content-type` replaces
    /// `Content-Type`: one is sent, not two), `other`'s added at the end in its order and spelling.
    public func replacing(with other: HeaderFields) -> HeaderFields {
        var result = HeaderFields(fields.filter { field in !other.contains(field.name) })
        result.fields += other.fields
        return result
    }

    /// The number of fields, counting each repeat.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The fields as Foundation's dictionary (`URLRequest.allHTTPHeaderFields`): a repeated name's values joined
    /// with `", "` under its first spelling.
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        var spelling: [String: String] = [:]
        for field in fields {
            let key = field.name.lowercased()
            if let name = spelling[key] {
                result[name] = result[name].map { $0 + ", " + field.value } ?? field.value
            } else {
                spelling[key] = field.name
                result[field.name] = field.value
            }
        }
        return result
    }
}

extension HeaderFields: ExpressibleByDictionaryLiteral {
    /// The fields in the order written.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }
}

extension HeaderFields: Sequence {
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}

extension HeaderFields: CustomStringConvertible {
    /// One `Name: value` line per field.
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}

/// Whether two header names are equal without regard to ASCII case, without Foundation's locale-aware
/// comparison (which on Linux goes through CFString for every header of every response).
package func headerNamesMatch(_ a: String, _ b: String) -> Bool {
    a.utf8.count == b.utf8.count
        && zip(a.utf8, b.utf8).allSatisfy { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= UInt8(ascii: "a") && (x | 0x20) <= UInt8(ascii: "z"))
        }
}

extension HeaderFields {
    /// The `name=value` pairs of one `Cookie` field's value (`a=1; b=2`), names and values trimmed; a segment
    /// without `=` is skipped. The one reading of a cookie list, for the stubs' matcher and the redactor.
    package static func cookiePairs(in value: some StringProtocol) -> [(name: String, value: String)] {
        value.split(separator: ";").compactMap { segment in
            guard let equals = segment.firstIndex(of: "=") else { return nil }
            return (
                segment[..<equals].trimmingCharacters(in: .whitespaces),
                segment[segment.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            )
        }
    }
}
