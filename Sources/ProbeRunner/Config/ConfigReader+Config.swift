import Foundation
import HTTPFixtures
import ProbeClient
import Yams

/// An endpoint's `expect` before it is merged over `defaults.expect` (each key present or not).
struct PartialExpectations {
    enum Schema {
        /// `schema: false`
        case none
        /// `schema: true`, or a mapping without `snapshot`: the endpoint's default snapshot.
        case endpointDefault(usage: String?, failOn: String)
        case file(SchemaExpectation)
    }

    var status: StatusExpectation?
    var headers: [HeaderExpectation]?
    var body: [BodyCondition]?
    var schema: Schema?
    var latency: [LatencyBudget]?
    var rcodes: [DNSResponseCode]?
    var answers: [String]?

    /// `self` over `base`, key by key: a key the endpoint gives replaces the default's.
    func merged(over base: PartialExpectations) -> PartialExpectations {
        PartialExpectations(
            status: status ?? base.status, headers: headers ?? base.headers, body: body ?? base.body,
            schema: schema ?? base.schema, latency: latency ?? base.latency, rcodes: rcodes ?? base.rcodes,
            answers: answers ?? base.answers)
    }

    /// What a `tcp://`, `tls://` or `dns://` endpoint takes of these: latency budgets, and a DNS endpoint's
    /// `rcode` and `answers` (the HTTP expectations of `defaults.expect` are its HTTP siblings').
    func forSocket(dns: Bool) -> PartialExpectations {
        PartialExpectations(
            schema: PartialExpectations.Schema.none, latency: latency, rcodes: dns ? rcodes : nil,
            answers: dns ? answers : nil)
    }

    func resolved(defaultSnapshot: String?) -> Expectations {
        var result = Expectations(
            status: status ?? .success, headers: headers ?? [], body: body ?? [], latency: latency ?? [],
            rcodes: rcodes ?? [.noError], answers: answers ?? [])
        switch schema {
        case .endpointDefault(let usage, let failOn)?:
            result.schema = defaultSnapshot.map { SchemaExpectation(snapshot: $0, usage: usage, failOn: failOn) }
        case .file(let expectation)?: result.schema = expectation
        case .none?, nil: break
        }
        return result
    }
}

extension ConfigReader {
    /// An endpoint key given as `null`: the key is not set, whatever `defaults:` says (the built-in value of
    /// `samples`, `timeout`, `retries` and `maxBodySize`; no headers, TLS settings or expectations from the
    /// defaults). `false` for a key that cannot be unset (its `null` is then read as any other value).
    static func unsetting(
        _ key: String, in endpoint: inout EndpointConfig, headers: inout [String: String],
        expect: inout PartialExpectations
    ) -> Bool {
        let builtIn = EndpointDefaults()
        switch key {
        case "headers": headers = [:]
        case "samples": endpoint.samples = builtIn.samples
        case "timeout": endpoint.timeout = builtIn.timeout
        case "retries": endpoint.retries = builtIn.retries
        case "maxBodySize": endpoint.maxBodySize = builtIn.maxBodySize
        case "tls": endpoint.tls = TLSSettings()
        case "expect":
            expect = PartialExpectations(
                status: .success, headers: [], body: [], schema: PartialExpectations.Schema.none, latency: [],
                rcodes: [.noError], answers: [])
        default: return false
        }
        return true
    }

    func config(_ root: Node) throws(InputError) -> ProbeConfig {
        var config = ProbeConfig(file: file)
        var defaultExpect = PartialExpectations()
        var endpointsNode: Node?
        var endpointsKey: Node?
        let top = try members(root, "", allowed: Self.topKeys)
        for (key, keyNode, value) in top {
            switch key {
            case "api":
                let name = try string(value, key, expected: "an API name (a folder name: letters, digits, - and _)")
                guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }),
                    !name.hasPrefix(".")
                else {
                    throw error(value, key, expected: "an API name (a folder name: letters, digits, - and _)")
                }
                config.api = name
            case "baseURL":
                let text = try string(value, key, expected: "an absolute http(s) URL")
                guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                    scheme == "http" || scheme == "https", url.host != nil
                else { throw error(value, key, expected: "an absolute http(s) URL") }
                config.baseURL = url
            case "stubs": config.stubsDirectory = try string(value, key, expected: "a folder path")
            case "snapshots": config.snapshotsDirectory = try string(value, key, expected: "a folder path")
            case "concurrency": config.concurrency = try integer(value, key, in: 1...1_000)
            case "rateLimit":
                if case .scalar(let scalar) = value, scalar.string == "null" || scalar.string.isEmpty {
                    config.requestsPerSecondPerHost = nil
                } else {
                    config.requestsPerSecondPerHost = try number(
                        value, key, expected: "requests per second per host, a number from 0.001 to 100000",
                        valid: { ProbeConfig.rateLimitRange.contains($0) })
                }
            case "deadline": config.deadline = try duration(value, key)
            case "downAfter": config.downAfter = try integer(value, key, in: 1...1_000)
            case "successThreshold": config.successThreshold = try integer(value, key, in: 1...1_000)
            case "alerts": config.alerts = try alertTargets(value, key)
            case "regression": config.regression = try regression(value, key)
            case "history": config.historyRetention = try historyRetention(value, key)
            case "maintenance": config.maintenance = try maintenance(value, key)
            case "redact":
                config.redactBodyFields = try list(value, key, of: "JSON body field names").enumerated().map {
                    item throws(InputError) in
                    try string(item.element, "\(key)[\(item.offset)]", expected: "a JSON body field name")
                }
            case "defaults":
                (config.defaults, defaultExpect) = try defaults(value, key)
            case "endpoints":
                endpointsNode = value
                endpointsKey = keyNode
            default: break
            }
        }
        guard let endpointsNode else {
            throw error(root, "endpoints", expected: "a list of endpoints", found: "no endpoints key")
        }
        config.defaults.expectations = defaultExpect.resolved(defaultSnapshot: nil)
        let items = try list(endpointsNode, "endpoints", of: "endpoints (each with a name and a path)")
        guard !items.isEmpty else {
            throw error(endpointsKey, "endpoints", expected: "at least one endpoint", found: "an empty list")
        }
        var names: Set<String> = []
        for (index, item) in items.enumerated() {
            let endpoint = try endpoint(item, index: index, config: config, defaultExpect: defaultExpect)
            guard names.insert(endpoint.name).inserted else {
                throw error(
                    item, "endpoints[\(index)].name", expected: "a unique name", found: "\"\(endpoint.name)\" again")
            }
            config.endpoints.append(endpoint)
        }
        return config
    }

    /// `history: {keep: 30d, maxSize: 50MB}`: how much of the history file a run keeps.
    func historyRetention(_ node: Node, _ path: String) throws(InputError) -> HistoryRetention {
        var retention = HistoryRetention()
        for (key, _, value) in try members(node, path, allowed: Self.historyKeys) {
            let keyPath = join(path, key)
            switch key {
            case "keep":
                let expected = "an age like 30d or 12h (at least 1m)"
                let text = try scalar(value, keyPath, expected: expected).string
                guard let keep = Self.parseDuration(text), keep >= .seconds(60) else {
                    throw error(value, keyPath, expected: expected)
                }
                retention.keep = keep
            case "maxSize":
                let expected = "a size like 50MB or 1GiB (from 64KiB)"
                let text = try scalar(value, keyPath, expected: expected).string
                guard let bytes = Self.parseSize(text), bytes >= 64 << 10 else {
                    throw error(value, keyPath, expected: expected)
                }
                retention.maxBytes = Int64(bytes)
            default: break
            }
        }
        return retention
    }

    func regression(_ node: Node, _ path: String) throws(InputError) -> RegressionPolicy {
        var policy = RegressionPolicy()
        for (key, _, value) in try members(node, path, allowed: Self.regressionKeys) {
            let keyPath = join(path, key)
            switch key {
            case "window": policy.window = try integer(value, keyPath, in: 1...10_000)
            case "factor":
                policy.factor = try number(value, keyPath, expected: "a factor above 1 (1.5)", valid: { $0 > 1 })
            case "minimumRuns": policy.minimumRuns = try integer(value, keyPath, in: 1...10_000)
            case "minimumSlowdown": policy.minimumSlowdown = try duration(value, keyPath)
            default: break
            }
        }
        return policy
    }

    /// `maintenance:`: a list of `{start: "HH:MM", duration, every: [days], timezone}`.
    func maintenance(_ node: Node, _ path: String) throws(InputError) -> [MaintenanceWindow] {
        var windows: [MaintenanceWindow] = []
        for (index, item) in try list(node, path, of: "maintenance windows ({start: \"02:00\", duration: 2h})")
            .enumerated()
        {
            let itemPath = "\(path)[\(index)]"
            let fields = try members(item, itemPath, allowed: Self.maintenanceKeys)
            var window = MaintenanceWindow(startMinute: 0, duration: .zero)
            var sawStart = false
            var sawDuration = false
            for (key, _, value) in fields {
                let keyPath = join(itemPath, key)
                switch key {
                case "start":
                    let text = try string(value, keyPath, expected: "a time of day, HH:MM (02:00)")
                    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
                    guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
                        let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour),
                        (0..<60).contains(minute)
                    else { throw error(value, keyPath, expected: "a time of day, HH:MM from 00:00 to 23:59") }
                    window.startMinute = hour * 60 + minute
                    sawStart = true
                case "duration":
                    window.duration = try duration(value, keyPath)
                    guard window.duration >= .seconds(60), window.duration <= MaintenanceWindow.longest else {
                        throw error(value, keyPath, expected: "a duration from 1m to 7d (168h)")
                    }
                    sawDuration = true
                case "every":
                    for (offset, day) in try list(value, keyPath, of: "days (mon, tue, … sun)").enumerated() {
                        let name = try string(day, "\(keyPath)[\(offset)]", expected: "a day: mon, tue, … sun")
                            .lowercased()
                        guard
                            let number = MaintenanceWindow.dayNames.firstIndex(where: {
                                $0.short == name || $0.long == name
                            })
                        else {
                            throw error(
                                day, "\(keyPath)[\(offset)]", expected: "a day: mon, tue, wed, thu, fri, sat or sun")
                        }
                        window.weekdays.insert(number + 1)
                    }
                case "timezone":
                    let name = try string(value, keyPath, expected: "a time zone name (UTC, Europe/Berlin)")
                    guard let zone = TimeZone(identifier: name) else {
                        throw error(
                            value, keyPath, expected: "a time zone name of the IANA database (UTC, Europe/Berlin)")
                    }
                    window.timeZone = zone
                default: break
                }
            }
            guard sawStart else {
                throw error(item, join(itemPath, "start"), expected: "a time of day, HH:MM", found: "none")
            }
            guard sawDuration else {
                throw error(item, join(itemPath, "duration"), expected: "a duration (2h)", found: "none")
            }
            windows.append(window)
        }
        return windows
    }

    func defaults(_ node: Node, _ path: String) throws(InputError) -> (EndpointDefaults, PartialExpectations) {
        var defaults = EndpointDefaults()
        var expect = PartialExpectations()
        for (key, _, value) in try members(node, path, allowed: Self.defaultsKeys) {
            let keyPath = join(path, key)
            switch key {
            case "headers":
                defaults.headers = Dictionary(try stringMap(value, keyPath), uniquingKeysWith: { $1 })
            case "samples": defaults.samples = try integer(value, keyPath, in: 1...10_000)
            case "timeout": defaults.timeout = try duration(value, keyPath)
            case "retries": defaults.retries = try integer(value, keyPath, in: 0...10)
            case "maxBodySize": defaults.maxBodySize = try size(value, keyPath)
            case "tls": defaults.tls = try tlsSettings(value, keyPath, over: defaults.tls)
            case "expect": expect = try expectations(value, keyPath)
            default: break
            }
        }
        return (defaults, expect)
    }

    func endpoint(_ node: Node, index: Int, config: ProbeConfig, defaultExpect: PartialExpectations)
        throws(InputError) -> EndpointConfig
    {
        let fields = try members(node, "endpoints[\(index)]", allowed: nil)
        guard let nameField = fields.first(where: { $0.key == "name" }) else {
            throw error(node, "endpoints[\(index)].name", expected: "a name for the endpoint", found: "none")
        }
        let name = try string(
            nameField.value, "endpoints[\(index)].name", expected: "a name (letters, digits, - and _)")
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }),
            !name.hasPrefix(".")
        else {
            throw error(nameField.value, "endpoints[\(index)].name", expected: "a name of letters, digits, -, _ and .")
        }
        let base = "endpoints.\(name)"
        var endpoint = EndpointConfig(
            name: name, path: "", headers: [:], samples: config.defaults.samples, timeout: config.defaults.timeout,
            retries: config.defaults.retries, maxBodySize: config.defaults.maxBodySize,
            position: node.mark.map { .lineColumn(line: $0.line, column: $0.column) } ?? .file)
        endpoint.tls = config.defaults.tls
        var headers = config.defaults.headers
        var expect = PartialExpectations()
        var location: (key: String, node: Node)?
        for (key, keyNode, value) in fields {
            try check(key, keyNode, base, allowed: Self.endpointKeys)
            let keyPath = join(base, key)
            if isNull(value), Self.unsetting(key, in: &endpoint, headers: &headers, expect: &expect) { continue }
            switch key {
            case "method":
                let method = try string(value, keyPath, expected: "an HTTP method (GET, POST, ...)").uppercased()
                guard method.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                    throw error(value, keyPath, expected: "an HTTP method (GET, POST, ...)")
                }
                endpoint.method = method
            case "path", "url":
                if let location {
                    throw error(
                        keyNode, keyPath, expected: "one of path and url", found: "both \(location.key) and \(key)")
                }
                endpoint.path = try string(value, keyPath, expected: key == "url" ? "an absolute URL" : "a path")
                location = (key, value)
            case "query":
                endpoint.query = try members(value, keyPath, allowed: nil).map { member throws(InputError) in
                    let itemPath = join(keyPath, member.key)
                    switch member.value {
                    case .scalar(let scalar):
                        return QueryItem(name: member.key, value: scalar.string)
                    default:
                        throw error(member.value, itemPath, expected: "a text, number or boolean value")
                    }
                }
            case "headers":
                for member in try members(value, keyPath, allowed: nil) where isNull(member.value) {
                    // `X-Tenant: null`: the endpoint does not send the header the defaults give.
                    for existing in headers.keys where headerNamesMatch(existing, member.key) {
                        headers[existing] = nil
                    }
                }
                for (header, text) in try stringMap(value, keyPath, skippingNulls: true) {
                    for existing in headers.keys where headerNamesMatch(existing, header) {
                        headers[existing] = nil
                    }
                    headers[header] = text
                }
            case "body":
                if case .scalar(let scalar) = value, scalar.style != .plain && scalar.style != .any {
                    endpoint.body = .text(scalar.string)
                } else if case .scalar(let scalar) = value {
                    let parsed = Self.plainJSON(scalar.string)
                    if case .string(let text) = parsed {
                        endpoint.body = .text(text)
                    } else {
                        endpoint.body = .json(parsed)
                    }
                } else {
                    endpoint.body = .json(try json(value, keyPath))
                }
            case "samples": endpoint.samples = try integer(value, keyPath, in: 1...10_000)
            case "timeout": endpoint.timeout = try duration(value, keyPath)
            case "retries": endpoint.retries = try integer(value, keyPath, in: 0...10)
            case "maxBodySize": endpoint.maxBodySize = try size(value, keyPath)
            case "followRedirects":
                guard let follows = boolean(value) else { throw error(value, keyPath, expected: "true or false") }
                endpoint.followsRedirects = follows
            case "tls": endpoint.tls = try tlsSettings(value, keyPath, over: endpoint.tls)
            case "maintenance": endpoint.maintenance = try maintenance(value, keyPath)
            case "dns": endpoint.dns = try dnsQuery(value, keyPath)
            case "interval":
                let interval = try duration(value, keyPath)
                guard interval >= .seconds(1) else { throw error(value, keyPath, expected: "a duration of 1s or more") }
                endpoint.interval = interval
            case "auth":
                // The credential goes in the Authorization header (the redactor masks it wherever it appears).
                for existing in headers.keys where headerNamesMatch(existing, "Authorization") {
                    headers[existing] = nil
                }
                headers["Authorization"] = try authorization(value, keyPath)
            case "expect": expect = try expectations(value, keyPath)
            default: break
            }
        }
        endpoint.headers = headers
        guard let location else {
            throw error(node, join(base, "path"), expected: "a path (or url) for the endpoint", found: "none")
        }
        try checkKind(of: &endpoint, fields: fields, base: base)
        // An endpoint's name up to its first "." names its snapshot, as fixture names do (`search.empty`
        // is a second sample of `search`).
        let snapshotName = FixtureStore.endpointName(ofFixture: "\(config.api)/\(name)")
        let defaultSnapshot = "\(config.snapshotsDirectory)/\(snapshotName).schema.json"
        if endpoint.kind == .http {
            endpoint.expectations = expect.merged(over: defaultExpect).resolved(defaultSnapshot: defaultSnapshot)
        } else {
            endpoint.expectations = expect.merged(over: defaultExpect).forSocket(dns: endpoint.kind == .dns)
                .resolved(defaultSnapshot: nil)
        }
        do {
            _ = try endpoint.url(baseURL: config.baseURL, file: file)
        } catch {
            throw self.error(location.node, join(base, location.key), expected: error.expected, found: error.found)
        }
        return endpoint
    }

    /// The keys a `tcp://`, `tls://` or `dns://` endpoint does not take are errors at the key; `dns:` goes with a
    /// `dns://` URL and with no other. The method column of such an endpoint says its kind (`TCP`, `TLS`, `DNS`).
    func checkKind(of endpoint: inout EndpointConfig, fields: [(key: String, keyNode: Node, value: Node)], base: String)
        throws(InputError)
    {
        let kind = endpoint.kind
        let expectNode = fields.first { $0.key == "expect" && !isNull($0.value) }?.value
        let expectFields = try expectNode.map { node throws(InputError) in try members(node, "", allowed: nil) }
        func refuse(_ key: String, _ keyNode: Node, _ path: String, _ expected: String) -> InputError {
            error(keyNode, path, expected: expected, found: "\(key) on a \(kind.rawValue) endpoint")
        }
        if kind == .http {
            if let field = fields.first(where: { $0.key == "dns" }) {
                throw refuse("dns", field.keyNode, join(base, "dns"), "dns: only with a dns:// url")
            }
            for field in expectFields ?? [] where ProbeKind.dnsOnlyExpectations.contains(field.key) {
                throw refuse(
                    field.key, field.keyNode, join(join(base, "expect"), field.key),
                    "\(field.key) only on a dns:// endpoint")
            }
            return
        }
        let takes =
            kind == .dns
            ? "samples, timeout, retries, interval, maintenance, dns and expect (rcode, answers, latency)"
            : "samples, timeout, retries, interval, maintenance\(kind == .tls ? ", tls" : "") and expect (latency)"
        for field in fields where ProbeKind.httpOnlyKeys.contains(field.key) || kind != .tls && field.key == "tls" {
            throw refuse(
                field.key, field.keyNode, join(base, field.key), "a key a \(kind.rawValue) endpoint takes: \(takes)")
        }
        for field in expectFields ?? []
        where ProbeKind.httpOnlyExpectations.contains(field.key)
            || kind != .dns && ProbeKind.dnsOnlyExpectations.contains(field.key)
        {
            throw refuse(
                field.key, field.keyNode, join(join(base, "expect"), field.key),
                "an expectation a \(kind.rawValue) endpoint has: \(takes)")
        }
        if kind == .dns, endpoint.dns == nil {
            let node = fields.first { $0.key == "url" || $0.key == "path" }?.keyNode
            throw error(
                node, join(base, "dns"), expected: "dns: {name: NAME, type: A} for a dns:// endpoint", found: "none")
        }
        if kind != .dns, let field = fields.first(where: { $0.key == "dns" }) {
            throw refuse("dns", field.keyNode, join(base, "dns"), "dns: only with a dns:// url")
        }
        endpoint.method = kind.label
    }

    /// `dns: {name: api.example.com, type: AAAA}` (type `A` when not given).
    func dnsQuery(_ node: Node, _ path: String) throws(InputError) -> DNSQuery {
        var name: String?
        var type = DNSRecordType.a
        for (key, _, value) in try members(node, path, allowed: Self.dnsKeys) {
            let keyPath = join(path, key)
            switch key {
            case "name":
                let text = try string(value, keyPath, expected: "a DNS name (api.example.com)")
                if let problem = DNSQuery.problem(with: text) { throw error(value, keyPath, expected: problem) }
                name = text.hasSuffix(".") ? String(text.dropLast()) : text
            case "type":
                let expected = "a record type (A, AAAA, CNAME, MX, NS, TXT, SRV, SOA, PTR, CAA or TYPEnn)"
                guard let parsed = DNSRecordType(name: try string(value, keyPath, expected: expected)) else {
                    throw error(value, keyPath, expected: expected)
                }
                type = parsed
            default: break
            }
        }
        guard let name else { throw error(node, join(path, "name"), expected: "the name to ask for", found: "none") }
        return DNSQuery(name: name, type: type)
    }

    /// `auth: {bearer: TOKEN}` or `auth: {basic: {username: U, password: P}}` as an Authorization header value.
    func authorization(_ node: Node, _ path: String) throws(InputError) -> String {
        let fields = try members(node, path, allowed: Self.authKeys)
        guard fields.count == 1, let (key, _, value) = fields.first else {
            throw error(node, path, expected: "one of bearer: TOKEN or basic: {username, password}")
        }
        let keyPath = join(path, key)
        if key == "bearer" { return "Bearer " + (try string(value, keyPath, expected: "a token")) }
        let parts = Dictionary(try stringMap(value, keyPath).map { ($0.key, $0.value) }) { $1 }
        guard let username = parts["username"], let password = parts["password"], parts.count == 2 else {
            throw error(value, keyPath, expected: "{username: …, password: …}")
        }
        return "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }

    /// `alerts: [{webhook: URL}, {slack: URL}]`.
    func alertTargets(_ node: Node, _ path: String) throws(InputError) -> [AlertTarget] {
        guard case .sequence(let sequence) = node else {
            throw error(node, path, expected: "a list of {webhook: URL} or {slack: URL}")
        }
        var targets: [AlertTarget] = []
        for (index, item) in sequence.enumerated() {
            let itemPath = "\(path)[\(index)]"
            let fields = try members(item, itemPath, allowed: ["webhook", "slack"])
            guard fields.count == 1, let (key, _, value) = fields.first, let kind = AlertTarget.Kind(rawValue: key)
            else { throw error(item, itemPath, expected: "one of webhook: URL or slack: URL") }
            let text = try string(value, join(itemPath, key), expected: "an http(s) URL")
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host != nil
            else { throw error(value, join(itemPath, key), expected: "an http(s) URL") }
            targets.append(AlertTarget(kind: kind, url: url))
        }
        return targets
    }

    // MARK: Expectations

    func expectations(_ node: Node, _ path: String) throws(InputError) -> PartialExpectations {
        var expect = PartialExpectations()
        for (key, _, value) in try members(node, path, allowed: Self.expectKeys) {
            let keyPath = join(path, key)
            switch key {
            case "status": expect.status = try status(value, keyPath)
            case "headers": expect.headers = try headerExpectations(value, keyPath)
            case "body":
                let items: [Node]
                if case .scalar = value { items = [value] } else { items = try list(value, keyPath, of: "conditions") }
                expect.body = try items.enumerated().map { item throws(InputError) in
                    let itemPath = "\(keyPath)[\(item.offset)]"
                    let text = try string(item.element, itemPath, expected: "a condition like /count > 0")
                    do throws(BodyConditionParser.Failure) {
                        return try BodyConditionParser.parse(text)
                    } catch {
                        throw self.error(item.element, itemPath, expected: error.expected, found: "\"\(text)\"")
                    }
                }
            case "schema": expect.schema = try schema(value, keyPath)
            case "rcode":
                let expected = "a DNS response code (NOERROR, NXDOMAIN, SERVFAIL, REFUSED, FORMERR, NOTIMP) or a list"
                let items: [Node]
                if case .scalar = value { items = [value] } else { items = try list(value, keyPath, of: "codes") }
                expect.rcodes = try items.enumerated().map { item throws(InputError) in
                    let itemPath = items.count == 1 ? keyPath : "\(keyPath)[\(item.offset)]"
                    guard let code = DNSResponseCode(name: try string(item.element, itemPath, expected: expected))
                    else { throw error(item.element, itemPath, expected: expected) }
                    return code
                }
            case "answers":
                let items: [Node]
                if case .scalar = value { items = [value] } else { items = try list(value, keyPath, of: "values") }
                expect.answers = try items.enumerated().map { item throws(InputError) in
                    try string(item.element, "\(keyPath)[\(item.offset)]", expected: "a record value (127.0.0.1)")
                }
            case "latency":
                let items: [Node]
                if case .scalar = value { items = [value] } else { items = try list(value, keyPath, of: "budgets") }
                expect.latency = try items.enumerated().map { item throws(InputError) in
                    let itemPath = "\(keyPath)[\(item.offset)]"
                    let expected = "a budget like p95 < 300ms (p50, p90, p95, p99, max)"
                    let text = try string(item.element, itemPath, expected: expected)
                    guard let budget = Self.parseBudget(text) else {
                        throw error(item.element, itemPath, expected: expected)
                    }
                    return budget
                }
            default: break
            }
        }
        return expect
    }

    func status(_ node: Node, _ path: String) throws(InputError) -> StatusExpectation {
        let expected = "a status: 200, [200, 204], \"200-299\" or 2xx"
        let items: [Node]
        if case .sequence(let sequence) = node { items = Array(sequence) } else { items = [node] }
        guard !items.isEmpty else { throw error(node, path, expected: expected) }
        var ranges: [ClosedRange<Int>] = []
        for (index, item) in items.enumerated() {
            let itemPath =
                items.count > 1 || { if case .sequence = node { true } else { false } }()
                ? "\(path)[\(index)]" : path
            let text = try string(item, itemPath, expected: expected)
            guard let range = Self.parseStatus(text) else { throw error(item, itemPath, expected: expected) }
            ranges.append(range)
        }
        return StatusExpectation(ranges: ranges)
    }

    static func parseStatus(_ text: String) -> ClosedRange<Int>? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed.count == 3, trimmed.hasSuffix("xx"), let digit = Int(trimmed.prefix(1)), (1...5).contains(digit) {
            return (digit * 100)...(digit * 100 + 99)
        }
        if let code = Int(trimmed), (100...599).contains(code) { return code...code }
        let parts = trimmed.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count == 2, let low = Int(parts[0].trimmingCharacters(in: .whitespaces)),
            let high = Int(parts[1].trimmingCharacters(in: .whitespaces)), (100...599).contains(low),
            (100...599).contains(high), low <= high
        {
            return low...high
        }
        return nil
    }

    func headerExpectations(_ node: Node, _ path: String) throws(InputError) -> [HeaderExpectation] {
        try members(node, path, allowed: nil).map { member throws(InputError) in
            let keyPath = join(path, member.key)
            let expected = "a value, {matches: REGEX} or {exists: true}"
            switch member.value {
            case .scalar(let scalar):
                return HeaderExpectation(name: member.key, rule: .equals(scalar.string))
            case .mapping:
                let rule = try members(member.value, keyPath, allowed: ["matches", "exists"])
                guard rule.count == 1, let only = rule.first else {
                    throw error(member.value, keyPath, expected: expected)
                }
                if only.key == "exists" {
                    guard boolean(only.value) == true else {
                        throw error(only.value, join(keyPath, "exists"), expected: "true")
                    }
                    return HeaderExpectation(name: member.key, rule: .exists)
                }
                let pattern = try string(only.value, join(keyPath, "matches"), expected: "a regular expression")
                guard (try? NSRegularExpression(pattern: pattern)) != nil else {
                    throw error(only.value, join(keyPath, "matches"), expected: "a valid regular expression")
                }
                return HeaderExpectation(name: member.key, rule: .matches(pattern))
            default:
                throw error(member.value, keyPath, expected: expected)
            }
        }
    }

    func schema(_ node: Node, _ path: String) throws(InputError) -> PartialExpectations.Schema {
        if let flag = boolean(node) { return flag ? .endpointDefault(usage: nil, failOn: "breaking") : .none }
        if case .scalar = node {
            return .file(
                SchemaExpectation(snapshot: try string(node, path, expected: "true, false or a snapshot path")))
        }
        var snapshot: String?
        var usage: String?
        var failOn = "breaking"
        for (key, _, value) in try members(node, path, allowed: Self.schemaKeys) {
            let keyPath = join(path, key)
            switch key {
            case "snapshot": snapshot = try string(value, keyPath, expected: "a snapshot file path")
            case "usage": usage = try string(value, keyPath, expected: "a usage manifest file path")
            case "failOn":
                let level = try string(value, keyPath, expected: "breaking, warning or info")
                guard ["breaking", "warning", "info"].contains(level) else {
                    throw error(value, keyPath, expected: "breaking, warning or info")
                }
                failOn = level
            default: break
            }
        }
        if let snapshot { return .file(SchemaExpectation(snapshot: snapshot, usage: usage, failOn: failOn)) }
        return .endpointDefault(usage: usage, failOn: failOn)
    }

    /// `p95 < 300ms`, `p50 <= 1s`, `max < 2s`.
    static func parseBudget(_ text: String) -> LatencyBudget? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[1] == "<" || parts[1] == "<=" else { return nil }
        let name = parts[0].lowercased()
        let percentile: Double
        if name == "max" {
            percentile = 100
        } else if name.hasPrefix("p"), let value = Double(name.dropFirst()), (0...100).contains(value) {
            percentile = value
        } else {
            return nil
        }
        guard let limit = parseDuration(String(parts[2])), limit > .zero else { return nil }
        return LatencyBudget(percentile: percentile, limit: limit)
    }
}
