import Foundation
import JSONShape
import Testing

struct SnapshotCodecTests {
    @Test func writesSortedKeysTwoSpaceIndentAndTrailingNewline() throws {
        let shape = try inferAll([
            #"{"b": [1], "a": "2026-11-22", "m": {"1": null}}"#, #"{"b": [], "a": "2026-11-23"}"#,
        ])
        let text = String(decoding: SchemaSnapshot(shape: shape, sampleCount: 2).encoded(), as: UTF8.self)
        #expect(
            text == """
                {
                  "$schema": "https://json-schema.org/draft/2020-12/schema",
                  "properties": {
                    "a": {
                      "format": "date",
                      "type": "string"
                    },
                    "b": {
                      "items": {
                        "type": "integer"
                      },
                      "type": "array"
                    },
                    "m": {
                      "additionalProperties": {
                        "type": "null"
                      },
                      "type": "object"
                    }
                  },
                  "required": [
                    "a",
                    "b"
                  ],
                  "type": "object",
                  "x-apiprobe": {
                    "samples": 2
                  }
                }

                """
        )
    }

    @Test func nullableEnumListsNullAndReadsBack() throws {
        let shape = try infer(#"["a", null, "b"]"#, enums: true)
        let snapshot = SchemaSnapshot(shape: shape, sampleCount: 1)
        let text = String(decoding: snapshot.encoded(), as: UTF8.self)
        #expect(text.contains(#""enum": ["#))
        #expect(text.contains(#""type": ["#))
        let back = try SchemaSnapshot(decoding: snapshot.encoded())
        #expect(back == snapshot)
        #expect(back.shape.items?.enumValues == ["a", "b"])
        #expect(back.shape.items?.types == [.string, .null])
    }

    @Test func readsSchemasOtherToolsWrite() throws {
        let text =
            #"{"type": "object", "title": "T", "additionalProperties": false, "properties": {"n": {"type": ["integer", "number"]}}}"#
        let snapshot = try SchemaSnapshot(decoding: Data(text.utf8))
        #expect(snapshot.shape.isMap == false)
        #expect(snapshot.shape.properties["n"]?.types == .number)
        #expect(snapshot.sampleCount == 0)
    }

    @Test(arguments: [
        (#"[]"#, "", "a JSON Schema object"),
        (#"{"type": "int"}"#, "/type", "a JSON type name"),
        (#"{"type": ["string", 3]}"#, "/type/1", "a JSON type name"),
        (
            #"{"type": "object", "properties": {"a/b": {"type": 1}}}"#, "/properties/a~1b/type",
            "a type name or an array of them"
        ),
        (#"{"type": "object", "properties": {}, "required": ["x"]}"#, "/required", "names listed in properties"),
        (#"{"type": "array", "items": []}"#, "/items", "a schema object"),
        (#"{"type": "string", "format": "ipv4"}"#, "/format", "one of the formats date-time, date, uri, uuid, email"),
        (#"{"type": "string", "enum": [1]}"#, "/enum/0", "a string (apiprobe's enums hold strings)"),
        (#"{"x-apiprobe": {"samples": -1}}"#, "/x-apiprobe/samples", "a count of samples (an integer ≥ 0)"),
    ])
    func badSchemaIsReportedByPointer(text: String, pointer: String, expected: String) {
        #expect {
            _ = try SchemaSnapshot(decoding: Data(text.utf8), file: "s.schema.json")
        } throws: { error in
            guard let error = error as? JSONShapeError else { return false }
            return error.file == "s.schema.json" && error.location == .jsonPointer(pointer)
                && error.expected == expected
        }
    }

    @Test func syntaxErrorInSnapshotHasLineAndColumn() {
        do {
            _ = try SchemaSnapshot(decoding: Data("{\n  \"type\": \"object\",\n}".utf8), file: "s.schema.json")
            Issue.record("no error")
        } catch {
            #expect(error.description == "s.schema.json:3:1: expected a string key, found '}'")
        }
    }
}

struct UsageManifestTests {
    @Test func pathIsReadWhenItOrAPathBelowWasRead() {
        let usage = UsageManifest(paths: ["/recipes/*/title", "/count", "/count"])
        #expect(usage.paths == ["/count", "/recipes/*/title"])
        #expect(usage.isRead("/count"))
        #expect(usage.isRead("/recipes"))
        #expect(usage.isRead("/recipes/*"))
        #expect(usage.isRead("/recipes/*/title"))
        #expect(usage.isRead(""))
        #expect(!usage.isRead("/recipes/*/social_rank"))
        #expect(!usage.isRead("/recipes/*/title/x"))
        #expect(!usage.isRead("/countdown"))
    }

    @Test func encodesAndDecodesTheSharedFormat() throws {
        let usage = UsageManifest(paths: ["/b", "/a"])
        let text = String(decoding: usage.encoded(), as: UTF8.self)
        #expect(text == "{\n  \"apiprobeVersion\": \"0.1.0\",\n  \"paths\": [\n    \"/a\",\n    \"/b\"\n  ]\n}\n")
        #expect(try UsageManifest(decoding: usage.encoded()) == usage)
    }

    @Test func badManifestIsReportedByPointer() {
        #expect {
            _ = try UsageManifest(decoding: Data(#"{"paths": ["/a", "b"]}"#.utf8), file: "u.json")
        } throws: { error in
            (error as? JSONShapeError)?.description
                == #"u.json: /paths/1: expected a JSON Pointer ("" or starting with "/"), found string "b""#
        }
    }
}
