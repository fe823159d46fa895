import Foundation

/// A flat SVG badge (`uptime 30d | 99.95%`) as shields.io draws them, for a README to embed.
struct StatusBadge: Sendable, Hashable {
    /// Already redacted, not escaped.
    var label: String
    var value: String
    /// A CSS colour for the value's side.
    var color: String

    /// Green from 99.9%, lighter green from 99%, yellow from 95%, red below; grey without data.
    static func uptimeColor(_ uptime: StatusPage.Uptime?) -> String {
        guard let ratio = uptime?.ratio else { return "#9f9f9f" }
        if ratio >= 0.999 { return "#2e7d32" }
        if ratio >= 0.99 { return "#558b2f" }
        if ratio >= 0.95 { return "#9e6a03" }
        return "#c62828"
    }

    static let latencyColor = "#1f5f99"
    static let noDataColor = "#6e6e6e"

    /// The SVG document: 20 px high, widths from the text, a `<title>` and an `aria-label` with the whole text.
    var svg: String {
        let labelWidth = Self.width(of: label) + 12
        let valueWidth = Self.width(of: value) + 12
        let total = labelWidth + valueWidth
        let text = StatusPageText.escaped("\(label): \(value)")
        let label = StatusPageText.escaped(self.label)
        let value = StatusPageText.escaped(self.value)
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(total)" height="20" viewBox="0 0 \(total) 20" \
            role="img" aria-label="\(text)">
            <title>\(text)</title>
            <clipPath id="r"><rect width="\(total)" height="20" rx="3" fill="#fff"/></clipPath>
            <g clip-path="url(#r)">
            <rect width="\(labelWidth)" height="20" fill="#555"/>
            <rect x="\(labelWidth)" width="\(valueWidth)" height="20" fill="\(StatusPageText.escaped(color))"/>
            </g>
            <g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
            <text x="\(labelWidth / 2)" y="14">\(label)</text>
            <text x="\(labelWidth + valueWidth / 2)" y="14">\(value)</text>
            </g>
            </svg>

            """
    }

    /// The width of `text` in 11 px Verdana, near enough (per-character widths of the common classes).
    static func width(of text: String) -> Int {
        var width = 0.0
        for character in text {
            switch character {
            case "i", "l", "j", "I", "!", "|", ".", ",", ":", ";", "'": width += 3.6
            case " ", "f", "t", "r", "(", ")", "[", "]", "-": width += 4.6
            case "m", "w", "M", "W", "%", "@": width += 11
            case "A"..."Z", "0"..."9": width += 7.6
            default: width += 6.9
            }
        }
        return Int(width.rounded(.up))
    }
}
