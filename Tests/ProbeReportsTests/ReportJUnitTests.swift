import APIProbeShared
import Foundation
import ProbeReports
import ProbeRunner
import Testing

#if canImport(FoundationXML)
import FoundationXML
import ProbeTestSupport
#endif

@Suite struct ReportJUnitTests {
    @Test func oneCasePerEndpointCheckWithFailuresTypedByCategory() throws {
        let document = try JUnitDocument(Report.render(SampleRuns.mixed, as: .junit))
        #expect(document.suites.count == 1)
        let suite = try #require(document.suites.first)
        #expect(suite["name"] == "apiprobe")
        #expect(suite["tests"] == "6")
        #expect(suite["failures"] == "4")
        #expect(suite["errors"] == "0")
        #expect(suite["time"] == "1.234")
        #expect(suite["timestamp"] == "2026-11-22T18:00:00")
        #expect(
            document.cases.map { "\($0.classname) / \($0.name)" } == [
                "search / status 200-299", "search / latency p95 < 300ms", "detail / status 200-299",
                "detail / schema Snapshots/recipes/get.schema.json", "offline / reachable", "search / p95 regression",
            ])
        #expect(
            document.cases.map(\.failure?.type) == [nil, nil, "http-status", "schema-drift", "refused", "regression"])
        #expect(document.cases[2].failure?.message == "2 of 5 samples answered 503")
        #expect(document.cases[3].failure?.text.contains("breaking /recipe/social_rank type-changed") == true)
        // An endpoint's first case carries its summed sample latency (11.2 + 12 + 12.5 + 15 + 16 ms); its other
        // checks take no time of their own.
        #expect(document.cases[0].time == "0.067")
        #expect(document.cases[1].time == "0.000")
    }

    @Test func caseTimesAddUpToTheProbingTimeInsteadOfRepeatingItPerCheck() throws {
        let document = try JUnitDocument(Report.render(SampleRuns.mixed, as: .junit))
        let search = document.cases.filter { $0.classname == "search" && $0.name != "p95 regression" }
        #expect(search.map(\.time) == ["0.067", "0.000"])
        let total = document.cases.compactMap { Double($0.time) }.reduce(0, +)
        let probing = SampleRuns.mixed.endpoints.flatMap(\.samples).reduce(0) { $0 + $1.latency.timeInterval }
        #expect(abs(total - probing) < 0.002)
    }

    @Test func everythingIsEscapedIncludingControlCharacters() throws {
        let name = "a<b>&\"c\" 'd'"
        let check = "body /x == \"<&>\"\ttab"
        let message = "line one\r\nline two \u{1}\u{1B}[31m \u{FFFF} end"
        let xml = Report.render(SampleRuns.hostile(name: name, check: check, message: message), as: .junit)
        #expect(!xml.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" })
        let document = try JUnitDocument(xml)
        let failed = try #require(document.cases.first)
        #expect(failed.classname == name)
        #expect(failed.name == check)
        let shown = "line one\r\nline two \\u{1}\\u{1B}[31m \\u{FFFF} end"
        #expect(failed.failure?.message == shown)
        #expect(failed.failure?.text == shown)
        #expect(failed.failure?.type == "body-condition")
    }

    @Test func endpointWithoutChecksAndADeadlineStillProduceCases() throws {
        var result = SampleRuns.green
        result.endpoints[0].checks = []
        result.hitDeadline = true
        let document = try JUnitDocument(Report.render(result, as: .junit))
        #expect(document.cases.map(\.name) == ["probe", "deadline"])
        #expect(document.cases.last?.error?.type == "timeout")
        #expect(document.suites.first?["errors"] == "1")
        #expect(document.suites.first?["failures"] == "0")
    }
}

/// A JUnit XML document read back with Foundation's XMLParser.
struct JUnitDocument {
    struct Case {
        var classname: String
        var name: String
        var time: String
        var failure: Outcome?
        var error: Outcome?
    }

    struct Outcome {
        var message: String
        var type: String
        var text: String
    }

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    var suites: [[String: String]] = []
    var cases: [Case] = []

    init(_ xml: String) throws {
        let delegate = Delegate()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = delegate
        guard parser.parse() else {
            throw ParseError(description: "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "?")\n\(xml)")
        }
        suites = delegate.suites
        cases = delegate.cases
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        var suites: [[String: String]] = []
        var cases: [Case] = []
        var outcome: (element: String, attributes: [String: String])?
        var text = ""

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            switch elementName {
            case "testsuite": suites.append(attributes)
            case "testcase":
                cases.append(
                    Case(
                        classname: attributes["classname"] ?? "", name: attributes["name"] ?? "",
                        time: attributes["time"] ?? ""))
            case "failure", "error":
                outcome = (elementName, attributes)
                text = ""
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if outcome != nil { text += string }
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
        ) {
            guard let current = outcome, current.element == elementName, !cases.isEmpty else { return }
            let value = Outcome(
                message: current.attributes["message"] ?? "", type: current.attributes["type"] ?? "", text: text)
            if elementName == "failure" {
                cases[cases.count - 1].failure = value
            } else {
                cases[cases.count - 1].error = value
            }
            outcome = nil
        }
    }
}
