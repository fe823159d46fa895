import Foundation
import HTTPFixtures
import Testing

/// The parser scans the plain runs of a string eight bytes at a time: a quote, an escape, a control character or a
/// multi-byte sequence at any offset of such a word must be read as the byte-by-byte scan read it.
struct JSONStringScanTests {
    @Test func everyStopByteIsFoundAtEveryOffset() throws {
        for offset in 0..<20 {
            let lead = String(repeating: "a", count: offset)
            let tail = String(repeating: "b", count: 19 - offset)
            for (inner, expected) in [
                (#"\""#, "\""), (#"\\"#, "\\"), (#"\n"#, "\n"), (#"\u00e9"#, "é"), ("é", "é"), ("😀", "😀"), ("", ""),
            ] {
                let text = #"{"k": "\#(lead)\#(inner)\#(tail)", "n": 1}"#
                let value = try JSONValue(parsing: Data(text.utf8))
                #expect(value["k"] == .string(lead + expected + tail), "offset \(offset), \(inner)")
                #expect(value["n"] == .number("1"))
            }
            // A raw control character and a byte that is not UTF-8 are errors at their own column.
            for bad in [[UInt8(0x01)], [UInt8(0xFF)]] {
                let bytes = Array(#"{"k": ""#.utf8) + Array(lead.utf8) + bad + Array(tail.utf8) + Array(#""}"#.utf8)
                do {
                    _ = try JSONValue(parsing: Data(bytes))
                    Issue.record("offset \(offset): \(bad) was accepted")
                } catch {
                    #expect(error.position.line == 1)
                    #expect(error.position.column == 8 + offset, "offset \(offset): \(error)")
                }
            }
        }
    }
}
