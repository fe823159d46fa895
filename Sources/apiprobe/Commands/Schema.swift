import ArgumentParser
import Foundation
import JSONShape

extension ReportFormat: ExpressibleByArgument {}

/// `apiprobe schema`: infer and compare schemas from samples and snapshots.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Infer a schema from JSON samples, compare two schemas, or validate JSON against a schema.",
        subcommands: [SchemaInferCommand.self, SchemaDiffCommand.self, SchemaValidateCommand.self]
    )
}

/// `apiprobe schema infer FILE...`
struct SchemaInferCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "infer",
        abstract: "Print the schema inferred from all the samples.",
        discussion: """
            Each file holds one JSON document, or JSON Lines (one document a line) when it ends in \
            .jsonl or .ndjson; a folder stands for every such file below it, in byte order of their paths. \
            The schema is a JSON Schema (2020-12) snapshot, as `snapshot update` writes it. For thousands of \
            files, give their folder: the argument parser takes time that grows with the square of the number \
            of arguments (two seconds for 10,000).
            """
    )

    @Argument(help: "JSON sample files (.json, .jsonl, .ndjson), or folders of them.")
    var files: [String]

    @Flag(name: .long, help: "Record the string values of fields with few distinct values as enums.")
    var enums = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("Give at least one sample file.") }
    }

    func run() async throws {
        var inference = ShapeInference(options: InferenceOptions(detectsEnums: enums))
        for file in try SchemaInput.sampleFiles(files) {
            try SchemaInput.addSamples(from: file, to: &inference)
        }
        let snapshot = SchemaSnapshot(shape: inference.shape, sampleCount: inference.sampleCount)
        Terminal.standardOutput.write(String(decoding: snapshot.encoded(), as: UTF8.self))
    }
}

/// `apiprobe schema diff OLD NEW`
struct SchemaDiffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two schemas; exit 1 when a change is breaking.",
        discussion: """
            A file whose name ends in .schema.json is read as a snapshot, a fixture (request, response and \
            metadata, as record and import write) as its response body, any other as JSON samples (.jsonl/.ndjson: \
            one document a line).
            """
    )

    @Argument(help: "The old side: a *.schema.json snapshot, a fixture or a JSON sample.")
    var old: String

    @Argument(help: "The new side: a *.schema.json snapshot, a fixture or a JSON sample.")
    var new: String

    @Option(name: .long, help: "Output format: text or json.")
    var format: ReportFormat = .text

    @Option(name: .long, help: "A usage manifest (*.usage.json): changes at paths no model reads are info.")
    var usage: String?

    func run() async throws {
        let oldShape = try SchemaInput.shape(of: old, detectsEnums: false)
        var newShape = try SchemaInput.shape(of: new, detectsEnums: oldShape.containsEnums)
        newShape = newShape.keepingEnums(presentIn: oldShape)
        let diff = SchemaDiff(from: oldShape, to: newShape, usage: try SchemaInput.usage(at: usage))
        switch format {
        case .json: Terminal.standardOutput.write(String(decoding: diff.jsonReport(), as: UTF8.self))
        case .text: Terminal.standardOutput.write(ChangeReport.text(for: diff, on: .standardOutput))
        }
        if diff.hasBreakingChanges { throw ChecksFailed() }
    }
}
