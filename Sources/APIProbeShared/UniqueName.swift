/// The one rule for a name that must not repeat: `base` itself when free, else `base` + `separator` + 2, 3, …,
/// the first that is free (`owner`, `owner-2`; a label `search#2`).
package enum UniqueName {
    /// - Parameters:
    ///   - base: the name wanted.
    ///   - separator: what goes between the name and its number.
    ///   - isTaken: whether a candidate is already used.
    package static func first(_ base: String, separator: String = "-", isTaken: (String) -> Bool) -> String {
        guard isTaken(base) else { return base }
        var number = 2
        while isTaken("\(base)\(separator)\(number)") { number += 1 }
        return "\(base)\(separator)\(number)"
    }
}
