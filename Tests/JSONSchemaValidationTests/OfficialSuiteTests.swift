import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

@testable import JSONSchemaValidation

/// The official JSON Schema Test Suite (json-schema-org/JSON-Schema-Test-Suite, in `shared/json-schema-test-suite`
/// beside the checkout or the folder `APIPROBE_JSON_SCHEMA_TEST_SUITE` names): every test of every file of
/// draft2020-12, draft7 and draft4, required and optional, is asserted. The suite's `remotes/` are served from an
/// in-process registry under `http://localhost:1234/`, as its README asks; nothing is fetched.
///
/// Format tests (`optional/format/`) run with format assertion on; the required `format.json` files with it off,
/// as the standard's default. A test this validator does not pass is listed in ``OfficialSuite/knownFailures`` with
/// the reason, and checked there: a listed test that starts to pass fails the run too, so the list stays true.
@Suite(.tags(.realMaterial))
struct OfficialSuiteTests {
    @Test(arguments: OfficialSuite.files(of: "draft2020-12"))
    func draft2020_12(_ file: String) throws { try OfficialSuite.run(file, dialect: .draft2020_12) }

    @Test(arguments: OfficialSuite.files(of: "draft7"))
    func draft7(_ file: String) throws { try OfficialSuite.run(file, dialect: .draft7) }

    @Test(arguments: OfficialSuite.files(of: "draft4"))
    func draft4(_ file: String) throws { try OfficialSuite.run(file, dialect: .draft4) }

    @Test func theSuiteIsThere() {
        if OfficialSuite.folder == nil {
            TestEnvironment.recordMissing(
                "The JSON Schema Test Suite is not here: put it in shared/json-schema-test-suite beside the checkout, "
                    + "or name its folder in APIPROBE_JSON_SCHEMA_TEST_SUITE")
        }
    }
}

enum OfficialSuite {
    static let folder: URL? = TestEnvironment.sharedFolder(
        "json-schema-test-suite", variable: "APIPROBE_JSON_SCHEMA_TEST_SUITE", probe: "tests/draft2020-12/type.json")

    /// The suite's files of one draft, as paths below `tests/` (`draft7/optional/format/email.json`).
    static func files(of draft: String) -> [String] {
        guard let folder else { return [] }
        let base = folder.appendingPathComponent("tests")
        let root = base.appendingPathComponent(draft)
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var files: [String] = []
        for case let url as URL in walker where url.pathExtension == "json" {
            files.append(String(url.standardizedFileURL.path.dropFirst(base.standardizedFileURL.path.count + 1)))
        }
        return files.sorted()
    }

    /// `remotes/` under `http://localhost:1234/`.
    static let registry: SchemaRegistry = {
        var registry = SchemaRegistry()
        guard let folder else { return registry }
        let remotes = folder.appendingPathComponent("remotes")
        guard let walker = FileManager.default.enumerator(at: remotes, includingPropertiesForKeys: nil) else {
            return registry
        }
        for case let url as URL in walker where url.pathExtension == "json" {
            let relative = url.standardizedFileURL.path.dropFirst(remotes.standardizedFileURL.path.count + 1)
            guard let data = try? Data(contentsOf: url), let document = try? JSONValue(parsing: data) else { continue }
            registry.add(document, uri: "http://localhost:1234/\(relative)")
        }
        return registry
    }()

    /// Tests this validator does not pass, by `file: group: test`, with the reason. Each is still run.
    static let knownFailures: [String: String] = [:]

    static func run(_ file: String, dialect: Dialect) throws {
        guard let folder else { return }
        let url = folder.appendingPathComponent("tests").appendingPathComponent(file)
        let groups = try JSONValue(parsing: Data(contentsOf: url), file: url.path)
        guard case .array(let list) = groups else {
            Issue.record("\(file): not an array of groups")
            return
        }
        var options = SchemaOptions()
        options.defaultDialect = dialect
        options.assertsFormat = file.contains("/optional/format/")
        var passed = 0
        for group in list {
            let description = group["description"].flatMap(\.stringValue) ?? "?"
            guard let schemaValue = group["schema"], case .array(let tests)? = group["tests"] else { continue }
            let schema: JSONSchema
            do {
                schema = try JSONSchema(schemaValue, options: options, registry: registry)
            } catch {
                for test in tests {
                    let name = "\(file): \(description): \(test["description"].flatMap(\.stringValue) ?? "?")"
                    expect(false, name, "the schema did not compile: \(error)")
                }
                continue
            }
            for test in tests {
                let name = "\(file): \(description): \(test["description"].flatMap(\.stringValue) ?? "?")"
                guard let data = test["data"], let valid = test["valid"], case .bool(let expected) = valid else {
                    continue
                }
                do {
                    let verdict = try schema.isValid(data)
                    let errors = try schema.validate(data)
                    // The fast path and the reporting path agree, and an invalid instance always has a reason.
                    let consistent = verdict == errors.isEmpty
                    let right = verdict == expected && consistent
                    expect(
                        right, name,
                        "expected \(expected ? "valid" : "invalid"), got \(verdict ? "valid" : "invalid")"
                            + (consistent ? "" : " (validate() gave \(errors.count) errors)")
                            + (errors.isEmpty ? "" : ": " + errors.map(\.description).joined(separator: "; ")))
                    if right { passed += 1 }
                } catch {
                    expect(false, name, "not judged: \(error)")
                }
            }
        }
    }

    private static func expect(_ right: Bool, _ name: String, _ detail: String) {
        if let reason = knownFailures[name] {
            if right {
                Issue.record("\(name): listed as a known failure (\(reason)) but passes: take it off the list")
            }
            return
        }
        if !right { Issue.record(Comment(rawValue: "\(name): \(detail)")) }
    }
}
