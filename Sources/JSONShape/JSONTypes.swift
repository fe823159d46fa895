/// A set of JSON types, as a schema's `type` keyword lists them.
///
/// `integer` is kept apart from `number` (`1` versus `1.0`); a set holding both is normalised to
/// `number`, since every integer is a number.
///
/// ```swift
/// let types: JSONTypes = [.string, .null]
/// types.description  // "string|null"
/// ```
public struct JSONTypes: OptionSet, Sendable, Hashable, CustomStringConvertible, BitwiseCopyable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let object = JSONTypes(rawValue: 1 << 0)
    public static let array = JSONTypes(rawValue: 1 << 1)
    public static let string = JSONTypes(rawValue: 1 << 2)
    public static let integer = JSONTypes(rawValue: 1 << 3)
    public static let number = JSONTypes(rawValue: 1 << 4)
    public static let boolean = JSONTypes(rawValue: 1 << 5)
    public static let null = JSONTypes(rawValue: 1 << 6)

    /// Every type, in the order a schema lists them.
    static let ordered: [(JSONTypes, String)] = [
        (.object, "object"), (.array, "array"), (.string, "string"), (.integer, "integer"),
        (.number, "number"), (.boolean, "boolean"), (.null, "null"),
    ]

    /// The type named `name` (`"integer"`), or `nil`.
    public init?(name: String) {
        guard let match = Self.ordered.first(where: { $0.1 == name }) else { return nil }
        self = match.0
    }

    /// The names of the types in schema order: `["string", "null"]`.
    public var names: [String] {
        Self.ordered.compactMap { contains($0.0) ? $0.1 : nil }
    }

    /// The names joined with `|`, as diff output writes a union: `string|null`; `any` for the empty set.
    public var description: String {
        isEmpty ? "any" : names.joined(separator: "|")
    }

    /// The set with `integer` folded into `number` when both are present.
    public var normalized: JSONTypes {
        contains([.integer, .number]) ? subtracting(.integer) : self
    }

    /// Whether every value of these types is also a value of `other` (an integer is a number).
    public func isSubset(ofAccepted other: JSONTypes) -> Bool {
        var rest = subtracting(other)
        if other.contains(.number) { rest.remove(.integer) }
        return rest.isEmpty
    }
}
