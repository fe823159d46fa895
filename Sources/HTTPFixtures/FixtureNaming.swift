import Foundation

/// How imported exchanges are named, so that the samples of one endpoint become fixtures of one endpoint.
///
/// The name of an endpoint is a fixture's name up to its first `.` (see the fixture file format), so the
/// second and later samples of a name get `.2`, `.3`, …: `issues`, `issues.2`, `issues.3` are three samples of
/// `issues`, and `snapshot update` infers one snapshot from them. The name itself comes from, in order:
/// - ``name``, for every exchange (`--name issues`);
/// - the first of ``templates`` whose path template the URL's path matches: its explicit name
///   (`/repos/{owner}/{repo}/issues=repo-issues`) or its last segment (`issues`; `repo` for a last `{repo}`);
/// - the method and path (`get-api-search`), the default.
package struct FixtureNaming: Sendable {
    /// One name for every exchange.
    package var name: String?
    /// Path templates, each with an optional explicit name.
    package var templates: [PathTemplate]

    package init(name: String? = nil, templates: [PathTemplate] = []) {
        self.name = name
        self.templates = templates
    }

    /// A path template with `{placeholder}` segments, and the name of the fixtures it matches.
    package struct PathTemplate: Sendable, Hashable {
        package var segments: [String]
        package var name: String

        /// `/repos/{owner}/{repo}/issues` or `/repos/{owner}/{repo}/issues=repo-issues`; `nil` when it is not a
        /// path (it must start with `/`) or names nothing.
        package init?(_ text: String) {
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let path = String(parts[0])
            guard path.hasPrefix("/") else { return nil }
            segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
            let last = segments.last(where: { !$0.isEmpty }) ?? ""
            let implicit = last.hasPrefix("{") && last.hasSuffix("}") ? String(last.dropFirst().dropLast()) : last
            let chosen = parts.count == 2 ? String(parts[1]) : implicit
            name = SafePath.fileName(FixtureNaming.slug(chosen), fallback: "")
            if name.isEmpty { return nil }
        }

        /// Whether `path` has this template's segments, a placeholder standing for one non-empty segment.
        package func matches(path: String) -> Bool {
            let actual = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            guard actual.count == segments.count else { return false }
            return zip(segments, actual).allSatisfy { pattern, segment in
                (pattern.hasPrefix("{") && pattern.hasSuffix("}") && !segment.isEmpty) || pattern == segment
            }
        }
    }

    /// The base name of one exchange (before any `.2`): ``name``, a matching template's, or `fallback`.
    package func baseName(method: String, url: String, fallback: String) -> String {
        if let name { return name }
        let path = URLComponents(string: url)?.path ?? ""
        if let template = templates.first(where: { $0.matches(path: path) }) { return template.name }
        return fallback
    }

    /// Unique names for many exchanges: the first of a base is the base, later ones `.2`, `.3`, … (samples
    /// of one endpoint). `key` scopes uniqueness (a host, when exchanges go to folders by host).
    package static func numbered(_ bases: [(key: String, base: String)]) -> [String] {
        var used: [String: Int] = [:]
        return bases.map { item in
            let id = "\(item.key)/\(item.base)"
            let count = (used[id] ?? 0) + 1
            used[id] = count
            return count == 1 ? item.base : "\(item.base).\(count)"
        }
    }

    /// `GET https://x/api/search?q=a` → `get-api-search`; the root path gives `get-root`.
    package static func methodAndPath(method: String, url: String) -> String {
        let path = URLComponents(string: url)?.percentEncodedPath ?? ""
        var slug = slug(path)
        if slug.count > 80 { slug = String(slug.prefix(80)) }
        while slug.hasSuffix("-") { slug.removeLast() }
        return SafePath.fileName("\(method.lowercased())-\(slug.isEmpty ? "root" : slug)", fallback: "entry")
    }

    /// Lower-case letters and digits, every other run of characters one `-`: `Get a repo` → `get-a-repo`.
    package static func slug(_ text: String) -> String {
        var slug = ""
        var lastWasDash = true
        for character in text.lowercased().unicodeScalars {
            if ("a"..."z").contains(character) || ("0"..."9").contains(character) {
                slug.unicodeScalars.append(character)
                lastWasDash = false
            } else if !lastWasDash {
                slug += "-"
                lastWasDash = true
            }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return slug
    }
}
