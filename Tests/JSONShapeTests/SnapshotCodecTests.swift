import APIProbeTestSupport
import Foundation
import HTTPFixtures
import JSONShape
import Testing

@Suite(.temporaryFolder)
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
            guard let error = error as? InputError else { return false }
            return error.file == "s.schema.json" && error.position == .jsonPointer(pointer)
                && error.expected == expected
        }
    }

    /// The deepest document inference takes (512 levels of objects) makes a snapshot twice as deep; it reads back
    /// whole, on a task's thread as well as the main one (the JSON reader is HTTPFixtures' recursive one).
    @Test func theDeepestInferableSnapshotReadsBackOnATask() async throws {
        let text = String(repeating: #"{"a": "#, count: 511) + "[1]" + String(repeating: "}", count: 511)
        let shape = try ShapeNode.infer(from: Data(text.utf8))
        let encoded = SchemaSnapshot(shape: shape, sampleCount: 1).encoded()
        let back = try await Task.detached { try SchemaSnapshot(decoding: encoded, file: "deep.schema.json") }.value
        #expect(back.shape == shape)
        #expect(back.encoded() == encoded)
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

@Suite(.temporaryFolder)
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
            (error as? InputError)?.description
                == #"u.json: /paths/1: expected a JSON Pointer ("" or starting with "/"), found string "b""#
        }
        #expect {
            _ = try UsageManifest(decoding: Data(#"{"paths": ["/a"], "optional": ["/a", "/b"]}"#.utf8), file: "u.json")
        } throws: { error in
            (error as? InputError)?.description
                == #"u.json: /optional/1: expected a path also listed in "paths", found "/b""#
        }
    }

    @Test func optionalPathsRoundTripAndAreLeftOutWhenThereAreNone() throws {
        let usage = UsageManifest(paths: ["/a", "/b/*/c"], optionalPaths: ["/b/*/c", "/not-read"])
        #expect(usage.optionalPaths == ["/b/*/c"])
        #expect(usage.readsOptionally("/b/*/c") && usage.readsOptionally("/b/3/c") && !usage.readsOptionally("/a"))
        #expect(try UsageManifest(decoding: usage.encoded()) == usage)
        #expect(!String(decoding: UsageManifest(paths: ["/a"]).encoded(), as: UTF8.self).contains("optional"))
    }
}

/// Large snapshots write a repeated schema once under `$defs` and point at it with `$ref`; reading expands it.
@Suite(.temporaryFolder)
struct SharedSchemaTests {
    /// An object of `fields` string fields, as an API's `customer`.
    func object(_ fields: Int, prefix: String) -> ShapeNode {
        var shape = ShapeNode(types: .object)
        for index in 0..<fields {
            shape.properties["\(prefix)_\(index)"] = ShapeNode(types: [.string, .null], format: .dateTime)
            shape.required.insert("\(prefix)_\(index)")
        }
        return shape
    }

    /// Many operations' worth of one large object, repeated under every property, as an imported description.
    func large() -> ShapeNode {
        let customer = object(40, prefix: "customer")
        var charge = object(20, prefix: "charge")
        charge.properties["customer"] = customer
        var root = ShapeNode(types: .object)
        for index in 0..<60 {
            root.properties["field_\(index)"] = index % 2 == 0 ? charge : customer
        }
        var list = ShapeNode(types: .array)
        list.items = charge
        root.properties["list"] = list
        return root
    }

    @Test func aLargeSnapshotSharesRepeatedSchemasAndReadsBackTheSame() throws {
        let shape = large()
        let snapshot = SchemaSnapshot(shape: shape, sampleCount: 3)
        let bytes = snapshot.encoded()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(##""$defs": {"##))
        // Each definition is named after the property where it first occurs (keys in file order).
        #expect(text.contains(##""$ref": "#/$defs/field_0""##))
        #expect(text.contains(##""$ref": "#/$defs/customer""##))
        // Written once each: the customer object's first field appears in its definition only.
        #expect(text.components(separatedBy: #""customer_0": {"#).count == 2)
        let again = try SchemaSnapshot(decoding: bytes, file: "big.schema.json")
        #expect(again == snapshot)
        #expect(again.encoded() == bytes)
        // In full it would be many times larger.
        let full = String(
            decoding: SchemaSnapshot(shape: object(40, prefix: "customer"), sampleCount: 1).encoded(), as: UTF8.self)
        #expect(bytes.count < full.utf8.count * 10)
    }

    @Test func aSmallSnapshotIsWrittenInFull() throws {
        var root = ShapeNode(types: .object)
        for index in 0..<4 { root.properties["owner_\(index)"] = object(20, prefix: "user") }
        let text = String(decoding: SchemaSnapshot(shape: root, sampleCount: 1).encoded(), as: UTF8.self)
        #expect(!text.contains("$defs"))
        #expect(!text.contains("$ref"))
    }

    @Test(arguments: [
        (
            ##"{"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}, "$defs": {}}"##,
            "/properties/a/$ref",
            "a reference to a schema under $defs"
        ),
        (
            ##"{"type": "object", "properties": {"a": {"$ref": "#/$defs/loop"}}, "$defs": {"loop": {"$ref": "#/$defs/again"}, "again": {"$ref": "#/$defs/loop"}}}"##,
            "/$defs/again",
            "a chain of references that ends in a schema"
        ),
        (
            ##"{"type": "object", "properties": {"a": {"$ref": "other.json#/x"}}}"##, "/properties/a/$ref",
            "a reference to $defs (#/$defs/NAME, or FILE#/$defs/NAME for a file beside this one)"
        ),
        (
            ##"{"type": "object", "properties": {"a": {"$ref": "components.json#/$defs/x"}}}"##, "/properties/a/$ref",
            "a reference inside this file (#/$defs/NAME): it is read without its folder"
        ),
    ])
    func aBadReferenceIsAnErrorAtItsPointer(text: String, pointer: String, expected: String) {
        let error = #expect(throws: InputError.self) {
            _ = try SchemaSnapshot(decoding: Data(text.utf8), file: "x.schema.json")
        }
        #expect(error?.position == .jsonPointer(pointer))
        #expect(error?.expected == expected)
        #expect(error?.file == "x.schema.json")
    }

    @Test func aSchemaFromAnotherToolWithDefsReads() throws {
        let text = ##"""
            {"type": "object", "properties": {"a": {"$ref": "#/$defs/point"}, "b": {"type": "array", "items": {"$ref": "#/$defs/point"}}},
             "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}}}
            """##
        let shape = try SchemaSnapshot(decoding: Data(text.utf8)).shape
        #expect(shape.properties["a"]?.referenceName == "point")
        #expect(shape.properties["a"]?.resolved.required == ["x"])
        #expect(shape.properties["b"]?.items == shape.properties["a"])
    }

    /// A schema that contains itself is a cycle of references: it reads, compares, writes back byte for byte,
    /// and a diff of two versions of it ends and finds the change inside the cycle once, naming the definition.
    @Test func aRecursiveSchemaIsACycleOfReferences() throws {
        func snapshot(_ leaf: String) throws -> SchemaSnapshot {
            let text = ##"""
                {"$ref": "#/$defs/node", "$defs": {"node": {"type": "object", "required": ["name"],
                 "properties": {"name": {"type": "\##(leaf)"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                 "parent": {"$ref": "#/$defs/node"}}}}}
                """##
            return try SchemaSnapshot(decoding: Data(text.utf8), file: "tree.schema.json")
        }
        let old = try snapshot("string")
        let again = try SchemaSnapshot(decoding: old.encoded())
        #expect(again == old)
        #expect(again.encoded() == old.encoded())
        let node = old.shape.resolved
        #expect(node.properties["children"]?.items?.referenceName == "node")
        #expect(old.shape.containsEnums == false)

        let diff = SchemaDiff(from: old.shape, to: try snapshot("integer").shape)
        #expect(diff.changes.map(\.summary) == ["/name type-changed: string → integer"])
        #expect(diff.changes.first?.definition == "node")
        #expect(diff.changes.first?.pathInDefinition == "/name")
        #expect(SchemaDiff(from: old.shape, to: old.shape).changes.isEmpty)
        #expect(old != (try snapshot("integer")))
    }

    /// Definitions a folder's snapshots share are read from the file beside the snapshot; one outside the folder
    /// is an error, and so is one the file does not hold.
    @Test func sharedDefinitionsAreReadFromBesideTheSnapshot() throws {
        let folder = try TemporaryFolder.make("defs")
        let table = ShapeDefinitions(source: "components.json")
        table.define(
            "pet",
            as: ShapeNode(
                types: .object,
                properties: ["name": ShapeNode(types: .string), "friend": .reference("pet", in: table)],
                required: ["name"]))
        try SchemaSnapshot.encodedDefinitions(table).write(to: folder.appendingPathComponent("components.json"))
        let written = SchemaSnapshot(
            shape: ShapeNode(types: .array, items: .reference("pet", in: table)), sampleCount: 0)
        let text = String(decoding: written.encoded(), as: UTF8.self)
        #expect(text.contains(#""$ref": "components.json#/$defs/pet""#))
        #expect(!text.contains("$defs\": {"))
        let url = folder.appendingPathComponent("pets.schema.json")
        try written.encoded().write(to: url)
        let read = try SchemaSnapshot(contentsOf: url)
        #expect(read == written)
        // Read again unchanged, the shared file is the same table, not one more (a table whose definitions
        // refer to one another lives as long as the process).
        let again = try SchemaSnapshot(contentsOf: url)
        #expect(again.shape.items?.referencedDefinitions === read.shape.items?.referencedDefinitions)
        #expect(read.shape.items?.referencedDefinitions?.names == ["pet"])
        let problems = try read.conformance(of: Data(#"[{"name": "a", "friend": {"name": 3}}]"#.utf8))
        #expect(problems.changes.map(\.summary) == ["/*/friend/name type-changed: string → integer"])

        let outside = Data(#"{"$ref": "../components.json#/$defs/pet"}"#.utf8)
        let error = #expect(throws: InputError.self) {
            _ = try SchemaSnapshot(decoding: outside, file: "x.schema.json", folder: folder)
        }
        #expect(error?.expected == "a reference to a file in the snapshot's own folder (FILE#/$defs/NAME)")
        let missing = Data(#"{"$ref": "components.json#/$defs/cat"}"#.utf8)
        let second = #expect(throws: InputError.self) {
            _ = try SchemaSnapshot(decoding: missing, file: "x.schema.json", folder: folder)
        }
        #expect(second?.position == .jsonPointer("/$ref"))
        #expect(second?.expected == "a reference to a schema under $defs in components.json")
    }
}
