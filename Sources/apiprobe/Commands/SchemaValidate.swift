import APIProbeShared
import ArgumentParser
import Foundation
import HTTPFixtures
import JSONSchemaValidation
import OpenAPISupport

/// `apiprobe schema validate SCHEMA INSTANCE...`
struct SchemaValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Validate JSON documents against a JSON Schema; exit 1 when one is invalid.",
        discussion: """
            The schema's dialect is its $schema (2020-12, 2019-09, draft-07, draft-06 or draft-04), else --dialect. \
            Every keyword is enforced as the standard says; $ref to another file reads it from the schema's folder \
            (never from outside it, never from the network), and the metaschemas are built in. `format` is an \
            assertion by default (a date-time that is not one fails; unknown formats pass): --no-format-assertion \
            makes it an annotation, as the standard's default is. Keywords the dialect does not define are ignored, \
            as the standard says, and counted in the summary line; --strict makes them an error (exit 2). Exit \
            status: 0 every document valid, 1 one is not, 2 a schema or document that cannot be read (file and \
            JSON Pointer named).
            """
    )

    @Argument(help: "The schema file (JSON).")
    var schema: String

    @Argument(help: "JSON documents to validate, or - for standard input.")
    var instances: [String]

    @Option(name: .long, help: "Output format: text, or json (the standard's basic output, one entry per document).")
    var format: ReportFormat = .text

    @Flag(
        name: .customLong("format-assertion"), inversion: .prefixedNo,
        help: "Whether `format` fails a value that does not fit it (default: yes).")
    var formatAssertion = true

    @Option(
        name: .long, help: "The dialect of a schema without $schema: 2020-12, 2019-09, draft-07, draft-06, draft-04.")
    var dialect = "2020-12"

    @Flag(name: .long, help: "Fail (exit 2) when the schema holds keywords its dialect does not define.")
    var strict = false

    func validate() throws {
        if instances.isEmpty {
            throw ValidationError("Give at least one JSON document to validate (or - for standard input).")
        }
        if Dialect(name: dialect) == nil {
            throw ValidationError("--dialect \(dialect): expected 2020-12, 2019-09, draft-07, draft-06 or draft-04")
        }
        if instances.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input (-) can be read once.") }
    }

    func run() async throws {
        var options = SchemaOptions()
        options.assertsFormat = formatAssertion
        options.defaultDialect = Dialect(name: dialect) ?? .draft2020_12
        let schemaPath = schema
        let settings = options
        let instancePaths = instances
        let strict = strict
        let outcome = try await onLargeStack { () throws -> SchemaValidationOutcome in
            let compiled = try SchemaFile.compile(
                contentsOf: URL(fileURLWithPath: schemaPath), displayName: schemaPath, options: settings)
            if strict, let first = compiled.ignoredKeywords.first {
                throw InputError(
                    file: schemaPath, position: .jsonPointer(first.pointer),
                    expected: "only keywords of \(compiled.dialect) (--strict)",
                    found: "\(first.keyword): \(first.reason)"
                        + (compiled.ignoredKeywords.count > 1 ? ", and \(compiled.ignoredKeywords.count - 1) more" : "")
                )
            }
            var results: [(file: String, errors: [JSONSchemaValidation.ValidationError])] = []
            for path in instancePaths {
                let data = try Self.read(path)
                // Credentials in the document (a `password`, a `token`) are learned, so no message repeats them.
                Terminal.redactor.learnBody(data, contentType: "application/json")
                let name = path == "-" ? "<stdin>" : path
                let instance = try JSONValue(parsing: data, file: name)
                do {
                    results.append((name, try compiled.validate(instance)))
                } catch let error as ValidationLimitError {
                    throw InputError(
                        file: name, position: .jsonPointer(error.instanceLocation),
                        expected: "a document the validator can judge within its limits", found: error.message)
                }
            }
            return SchemaValidationOutcome(
                results: results, ignored: compiled.ignoredKeywords, dialect: compiled.dialect)
        }
        let out = Terminal.standardOutput
        switch format {
        case .json: out.write(String(decoding: outcome.basicOutput().fileData, as: UTF8.self))
        case .text: out.write(outcome.text(on: out))
        }
        if outcome.results.contains(where: { !$0.errors.isEmpty }) { throw ChecksFailed() }
    }

    /// A file's bytes, or standard input's for `-`.
    static func read(_ path: String) throws(InputError) -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw InputError(
                file: path, position: .file, expected: "a readable JSON file", found: "no such file, or unreadable")
        }
    }
}

/// What `schema validate` found, per document.
struct SchemaValidationOutcome: Sendable {
    var results: [(file: String, errors: [JSONSchemaValidation.ValidationError])]
    var ignored: [IgnoredKeyword]
    var dialect: Dialect

    /// The standard's basic output for each document, under `documents`, with `valid` for all of them.
    func basicOutput() -> JSONValue {
        let documents: [JSONValue] = results.map { result in
            .object([
                ("instance", .string(result.file)),
                ("valid", .bool(result.errors.isEmpty)),
                (
                    "errors",
                    .array(
                        result.errors.map { error in
                            .object([
                                ("instanceLocation", .string(error.instanceLocation)),
                                ("keywordLocation", .string(error.keywordLocation)),
                                ("absoluteKeywordLocation", .string(error.absoluteKeywordLocation)),
                                ("error", .string(error.message)),
                            ])
                        })
                ),
            ])
        }
        let ignoredList: [JSONValue] = ignored.map {
            .object([
                ("location", .string($0.location)), ("keyword", .string($0.keyword)), ("reason", .string($0.reason)),
            ])
        }
        return .object([
            ("valid", .bool(results.allSatisfy { $0.errors.isEmpty })), ("documents", .array(documents)),
            ("ignoredKeywords", .array(ignoredList)),
        ])
    }

    /// A line per valid document, the errors of each invalid one, ignored keywords, and a summary line.
    func text(on out: Terminal) -> String {
        var text = ""
        for (file, errors) in results {
            if errors.isEmpty {
                text += out.styled("valid   ", .green) + file + "\n"
                continue
            }
            text += out.styled("invalid ", .red) + "\(file): \(errors.count) error\(errors.count == 1 ? "" : "s")\n"
            for error in errors {
                text +=
                    "  \(error.instanceLocation.isEmpty ? "/" : error.instanceLocation): \(error.keyword): "
                    + "\(error.message) (\(error.absoluteKeywordLocation))\n"
            }
        }
        for keyword in ignored {
            text += out.styled("ignored ", .yellow) + "\(keyword.location): \(keyword.keyword): \(keyword.reason)\n"
        }
        let invalid = results.filter { !$0.errors.isEmpty }.count
        var summary = "\(results.count - invalid) valid, \(invalid) invalid"
        if !ignored.isEmpty {
            summary += ", \(ignored.count) keyword\(ignored.count == 1 ? "" : "s") ignored (not \(dialect))"
        }
        return text + (invalid > 0 ? out.styled(summary, .bold) : summary) + "\n"
    }
}
