/// Appends `text` as a JSON string literal: quotes, `\"` and `\\`, `\n`, `\r`, `\t`, other control characters as
/// `\u00XX` (lowercase hex), everything else as its UTF-8 bytes. The one escaping rule of every JSON apiprobe writes.
package func appendJSONString(_ text: String, to out: inout [UInt8]) {
    let hex = Array("0123456789abcdef".utf8)
    out.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
        case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
        case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
        case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
        case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
        case 0x00..<0x20:
            out += Array("\\u00".utf8)
            out += [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
        default: out.append(byte)
        }
    }
    out.append(UInt8(ascii: "\""))
}
