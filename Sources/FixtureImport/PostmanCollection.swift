import APIProbeShared
package import Foundation
package import HTTPFixtures

/// A Postman collection (format v2.1, or v2.0) read as fixtures: one ``Exchange`` per saved example response,
/// redacted, named after its endpoint.
///
/// Folders are walked in order. An example's `originalRequest` is its request (the item's own request when it
/// has none). The URL is the one Postman sends: built from the structured `url` (`protocol`, `host`, `port`,
/// `path`, the enabled `query` items), `raw` only when there is no structure. `{{variables}}` are replaced from
/// the collection's `variable` list and from `variables` (which win: a Postman environment's values; a `:name`
/// key sets the path variable `name`), `:name` path segments from the URL's `variable` list. A request's `auth`
/// (or its folder's or the collection's, which requests inherit; `noauth` stops that), in v2.0's object form or
/// v2.1's list, becomes the header or query item it stands for, so it is redacted like any credential; a scheme
/// that signs each request is warned. Requests with no saved example are listed in ``skipped``.
///
/// Nothing is changed without a word in ``warnings``:
/// - a variable that is empty or has no value never makes an empty path segment: the segment keeps a
///   placeholder made from its name (`/v3/companies/{YOUR_ACCOUNT}`, a path template for the stubs), once
///   warned for each variable; outside the path an undefined variable is sent as written, as Postman does;
/// - a body whose `Content-Type` (or Postman's preview language) says JSON but that does not parse is kept as
///   text, and the warning names the request, the line and the column;
/// - Postman's dynamic variables (`{{$guid}}`, `{{$timestamp}}`, …) take the fixed values of
///   ``dynamicVariableValues``, so a re-import changes no byte; one the table lacks takes its own name
///   (`{{$randomCity}}` → `randomCity`) and is warned;
/// - an example saved without a status code (Postman's schema allows it) takes the status its status text or
///   name gives when that is a reason phrase (`"OK"` → 200, `"Not Found"` → 404), else 200; one warning counts
///   the examples of each guess and names the first;
/// - an example whose own request is saved without a URL, or with a base URL variable the collection does not
///   define, answers the item's request, and says so.
///
/// Examples are named by endpoint, not by title: the examples of one method and path template are samples of one
/// endpoint, named after the first request's title (or, when another endpoint already has that name, after the
/// method and template: `get-v3-stores-storeid`); a template or a spec's operation names them first (see
/// `apiprobe import postman --template`, `--spec`).
///
/// ```swift
/// let collection = try PostmanCollection(parsing: Data(contentsOf: url), file: "github.postman_collection.json")
/// for entry in collection.entries {
///     try store.write(entry.exchange, named: "github/\(entry.name)")   // github/list-issues, github/list-issues.2
/// }
/// ```
package struct PostmanCollection: Sendable {
    /// One imported example.
    package struct Entry: Sendable, Hashable {
        /// A file name, unique in the collection: the endpoint's name, then `.2`, `.3`, … for its further
        /// examples (samples of one endpoint).
        package var name: String
        /// The redacted exchange, with `metadata.source` `"postman"`.
        package var exchange: Exchange
        /// Where the example is in the collection: `/item/0/item/2/response/1`.
        package var pointer: String
    }

    /// The collection's name (`info.name`).
    package var name: String
    /// The imported examples, in collection order.
    package var entries: [Entry]
    /// Requests that were not imported, with the reason: `/item/3 (Delete a label): no saved example response`.
    package var skipped: [String]
    /// What was imported other than exactly as written, one line each, with the place:
    /// `{{YOUR_ACCOUNT}} is empty: the path segments it fills keep the placeholder {YOUR_ACCOUNT} (set it with --var YOUR_ACCOUNT=…)`.
    package var warnings: [String]
    /// How many requests the collection has (with or without examples).
    package var requestCount: Int
    /// How many of them `only` selected (all of them without `only`).
    package var selectedCount: Int
    /// The dynamic variables used (`$guid`, `$timestamp`), each given its fixed value.
    package var dynamicVariables: [String]

    /// The fixed values of Postman's dynamic variables, by name (without `{{$` and `}}`). Any other dynamic
    /// variable takes its own name (`{{$randomCity}}` → `randomCity`), with a warning.
    static let dynamicVariableValues: [String: String] = [
        "guid": "00000000-0000-4000-8000-000000000000",
        "randomUUID": "00000000-0000-4000-8000-000000000000",
        "timestamp": "1767225600",  // 2026-01-01T00:00:00Z
        "isoTimestamp": "2026-01-01T00:00:00.000Z",
        "randomInt": "500",
        "randomBoolean": "true",
        "randomAlphaNumeric": "a",
        "randomHexadecimal": "0xa",
        "randomAbbreviation": "API",
        "randomIP": "192.0.2.1",
        "randomIPV6": "2001:db8::1",
        "randomMACAddress": "00:00:5e:00:53:01",
        "randomPassword": "password",
        "randomLocale": "en",
        "randomUserAgent": "apiprobe",
        "randomProtocol": "https",
        "randomSemver": "1.0.0",
        "randomFirstName": "Ada",
        "randomLastName": "Lovelace",
        "randomFullName": "Ada Lovelace",
        "randomNamePrefix": "Dr.",
        "randomNameSuffix": "Jr.",
        "randomJobTitle": "Engineer",
        "randomPhoneNumber": "555-0100",
        "randomPhoneNumberExt": "555-0100",
        "randomCity": "Springfield",
        "randomStreetName": "Main Street",
        "randomStreetAddress": "1 Main Street",
        "randomCountry": "Netherlands",
        "randomCountryCode": "NL",
        "randomLatitude": "52.3676",
        "randomLongitude": "4.9041",
        "randomColor": "blue",
        "randomHexColor": "#0000ff",
        "randomWord": "word",
        "randomWords": "some words",
        "randomLoremWord": "lorem",
        "randomLoremWords": "lorem ipsum",
        "randomLoremSentence": "Lorem ipsum dolor sit amet.",
        "randomLoremParagraph": "Lorem ipsum dolor sit amet.",
        "randomLoremText": "Lorem ipsum dolor sit amet.",
        "randomLoremSlug": "lorem-ipsum",
        "randomEmail": "user@example.com",
        "randomExampleEmail": "user@example.com",
        "randomUserName": "user",
        "randomUrl": "https://example.com",
        "randomDomainName": "example.com",
        "randomDomainSuffix": "com",
        "randomDomainWord": "example",
        "randomCompanyName": "Example Inc",
        "randomCompanySuffix": "Inc",
        "randomPrice": "100.00",
        "randomCurrencyCode": "EUR",
        "randomCurrencyName": "Euro",
        "randomCurrencySymbol": "€",
        "randomBankAccount": "12345678",
        "randomBankAccountName": "Checking Account",
        "randomCreditCardMask": "1234",
        "randomBankAccountIban": "NL91ABNA0417164300",
        "randomBankAccountBic": "ABNANL2A",
        "randomTransactionType": "payment",
        "randomDateFuture": "2026-01-02T00:00:00.000Z",
        "randomDatePast": "2025-12-31T00:00:00.000Z",
        "randomDateRecent": "2026-01-01T00:00:00.000Z",
        "randomWeekday": "Thursday",
        "randomMonth": "January",
        "randomFileName": "file.txt",
        "randomFileType": "text",
        "randomFileExt": "txt",
        "randomMimeType": "text/plain",
        "randomImageUrl": "https://example.com/image.png",
        "randomAvatarImage": "https://example.com/avatar.png",
        "randomProduct": "Product",
        "randomProductName": "Product",
        "randomDepartment": "Sales",
    ]

    /// The enabled values of a Postman environment file (`{"name": …, "values": [{"key", "value", "enabled"}]}`,
    /// as Postman exports it), to pass as `variables`.
    ///
    /// - Throws: ``InputError``: the line and column of a JSON syntax error, or the JSON Pointer of a field that
    ///   is missing or mistyped.
    package static func environmentValues(parsing data: Data, file: String) throws(InputError) -> [String: String] {
        let reader = PostmanReader(file: file)
        let document = try reader.parse(data)
        guard case .object = document else {
            throw reader.fail("", "a Postman environment (an object with \"values\")", document.briefDescription)
        }
        var result: [String: String] = [:]
        let values = try reader.array(reader.required(document, "values", in: ""), at: "/values")
        for (index, value) in values.enumerated() {
            let pointer = "/values/\(index)"
            let pair = try reader.object(value, at: pointer)
            if case .bool(false)? = pair["enabled"] { continue }
            let key = try reader.string(reader.required(pair, "key", in: pointer), at: "\(pointer)/key")
            var text = ""
            if let value = pair["value"], value != .null { text = try reader.string(value, at: "\(pointer)/value") }
            result[key] = text
        }
        return result
    }

    /// Reads a collection.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - file: the name used in errors.
    ///   - variables: values for `{{name}}` placeholders, over the collection's own; a key `:name` sets the path
    ///     variable `name` of every request.
    ///   - policy: the redaction applied to every example.
    /// - Throws: ``InputError``: the line and column of a JSON syntax error, or the JSON Pointer of a field that
    ///   is missing or mistyped, or of a base URL whose variable has no value.
    package init(
        parsing data: Data, file: String, variables: [String: String] = [:],
        redactingWith policy: RedactionPolicy = .default
    ) throws(InputError) {
        try self.init(parsing: data, file: file, variables: variables, redactingWith: policy, naming: FixtureNaming())
    }

    /// Reads a collection, naming its examples with `naming` (`--name`, `--template`, `--spec`) and importing
    /// only the requests one of `only` selects (all when it is empty).
    package init(
        parsing data: Data, file: String, variables: [String: String], redactingWith policy: RedactionPolicy,
        naming: FixtureNaming, only: [ImportSelection] = []
    ) throws(InputError) {
        var reader = PostmanReader(file: file)
        let document = try reader.parse(data)
        guard case .object = document else {
            throw reader.fail(
                "", "a Postman collection (an object with \"info\" and \"item\")", document.briefDescription)
        }
        // A collection of format v1 has its requests in a flat "requests" list and no "info": said as such, with
        // the way out, rather than as a missing field.
        if document["info"] == nil, case .array? = document["requests"] {
            throw reader.fail(
                "", "a Postman collection of format v2.1 or v2.0 (open it in Postman and export it as Collection v2.1)",
                "a collection of format v1 (\"requests\" and no \"info\")")
        }
        let info = try reader.object(reader.required(document, "info", in: ""), at: "/info")
        name = try reader.string(reader.required(info, "name", in: "/info"), at: "/info/name")
        if let schema = info["schema"] {
            let text = try reader.string(schema, at: "/info/schema")
            guard text.contains("/v2.1") || text.contains("/v2.0") else {
                throw reader.fail(
                    "/info/schema", "a Postman collection of format v2.1 or v2.0 (export it as Collection v2.1)",
                    "string \"\(text)\"")
            }
        }
        var values: [String: String] = [:]
        if let list = document["variable"] {
            values = try reader.keyValues(list, at: "/variable", keyField: "key")
        }
        values.merge(variables) { $1 }
        let collectionAuth = try document["auth"].map { value throws(InputError) in
            try reader.object(value, at: "/auth")
        }

        let redactor = Redactor(policy)
        // A variable named like a credential (`token`, `apiKey`, `client_secret`) holds a secret wherever its
        // value is used; a base URL or an id does not.
        for (key, value) in values where policy.isSensitiveParameter(key) || policy.isSensitiveBodyKey(key) {
            redactor.learn(value)
        }
        reader.values = values
        reader.redactor = redactor
        reader.only = only
        reader.naming = naming
        try reader.walk(
            reader.array(reader.required(document, "item", in: ""), at: "/item"), at: "/item", folders: [],
            inherited: collectionAuth)
        for selection in only where !reader.selectionsUsed.contains(selection) {
            throw InputError(
                file: file, position: .file,
                expected: "a request that --only \(selection) selects (a folder name, a path prefix or a template)",
                found: "none of the collection's \(reader.requestCount) requests")
        }
        let all = reader.found
        for item in all { redactor.learnSecrets(in: item.exchange) }

        let names = Self.endpointNames(all, naming: naming)
        entries = zip(all, FixtureNaming.numbered(names.map { (key: "", base: $0) })).compactMap { item, name in
            item.isSelected ? Entry(name: name, exchange: redactor.redact(item.exchange), pointer: item.pointer) : nil
        }
        let found = all.filter(\.isSelected)
        skipped = reader.skipped
        requestCount = reader.requestCount
        selectedCount = reader.selectedCount
        dynamicVariables = reader.dynamicUsed.sorted().map { "$" + $0 }
        var warnings = reader.warnings
        for guess in reader.statusGuesses.values.sorted(by: { $0.first < $1.first }) {
            let examples = guess.count == 1 ? "1 saved example has" : "\(guess.count) saved examples have"
            warnings.append("\(examples) no status code (first: \(guess.first)): stored as \(guess.why)")
        }
        if !naming.operations.isEmpty {
            var seen = Set<String>()
            for item in found
            where naming.operation(
                method: item.exchange.request.method, url: item.exchange.request.url, requestBasePath: item.basePath)
                == nil && seen.insert(item.requestPointer).inserted
            {
                warnings.append(
                    "\(item.requestPointer) (\(redactor.redact(text: item.requestName))): \(item.exchange.request.method) \(redactor.redactURL(item.templatePath)) is no operation of the spec; named by its title"
                )
            }
        }
        self.warnings = warnings.map { redactor.redact(text: $0) }
    }

    /// One base name per example: a template's or operation's, else the endpoint's (its method and path
    /// template), named after the first request's title unless another endpoint has that name.
    static func endpointNames(_ found: [PostmanReader.Found], naming: FixtureNaming) -> [String] {
        var endpointName: [String: String] = [:]
        var taken: [String: String] = [:]  // name → endpoint key
        for item in found {
            let request = item.exchange.request
            if naming.explicitName(method: request.method, url: request.url, requestBasePath: item.basePath)
                != nil
            {
                continue
            }
            let key = "\(request.method) \(item.templatePath)"
            guard endpointName[key] == nil else { continue }
            let byTitle = SafePath.fileName(FixtureNaming.slug(item.requestName), fallback: "")
            let byPath = FixtureNaming.methodAndPath(method: request.method, path: item.templatePath)
            var name = byTitle.isEmpty || taken[byTitle] != nil ? byPath : byTitle
            name = UniqueName.first(name) { taken[$0] != nil }
            taken[name] = key
            endpointName[key] = name
        }
        return found.map { item in
            let request = item.exchange.request
            return naming.explicitName(method: request.method, url: request.url, requestBasePath: item.basePath)
                ?? endpointName["\(request.method) \(item.templatePath)"] ?? "entry"
        }
    }
}

struct PostmanReader: JSONFieldReading {
    let file: String
    var values: [String: String] = [:]
    var redactor = Redactor()
    var only: [ImportSelection] = []
    var naming = FixtureNaming()

    struct Found {
        var exchange: Exchange
        var requestName: String
        var pointer: String
        var requestPointer: String
        /// The request's path with its variables as `{name}`: `/v3/stores/{storeId}`.
        var templatePath: String
        /// The path of the base URL the request is built on (`/v3`), or `""`.
        var basePath: String
        /// Whether `only` selects it (it is read all the same, to name endpoints as a whole import does).
        var isSelected: Bool
    }

    var found: [Found] = []
    var skipped: [String] = []
    var warnings: [String] = []
    var requestCount = 0
    var selectedCount = 0
    var dynamicUsed = Set<String>()
    var selectionsUsed = Set<ImportSelection>()
    var warned = Set<String>()
    /// Examples saved without a status code, by the status given them and why: one warning each at the end.
    var statusGuesses: [String: (count: Int, first: String, why: String)] = [:]
    /// The request being read, for warnings: `/item/2 (Create a store)`.
    var current = ""

    /// A value as text: a string, or a number or a boolean written as one (Postman writes some values, ports and
    /// variables, as numbers), unlike `string(_:at:)`.
    func scalarText(_ value: JSONValue, at pointer: String) throws(InputError) -> String {
        switch value {
        case .string(let text): return text
        case .number(let literal): return literal  // Postman writes some values (ports, variables) as numbers
        case .bool(let flag): return flag ? "true" : "false"
        default: throw fail(pointer, "a string", value.briefDescription)
        }
    }

    /// `[{"key": …, "value": …, "disabled": true?}]`, enabled pairs only; Postman's `value` may be missing.
    func optionalPairs(_ value: JSONValue, at pointer: String, keyField: String) throws(InputError) -> [(
        String, String?
    )] {
        var result: [(String, String?)] = []
        for (index, item) in try array(value, at: pointer).enumerated() {
            let itemPointer = "\(pointer)/\(index)"
            let pair = try object(item, at: itemPointer)
            if case .bool(true)? = pair["disabled"] { continue }
            let key = try scalarText(required(pair, keyField, in: itemPointer), at: "\(itemPointer)/\(keyField)")
            var text: String?
            if let value = pair["value"], value != .null { text = try scalarText(value, at: "\(itemPointer)/value") }
            result.append((key, text))
        }
        return result
    }

    func pairs(_ value: JSONValue, at pointer: String, keyField: String) throws(InputError) -> [(String, String)] {
        try optionalPairs(value, at: pointer, keyField: keyField).map { ($0.0, $0.1 ?? "") }
    }

    func keyValues(_ value: JSONValue, at pointer: String, keyField: String) throws(InputError) -> [String: String] {
        var result: [String: String] = [:]
        for (key, text) in try pairs(value, at: pointer, keyField: keyField) { result[key] = text }
        return result
    }

    // MARK: Variables

    /// A piece of a text with `{{variables}}`.
    enum Piece {
        case text(Substring)
        case variable(String)
    }

    static func pieces(_ text: String) -> [Piece] {
        var result: [Piece] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            if open.lowerBound > rest.startIndex { result.append(.text(rest[..<open.lowerBound])) }
            result.append(
                .variable(String(rest[open.upperBound..<close.lowerBound]).trimmingCharacters(in: .whitespaces)))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { result.append(.text(rest)) }
        return result
    }

    /// A variable's value: a dynamic variable's fixed value, the collection's or `--var`'s, or `nil`.
    mutating func value(of name: String) -> String? {
        guard name.hasPrefix("$") else { return values[name] }
        let dynamic = String(name.dropFirst())
        dynamicUsed.insert(dynamic)
        if let fixed = PostmanCollection.dynamicVariableValues[dynamic] { return fixed }
        warnOnce(
            "dynamic \(name)",
            "{{\(name)}} is not one of the dynamic variables apiprobe gives a fixed value: it becomes \"\(dynamic)\"")
        return dynamic
    }

    mutating func warnOnce(_ key: String, _ message: String) {
        if warned.insert(key).inserted { warnings.append(message) }
    }

    /// `text` with every `{{name}}` replaced; a name with no value is sent as written (as Postman does), warned
    /// once.
    mutating func substitute(_ text: String) -> String {
        var result = ""
        for piece in Self.pieces(text) {
            switch piece {
            case .text(let literal): result += literal
            case .variable(let name):
                if let value = value(of: name) {
                    result += value
                } else {
                    warnOnce(
                        "undefined \(name)",
                        "{{\(name)}} has no value (first in \(current)): sent as written, as Postman does (set it with --var \(name)=…)"
                    )
                    result += "{{\(name)}}"
                }
            }
        }
        return result
    }

    /// How ``substituteBase(_:at:)`` begins what it expected when a base URL's variable has no value: the one
    /// failure an example's own request may have and still be imported (it answers its item's request).
    static let baseVariableExpected = "a value for the variable"

    /// A base URL's text (scheme, host, port, maybe a path): every variable must have a value.
    mutating func substituteBase(_ text: String, at pointer: String) throws(InputError) -> String {
        var result = ""
        for piece in Self.pieces(text) {
            switch piece {
            case .text(let literal): result += literal
            case .variable(let name):
                guard let value = value(of: name), !value.isEmpty else {
                    throw fail(
                        pointer,
                        "\(Self.baseVariableExpected) {{\(name)}} (in the collection's \"variable\" list, or --var \(name)=…)",
                        values[name] == nil ? "none" : "an empty value")
                }
                result += value
            }
        }
        return result
    }

    /// One path segment: its text as sent (values percent-encoded) and as a template (variables as `{name}`).
    /// An empty or undefined variable keeps the placeholder `{name}`, never an empty segment.
    mutating func pathSegment(_ segment: String, pathVariables: [String: String]) -> (sent: String, template: String) {
        if segment.hasPrefix(":"), segment.count > 1 {
            let name = String(segment.dropFirst())
            let value = values[":" + name] ?? pathVariables[name].map { substitute($0) }
            guard let value, !value.isEmpty else {
                warnOnce(
                    "path :\(name)",
                    "path variable :\(name) has no value (first in \(current)): the segment keeps the placeholder {\(name)} (set it with --var :\(name)=…)"
                )
                return (URLText.encode("{\(name)}", allowing: URLText.pathAllowed), "{\(name)}")
            }
            return (URLText.encode(value, allowing: URLText.pathAllowed), "{\(name)}")
        }
        var sent = ""
        var template = ""
        for piece in Self.pieces(segment) {
            switch piece {
            case .text(let literal):
                sent += URLText.encode(String(literal), allowing: URLText.pathAllowed)
                template += literal
            case .variable(let name):
                let placeholder = "{\(name.hasPrefix("$") ? String(name.dropFirst()) : name)}"
                template += placeholder
                if let value = value(of: name), !value.isEmpty {
                    sent += URLText.encode(value, allowing: URLText.pathAllowed)
                } else {
                    let empty = values[name] != nil
                    warnOnce(
                        "path \(name)",
                        "{{\(name)}} \(empty ? "is empty" : "has no value") (first in \(current)): the path segments it fills keep the placeholder \(placeholder) (set it with --var \(name)=…)"
                    )
                    sent += URLText.encode(placeholder, allowing: URLText.pathAllowed)
                }
            }
        }
        return (sent, template)
    }

    // MARK: Walking

    mutating func walk(
        _ items: [JSONValue], at pointer: String, folders: [String], inherited: JSONValue?
    ) throws(InputError) {
        for (index, value) in items.enumerated() {
            let itemPointer = "\(pointer)/\(index)"
            let item = try object(value, at: itemPointer)
            let name =
                try item["name"].map { value throws(InputError) in
                    try scalarText(value, at: "\(itemPointer)/name")
                } ?? "request \(index + 1)"
            let auth =
                try item["auth"].map { value throws(InputError) in
                    try object(value, at: "\(itemPointer)/auth")
                } ?? inherited
            if let children = item["item"] {
                try walk(
                    array(children, at: "\(itemPointer)/item"), at: "\(itemPointer)/item", folders: folders + [name],
                    inherited: auth)
                continue
            }
            requestCount += 1
            current = "\(itemPointer) (\(name))"
            let request = try required(item, "request", in: itemPointer)
            let responses =
                try item["response"].map { value throws(InputError) in
                    try array(value, at: "\(itemPointer)/response")
                } ?? []
            // A request `only` does not select is still read, so that endpoints are named as in a whole import,
            // but what it would warn of is not said and its examples are not imported.
            var selected = true
            let saved = (warnings, warned, dynamicUsed, statusGuesses)
            if !only.isEmpty {
                let own = try self.request(request, at: "\(itemPointer)/request", auth: nil)
                let chosen = only.filter {
                    $0.selects(
                        method: own.request.method, url: own.request.url, folders: folders,
                        basePaths: naming.basePaths + [own.basePath])
                }
                selected = !chosen.isEmpty
                selectionsUsed.formUnion(chosen)
            }
            defer { if !selected { (warnings, warned, dynamicUsed, statusGuesses) = saved } }
            if selected { selectedCount += 1 }
            guard !responses.isEmpty else {
                if selected { skipped.append("\(itemPointer) (\(name)): no saved example response") }
                continue
            }
            for (offset, responseValue) in responses.enumerated() {
                let responsePointer = "\(itemPointer)/response/\(offset)"
                let response = try object(responseValue, at: responsePointer)
                var original = response["originalRequest"]
                if let saved = original, !Self.hasURL(saved) {
                    // Postman saves some examples with an empty request (`"url": {"raw": ""}`): the item's request
                    // is the one the example answers.
                    original = nil
                    warnings.append(
                        "\(responsePointer)/originalRequest (in \(current)): the example's request has no URL; the request's own is used"
                    )
                }
                let recorded: (request: RecordedRequest, templatePath: String, basePath: String)
                do {
                    recorded = try self.request(
                        original ?? request,
                        at: original == nil ? "\(itemPointer)/request" : "\(responsePointer)/originalRequest",
                        auth: auth)
                } catch  where original != nil && error.expected.hasPrefix(Self.baseVariableExpected) {
                    // A generator's leftover: the example's request names a base URL variable the collection does
                    // not define (Plaid's `{{baseUrl}}` beside the requests' `{{env_url}}`). The item's own request
                    // is the one the example answers, as for an example saved without a URL.
                    let own = try self.request(request, at: "\(itemPointer)/request", auth: auth)
                    warnings.append(
                        "\(responsePointer)/originalRequest (in \(current)): expected \(error.expected), found \(error.found); the request's own URL is used for this example"
                    )
                    recorded = own
                }
                let exchange = try self.exchange(recorded.request, response: response, at: responsePointer)
                found.append(
                    Found(
                        exchange: exchange, requestName: name, pointer: responsePointer, requestPointer: itemPointer,
                        templatePath: recorded.templatePath, basePath: recorded.basePath, isSelected: selected))
            }
        }
    }

    /// Whether a request (Postman's string or object form) has a URL: a non-empty string, or a `url` with a `raw`
    /// or a `host` or `path`.
    static func hasURL(_ request: JSONValue) -> Bool {
        if case .string(let text) = request { return !text.trimmingCharacters(in: .whitespaces).isEmpty }
        switch request["url"] {
        case .string(let text)?: return !text.trimmingCharacters(in: .whitespaces).isEmpty
        case let url? where url["host"] != nil || url["path"] != nil: return true
        case let url?:
            if case .string(let raw)? = url["raw"] { return !raw.trimmingCharacters(in: .whitespaces).isEmpty }
            return false
        case nil: return false
        }
    }

    /// The request an example was saved for: method, URL, headers and body, auth applied.
    mutating func request(_ value: JSONValue, at pointer: String, auth: JSONValue?) throws(InputError) -> (
        request: RecordedRequest, templatePath: String, basePath: String
    ) {
        if case .string = value {
            let url = try self.url(value, at: pointer)
            return (RecordedRequest(method: "GET", url: url.sent), url.template, url.basePath)
        }
        let request = try object(value, at: pointer)
        let method =
            try request["method"].map { value throws(InputError) in
                try scalarText(value, at: "\(pointer)/method")
            } ?? "GET"
        guard HARArchive.isMethod(method) else {
            throw fail(
                "\(pointer)/method", "an HTTP method (a token such as GET or POST)",
                method.isEmpty ? "an empty string" : "string \"\(redactor.redact(text: method).prefix(80))\"")
        }
        let built = try self.url(required(request, "url", in: pointer), at: "\(pointer)/url")
        var url = built.sent
        var headers = HeaderFields()
        if let list = request["header"], case .array = list {
            for (key, text) in try pairs(list, at: "\(pointer)/header", keyField: "key") {
                headers.append(name: key, value: substitute(text))
            }
        }
        if let auth =
            (try request["auth"].map { value throws(InputError) in try object(value, at: "\(pointer)/auth") })
            ?? auth
        {
            try apply(auth, to: &headers, url: &url, at: "\(pointer)/auth")
        }
        var body: FixtureBody?
        if let bodyValue = request["body"] {
            body = try self.body(bodyValue, at: "\(pointer)/body", headers: &headers)
        }
        return (RecordedRequest(method: method, url: url, headers: headers, body: body), built.template, built.basePath)
    }

    /// The URL Postman sends for a `url` (a string, or an object), its path as a template, and its base path.
    mutating func url(_ value: JSONValue, at pointer: String) throws(InputError) -> (
        sent: String, template: String, basePath: String
    ) {
        var base: String
        var scheme: String?
        var port: String?
        var segments: [String]
        var query: [(String, String?)]
        var pathVariables: [String: String] = [:]
        var basePointer = pointer
        if case .string(let text) = value {
            (base, segments, query) = Self.split(raw: text)
        } else {
            let url = try object(value, at: pointer)
            if let variables = url["variable"] {
                for (key, text) in try pairs(variables, at: "\(pointer)/variable", keyField: "key") {
                    pathVariables[key] = text
                }
            }
            if url["host"] != nil || url["path"] != nil {
                // The structured URL is what Postman sends; `raw` is only its display.
                base = try joined(url["host"], separator: ".", at: "\(pointer)/host")
                basePointer = "\(pointer)/host"
                scheme = try url["protocol"].map { value throws(InputError) in
                    try scalarText(value, at: "\(pointer)/protocol")
                }
                port = try url["port"].map { value throws(InputError) in try scalarText(value, at: "\(pointer)/port") }
                switch url["path"] {
                case nil: segments = []
                case .array(let parts)?:
                    segments = []
                    for (index, part) in parts.enumerated() {
                        segments.append(try scalarText(part, at: "\(pointer)/path/\(index)"))
                    }
                case let other?:
                    let text = try scalarText(other, at: "\(pointer)/path")
                    segments = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
                    if segments.first == "" { segments.removeFirst() }
                }
                query =
                    try url["query"].map { value throws(InputError) in
                        try optionalPairs(value, at: "\(pointer)/query", keyField: "key")
                    } ?? []
            } else if let raw = url["raw"] {
                (base, segments, query) = Self.split(raw: try scalarText(raw, at: "\(pointer)/raw"))
                basePointer = "\(pointer)/raw"
            } else {
                throw fail(pointer, "a URL (\"raw\", or \"host\" and \"path\")", value.briefDescription)
            }
        }
        var prefix = try substituteBase(base, at: basePointer)
        if !prefix.contains("://") { prefix = "\(scheme.map { substitute($0) } ?? "https")://\(prefix)" }
        if let port, !port.isEmpty { prefix += ":" + substitute(port) }
        while prefix.hasSuffix("/") && !segments.isEmpty { prefix.removeLast() }
        guard let components = URLComponents(string: prefix), components.scheme != nil,
            let host = components.host, !host.isEmpty
        else {
            redactor.learnURL(prefix)
            throw fail(
                basePointer, "an absolute URL (set the base URL's variable with --var)",
                "string \"\(redactor.redactURL(prefix))\"")
        }
        let basePath = components.percentEncodedPath == "/" ? "" : components.percentEncodedPath
        var sent = prefix
        var template = basePath
        for segment in segments {
            let part = pathSegment(segment, pathVariables: pathVariables)
            sent += "/" + part.sent
            template += "/" + part.template
        }
        if template.isEmpty { template = "/" }
        let items = query.map { key, value in
            let name = URLText.encode(substitute(key), allowing: URLText.queryKeyAllowed)
            guard let value else { return name }
            return name + "=" + URLText.encode(substitute(value), allowing: URLText.queryValueAllowed)
        }
        if !items.isEmpty { sent += "?" + items.joined(separator: "&") }
        return (sent, template, basePath)
    }

    /// A raw URL's base (scheme, host, port: up to the path), path segments and query items.
    static func split(raw: String) -> (base: String, segments: [String], query: [(String, String?)]) {
        var text = Substring(raw.trimmingCharacters(in: .whitespaces))
        if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
        var queryText: Substring?
        if let question = text.firstIndex(of: "?") {
            queryText = text[text.index(after: question)...]
            text = text[..<question]
        }
        var searchFrom = text.startIndex
        if let scheme = text.range(of: "://") { searchFrom = scheme.upperBound }
        let slash = text[searchFrom...].firstIndex(of: "/") ?? text.endIndex
        let base = String(text[..<slash])
        var segments: [String] = []
        if slash < text.endIndex {
            segments = text[text.index(after: slash)...].split(separator: "/", omittingEmptySubsequences: false)
                .map(String.init)
        }
        let query: [(String, String?)] =
            queryText.map { text in
                text.split(separator: "&").map { item in
                    let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    return (String(parts[0]), parts.count == 2 ? String(parts[1]) : nil)
                }
            } ?? []
        return (base, segments, query)
    }

    func joined(_ value: JSONValue?, separator: String, at pointer: String) throws(InputError) -> String {
        switch value {
        case nil: return ""
        case .array(let parts)?:
            var texts: [String] = []
            for (index, part) in parts.enumerated() { texts.append(try scalarText(part, at: "\(pointer)/\(index)")) }
            return texts.joined(separator: separator)
        case let other?: return try scalarText(other, at: pointer)
        }
    }

    /// Postman's `auth` as the header or query item it sends, in either form: v2.1's array of `{key, value}` and
    /// v2.0's object (`{"type": "bearer", "bearer": {"token": "…"}}`). Bearer, basic, API key (header or query) and
    /// OAuth 2's access token give what the request would send; a scheme that signs each request (digest, AWS
    /// Signature 4, Hawk, OAuth 1, NTLM, Akamai EdgeGrid, ASAP) cannot be written without signing live, and gets one
    /// warning naming the request and the type; `noauth` sends nothing (it stops inheritance where it is set).
    mutating func apply(
        _ auth: JSONValue, to headers: inout HeaderFields, url: inout String, at pointer: String
    ) throws(InputError) {
        let type = try scalarText(required(auth, "type", in: pointer), at: "\(pointer)/type")
        var settings: [String: String] = [:]
        switch auth[type] {
        case .array?:
            for (key, text) in try pairs(auth[type]!, at: "\(pointer)/\(type)", keyField: "key") {
                settings[key] = substitute(text)
            }
        case .object(let members)?:
            for member in members {
                if case .object = member.value { continue }
                if case .array = member.value { continue }
                settings[member.key] = substitute(
                    try scalarText(member.value, at: "\(pointer)/\(type)/\(JSONPointer.escape(member.key))"))
            }
        default:
            break
        }
        func addQuery(_ key: String, _ value: String) {
            url +=
                (url.contains("?") ? "&" : "?")
                + URLText.encode(key, allowing: URLText.queryKeyAllowed) + "="
                + URLText.encode(value, allowing: URLText.queryValueAllowed)
        }
        switch type {
        case "bearer":
            if let token = settings["token"] { headers["Authorization"] = "Bearer \(token)" }
        case "basic":
            let credential = "\(settings["username"] ?? ""):\(settings["password"] ?? "")"
            headers["Authorization"] = "Basic " + Data(credential.utf8).base64EncodedString()
        case "apikey":
            guard let key = settings["key"], let value = settings["value"] else { return }
            if settings["in"] == "query" { addQuery(key, value) } else { headers[key] = value }
        case "oauth2":
            guard let token = settings["accessToken"], !token.isEmpty else {
                warnOnce(
                    "oauth2 \(current)",
                    "\(current): auth type oauth2 has no access token saved; the request is recorded without one")
                return
            }
            if settings["addTokenTo"] == "queryParams" {
                addQuery("access_token", token)
            } else {
                let prefix = settings["headerPrefix"] ?? "Bearer"
                headers["Authorization"] = prefix.isEmpty ? token : "\(prefix) \(token)"
            }
        case "noauth", "inherit":
            break
        default:
            // digest, awsv4, hawk, oauth1, ntlm, edgegrid, asap, jwt and any newer one.
            warnOnce(
                "auth \(type) \(current)",
                "\(current): auth type \(type) signs each request; apiprobe cannot write the header without signing "
                    + "live, so the request is recorded without it")
        }
    }

    /// A request body: raw text (JSON when it parses), url-encoded or form data as text.
    mutating func body(_ value: JSONValue, at pointer: String, headers: inout HeaderFields) throws(InputError)
        -> FixtureBody?
    {
        let body = try object(value, at: pointer)
        let mode =
            try body["mode"].map { value throws(InputError) in try scalarText(value, at: "\(pointer)/mode") } ?? "raw"
        let contentType = headers["Content-Type"]
        switch mode {
        case "raw":
            guard let raw = body["raw"] else { return nil }
            let text = substitute(try scalarText(raw, at: "\(pointer)/raw"))
            if text.isEmpty { return nil }
            let language = body["options"]?["raw"]?["language"]
            checkJSON(
                text,
                claim: contentType.flatMap { $0.lowercased().contains("json") ? "Content-Type: \($0)" : nil }
                    ?? (language == .string("json") ? "options.raw.language json" : nil),
                at: "\(pointer)/raw")
            return FixtureBody(bytes: Data(text.utf8), contentType: contentType)
        case "urlencoded":
            guard let list = body["urlencoded"] else { return nil }
            let items = try pairs(list, at: "\(pointer)/urlencoded", keyField: "key")
            if contentType == nil { headers["Content-Type"] = "application/x-www-form-urlencoded" }
            return .text(
                items.map {
                    URLText.encode(substitute($0.0), allowing: URLText.queryKeyAllowed) + "="
                        + URLText.encode(substitute($0.1), allowing: URLText.queryValueAllowed)
                }.joined(separator: "&"))
        case "formdata":
            guard let list = body["formdata"] else { return nil }
            let items = try pairs(list, at: "\(pointer)/formdata", keyField: "key")
            return .text(items.map { "\(substitute($0.0))=\(substitute($0.1))" }.joined(separator: "\n"))
        case "graphql":
            guard let graphql = body["graphql"] else { return nil }
            return .json(graphql)
        default:
            return nil  // file uploads: the file is not in the collection
        }
    }

    /// The status of a reason phrase of RFC 9110 (any case), `nil` for any other text.
    static func statusOfReasonPhrase(_ text: String) -> Int? {
        let phrases: [String: Int] = [
            "continue": 100, "ok": 200, "created": 201, "accepted": 202, "non-authoritative information": 203,
            "no content": 204, "reset content": 205, "partial content": 206, "multiple choices": 300,
            "moved permanently": 301, "found": 302, "see other": 303, "not modified": 304,
            "temporary redirect": 307, "permanent redirect": 308, "bad request": 400, "unauthorized": 401,
            "payment required": 402, "forbidden": 403, "not found": 404, "method not allowed": 405,
            "not acceptable": 406, "request timeout": 408, "conflict": 409, "gone": 410, "length required": 411,
            "precondition failed": 412, "content too large": 413, "payload too large": 413,
            "unsupported media type": 415, "unprocessable content": 422, "unprocessable entity": 422,
            "too many requests": 429, "internal server error": 500, "not implemented": 501, "bad gateway": 502,
            "service unavailable": 503, "gateway timeout": 504,
        ]
        return phrases[text.trimmingCharacters(in: .whitespaces).lowercased()]
    }

    /// Warns when a body said to be JSON (`claim`) does not parse, with the line and column of the error.
    mutating func checkJSON(_ text: String, claim: String?, at pointer: String) {
        guard let claim, !text.isEmpty else { return }
        do {
            _ = try JSONValue(parsing: Data(text.utf8))
        } catch {
            warnings.append(
                "\(pointer) (in \(current)): the body says it is JSON (\(claim)) but is not, at its line:column \(error); kept as text"
            )
        }
    }

    /// An example response as an exchange.
    mutating func exchange(_ request: RecordedRequest, response: JSONValue, at pointer: String) throws(InputError)
        -> Exchange
    {
        let status: Int
        if let code = response["code"] {
            guard case .number(let literal) = code, let number = Int(literal) else {
                throw fail("\(pointer)/code", "an integer status", code.briefDescription)
            }
            guard (100...599).contains(number) else {
                throw fail("\(pointer)/code", "an HTTP status from 100 to 599", "integer \(number)")
            }
            status = number
        } else {
            // Postman saves some examples without a status code (the schema allows it). The status text or the
            // example's name, when it is a reason phrase ("OK", "Not Found"), gives it; else 200. A guess: warned.
            let reason = [response["status"], response["name"]].lazy.compactMap { value -> (String, Int)? in
                guard case .string(let text)? = value, let code = Self.statusOfReasonPhrase(text) else { return nil }
                return (text, code)
            }.first
            status = reason?.1 ?? 200
            let why =
                reason.map { "\(status), from its reason phrase \"\($0.0)\"" } ?? "200, as none of its texts names one"
            let first = "\(pointer) (in \(current))"
            statusGuesses["\(status) \(reason == nil)", default: (0, first, why)].count += 1
        }
        var headers = HeaderFields()
        if let list = response["header"], case .array = list {
            for (key, text) in try pairs(list, at: "\(pointer)/header", keyField: "key") {
                let lower = key.lowercased()
                if ["content-encoding", "content-length", "transfer-encoding", "connection"].contains(lower) {
                    continue
                }
                headers.append(name: key, value: text)  // a repeated name (`Set-Cookie`) once per value
            }
        }
        let text =
            try response["body"].map { value throws(InputError) in
                value == .null ? "" : try scalarText(value, at: "\(pointer)/body")
            } ?? ""
        let contentType = headers["Content-Type"]
        checkJSON(
            text,
            claim: contentType.flatMap { $0.lowercased().contains("json") ? "Content-Type: \($0)" : nil }
                ?? (response["_postman_previewlanguage"] == .string("json") ? "_postman_previewlanguage json" : nil),
            at: "\(pointer)/body")
        return Exchange(
            method: request.method, url: request.url, requestHeaders: request.headers,
            requestBody: request.body?.data, status: status, responseHeaders: headers,
            responseBody: Data(text.utf8), source: "postman")
    }
}

/// Percent-encoding a URL's parts as they are sent: every character a part cannot hold is encoded, and an
/// escape already there (`%20`) is kept.
enum URLText {
    static let pathAllowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))
    static let queryKeyAllowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=#"))
    static let queryValueAllowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&#"))

    static func encode(_ text: String, allowing allowed: CharacterSet) -> String {
        var result = ""
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "%", index + 2 < scalars.count, scalars[index + 1].properties.isASCIIHexDigit,
                scalars[index + 2].properties.isASCIIHexDigit
            {
                result.unicodeScalars.append(contentsOf: scalars[index...(index + 2)])
                index += 3
                continue
            }
            if allowed.contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else {
                for byte in String(scalar).utf8 { result += String(format: "%%%02X", byte) }
            }
            index += 1
        }
        return result
    }
}
