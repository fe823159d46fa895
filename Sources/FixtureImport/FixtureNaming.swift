import Foundation
import HTTPFixtures

/// How imported exchanges are named, so that the samples of one endpoint become fixtures of one endpoint.
///
/// The name of an endpoint is a fixture's name up to its first `.` (see the fixture file format), so the
/// second and later samples of a name get `.2`, `.3`, …: `issues`, `issues.2`, `issues.3` are three samples of
/// `issues`, and `snapshot update` infers one snapshot from them. The name itself comes from, in order:
/// - ``name``, for every exchange (`--name issues`);
/// - the first of ``templates`` whose method (when it names one) and path template the request has: its
///   explicit name (`GET /repos/{owner}/{repo}/issues=repo-issues`) or its last segment (`issues`; `repo` for a
///   last `{repo}`);
/// - the operation of a spec (``operations``, `--spec`) with the request's method and path: the name of the
///   snapshot `openapi import` writes for it, so fixtures and spec snapshots line up by name;
/// - the importer's own default (the request's title for Postman, the method and path for HAR).
///
/// A template matches a request's path as it is, or without one of ``basePaths`` (the spec's servers' paths,
/// and the base URL's path a Postman request is built on): `/companies` matches `/v3/companies` when the API
/// lives under `/v3`.
package struct FixtureNaming: Sendable {
    /// One name for every exchange.
    var name: String?
    /// Path templates, each with an optional method and explicit name.
    var templates: [PathTemplate]
    /// A spec's operations, each named as `openapi import` names its snapshot.
    package var operations: [PathTemplate]
    /// Base paths (`/v3`) a path may carry before a template's first segment.
    package var basePaths: [String]

    package init(
        name: String? = nil, templates: [PathTemplate] = [], operations: [PathTemplate] = [], basePaths: [String] = []
    ) {
        self.name = name
        self.templates = templates
        self.operations = operations
        self.basePaths = basePaths
    }

    /// A path template with `{placeholder}` segments, an optional method, and the name of the fixtures it matches.
    package struct PathTemplate: Sendable, Hashable {
        /// The method it is limited to (upper case), or `nil` for any.
        var method: String?
        /// The path template, `/repos/{owner}/{repo}`.
        var path: String
        var name: String

        /// `/repos/{owner}/{repo}/issues`, `GET /repos/{owner}/{repo}/issues` or either with `=repo-issues`;
        /// `nil` when it is not a path (it must start with `/`, after the method) or names nothing.
        package init?(_ text: String) {
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let (method, path) = Self.methodAndPath(String(parts[0])) else { return nil }
            self.method = method
            self.path = path
            let last = path.split(separator: "/").last.map(String.init) ?? ""
            let implicit = last.hasPrefix("{") && last.hasSuffix("}") ? String(last.dropFirst().dropLast()) : last
            let chosen = parts.count == 2 ? String(parts[1]) : implicit
            name = SafePath.fileName(FixtureNaming.slug(chosen), fallback: "")
            if name.isEmpty { return nil }
        }

        /// An operation of a spec, with the name its fixtures take.
        package init(method: String, path: String, name: String) {
            self.method = method.uppercased()
            self.path = path
            self.name = name
        }

        /// `GET /a` → (`GET`, `/a`); `/a` → (`nil`, `/a`); anything else `nil`.
        static func methodAndPath(_ text: String) -> (String?, String)? {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("/") { return (nil, trimmed) }
            let words = trimmed.split(separator: " ", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard words.count == 2, words[1].hasPrefix("/"), HARArchive.isMethod(words[0]) else { return nil }
            return (words[0].uppercased(), words[1])
        }

        /// How many literal segments match when the request's method and path (with or without one of
        /// `basePaths`) fit this template; `nil` when they do not.
        func match(method: String, path: String, basePaths: [String]) -> Int? {
            if let expected = self.method, expected != method.uppercased() { return nil }
            for candidate in FixtureNaming.candidatePaths(path, basePaths: basePaths) {
                if let (_, literals) = HTTPFixtures.PathTemplate.match(
                    template: self.path, segments: HTTPFixtures.PathTemplate.segments(candidate))
                {
                    return literals
                }
            }
            return nil
        }
    }

    /// A path as it is, then without each base path it starts with.
    static func candidatePaths(_ path: String, basePaths: [String]) -> [String] {
        var result = [path]
        for base in basePaths where !base.isEmpty && base != "/" {
            let stripped = HTTPFixtures.PathTemplate.stripBase(path, basePaths: [base])
            if stripped != path { result.append(stripped) }
        }
        return result
    }

    /// The name ``name``, a template or an operation gives one exchange; `nil` when none applies (the
    /// importer's default names it). `requestBasePath` is the base URL's path the request was built on.
    func explicitName(method: String, url: String, requestBasePath: String? = nil) -> String? {
        if let name { return name }
        let path = HTTPFixtures.PathTemplate.path(of: url)
        let bases = basePaths + (requestBasePath.map { [$0] } ?? [])
        if let template = templates.first(where: { $0.match(method: method, path: path, basePaths: bases) != nil }) {
            return template.name
        }
        return operation(method: method, url: url, requestBasePath: requestBasePath)?.name
    }

    /// The operation of ``operations`` a request belongs to: the one whose template has the most literal segments.
    func operation(method: String, url: String, requestBasePath: String? = nil) -> PathTemplate? {
        let path = HTTPFixtures.PathTemplate.path(of: url)
        let bases = basePaths + (requestBasePath.map { [$0] } ?? [])
        var best: (PathTemplate, Int)?
        for operation in operations {
            guard let literals = operation.match(method: method, path: path, basePaths: bases) else { continue }
            if best.map({ literals > $0.1 }) ?? true { best = (operation, literals) }
        }
        return best?.0
    }

    /// The base name of one exchange (before any `.2`): ``name``, a matching template's or operation's, or
    /// `fallback`.
    package func baseName(method: String, url: String, fallback: String) -> String {
        explicitName(method: method, url: url) ?? fallback
    }

    /// Unique names for many exchanges: the first of a base is the base, later ones `.2`, `.3`, … (samples
    /// of one endpoint). `key` scopes uniqueness (a host, when exchanges go to folders by host).
    static func numbered(_ bases: [(key: String, base: String)]) -> [String] {
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
        methodAndPath(method: method, path: URLComponents(string: url)?.percentEncodedPath ?? "")
    }

    /// `GET` and `/v3/stores/{storeId}` → `get-v3-stores-storeid`: a method and a path, or a path template, as one
    /// name.
    static func methodAndPath(method: String, path: String) -> String {
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

/// Which part of a collection, archive or fixture folder a command works on (`--only`): a folder of a Postman
/// collection (`Stores`, `Stores/Settings`), a path prefix (`/v3/stores`: that path and everything under it), or
/// a path template (`/v3/stores/{storeId}`: exactly that endpoint), either of the last two with a method
/// (`GET /v3/stores`). Paths match as they are or without a base path (`/stores` selects `/v3/stores` when the
/// API lives under `/v3`).
package struct ImportSelection: Sendable, Hashable, CustomStringConvertible {
    enum Rule: Sendable, Hashable {
        case folder([String])
        case path(method: String?, path: String)
    }

    var rule: Rule
    /// The text it was made from, for messages.
    package var description: String

    /// `nil` for an empty text or a method with no path.
    package init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        description = trimmed
        if let (method, path) = FixtureNaming.PathTemplate.methodAndPath(trimmed) {
            rule = .path(method: method, path: path)
        } else {
            let parts = trimmed.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !parts.isEmpty, !parts.contains(where: \.isEmpty), !trimmed.contains(" /") else { return nil }
            rule = .folder(parts)
        }
    }

    /// Whether it selects a request: `folders` are the names of the Postman folders it is in, outermost first.
    package func selects(method: String, url: String, folders: [String] = [], basePaths: [String] = []) -> Bool {
        switch rule {
        case .folder(let names):
            guard names.count <= folders.count else { return false }
            return (0...(folders.count - names.count)).contains { start in
                zip(names, folders[start...]).allSatisfy { $0.caseInsensitiveCompare($1) == .orderedSame }
            }
        case .path(let expectedMethod, let template):
            if let expectedMethod, expectedMethod != method.uppercased() { return false }
            let path = HTTPFixtures.PathTemplate.path(of: url)
            let wanted = HTTPFixtures.PathTemplate.segments(template)
            return FixtureNaming.candidatePaths(path, basePaths: basePaths).contains { candidate in
                let segments = HTTPFixtures.PathTemplate.segments(candidate)
                if template.contains("{") {
                    return HTTPFixtures.PathTemplate.match(template: template, segments: segments) != nil
                }
                return segments.count >= wanted.count
                    && zip(wanted, segments).allSatisfy { $0 == $1 || $0 == ($1.removingPercentEncoding ?? $1) }
            }
        }
    }

    /// Whether it can name a folder (only a Postman collection has folders).
    package var isFolder: Bool {
        if case .folder = rule { return true }
        return false
    }
}
