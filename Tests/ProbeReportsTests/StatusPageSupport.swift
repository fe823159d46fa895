import Foundation
import ProbeReports
import ProbeRunner

#if canImport(FoundationXML)
import FoundationXML
#endif

/// A history with answers worked out by hand: two endpoints, one round an hour for 40 days, the newest at
/// ``reference``. Round `k` hours before the newest is "round k".
///
/// - `api`: fails rounds 102–100 (an incident of 3 h: down after 2, back after 2 passes), 501–500 (2 h) and 900
///   (one failure: no incident). Its p50 is `k + 10` ms and p95 `2 × (k + 10)` ms. It drifted in rounds 300–299.
/// - `cart`: fails 50, 49, passes 48, fails 47, 46, passes from 45 (one incident, 5 h: a pass inside an outage is
///   not a recovery) and fails 2, 1, 0 (ongoing, 2 h). No latency in failed rounds.
///
/// Uptime of `api`: 24 h 24/24, 7 d 165/168, 30 d 715/720. Of `cart`: 24 h 21/24, 7 d 161/168, 30 d 713/720.
/// Every round with an `api` or `cart` failure fails overall: 24 h 21/24, 7 d 158/168, 30 d 708/720.
enum StatusPageHistory {
    /// 2026-11-22T18:00:00Z.
    static let reference = Date(timeIntervalSince1970: 1_795_370_400)
    static let rounds = 960
    static let downAfter = 2
    static let successThreshold = 2
    /// A credential in a URL's query (masked by name) that also appears bare in a later message (masked because
    /// the page learned it from the URL).
    static let secret = "tok-PLANTED-4242"

    static func time(_ k: Int) -> Date { reference.addingTimeInterval(-Double(k) * 3_600) }

    static func apiFails(_ k: Int) -> Bool { (100...102).contains(k) || (500...501).contains(k) || k == 900 }
    static func cartFails(_ k: Int) -> Bool { [50, 49, 47, 46, 2, 1, 0].contains(k) }

    static func record(_ k: Int) -> HistoryRecord {
        let apiPassed = !apiFails(k)
        let cartPassed = !cartFails(k)
        let api = HistoryRecord.EndpointSummary(
            passed: apiPassed, p95: 2 * Double(k + 10), p50: Double(k + 10),
            failures: apiPassed ? [] : ["http-status"],
            message: apiPassed
                ? nil : "status 200: got 503 from https://api.example.com/v1/items?access_token=\(secret)",
            drift: (299...300).contains(k) ? ["breaking /items/*/id type-changed: string → integer"] : [])
        let cart = HistoryRecord.EndpointSummary(
            passed: cartPassed, p95: cartPassed ? 40 : nil, p50: cartPassed ? 20 : nil,
            failures: cartPassed ? [] : (k < 10 ? ["timeout"] : ["refused", "timeout"]),
            message: cartPassed ? nil : "reachable: the server said <b>\(secret)</b> & gave up")
        return HistoryRecord(
            startedAt: time(k), passed: apiPassed && cartPassed, endpoints: ["api": api, "cart": cart])
    }

    /// Writes the history (oldest first) into `folder`; returns its file.
    static func write(into folder: URL) throws -> HistoryFile {
        let history = HistoryFile(url: folder.appendingPathComponent("history.jsonl"))
        for k in stride(from: rounds - 1, through: 0, by: -1) { try history.append(record(k)) }
        return history
    }

    /// The uptime cells as the page shows them: endpoint (or "all") → window → text.
    static let uptime: [String: [String: String]] = [
        "api": ["24h": "100.00%", "7d": "98.21%", "30d": "99.30%"],
        "cart": ["24h": "87.50%", "7d": "95.83%", "30d": "99.02%"],
        "all": ["24h": "87.50%", "7d": "94.04%", "30d": "98.33%"],
    ]

    static var options: StatusPage.Options {
        StatusPage.Options(title: "shop status", downAfter: downAfter, successThreshold: successThreshold)
    }
}

/// The text of an SVG badge, read with an XML parser: its `<title>` and its `<text>` elements.
final class BadgeReader: NSObject, XMLParserDelegate {
    var title = ""
    var texts: [String] = []
    var element = ""
    var rootName = ""

    /// `nil` when the document is not well-formed XML.
    static func read(_ data: Data) -> BadgeReader? {
        let reader = BadgeReader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        return parser.parse() ? reader : nil
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if rootName.isEmpty { rootName = elementName }
        element = elementName
        if elementName == "text" { texts.append("") }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if element == "title" { title += string }
        if element == "text", !texts.isEmpty { texts[texts.count - 1] += string }
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        element = ""
    }
}
