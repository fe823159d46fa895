import APIProbeShared
import Foundation

/// One endpoint's latency chart: inline SVG (p50 and p95 lines over the buckets, incidents shaded) with a
/// `<title>` and `<desc>`, followed by the same numbers as a data table.
struct LatencyChart {
    var endpoint: StatusPage.Endpoint
    var index: Int
    var page: StatusPage
    var text: OutsideText

    static let width = 720.0
    static let height = 220.0
    static let left = 58.0
    static let right = 12.0
    static let top = 14.0
    static let bottom = 30.0

    /// A round upper bound for the axis: 1, 2, 2.5 or 5 × a power of ten, at least `value`.
    static func axisMaximum(_ value: Double) -> Double {
        guard value.isFinite, value > 0 else { return 1 }
        let power = pow(10, (log10(value)).rounded(.down))
        for step in [1.0, 2, 2.5, 5, 10] where step * power >= value { return step * power }
        return 10 * power
    }

    static func number(_ value: Double) -> String { DisplayText.decimal(value, places: 1) }

    var html: String {
        let buckets = endpoint.chart
        let id = "chart-\(index)"
        let name = text(endpoint.name)
        let values = buckets.flatMap { [$0.latency.p50, $0.latency.p95].compactMap { $0 } }
        let maximum = Self.axisMaximum(values.max() ?? 0)
        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        let start = buckets.first?.start.timeIntervalSince1970 ?? page.reference.timeIntervalSince1970
        let end = buckets.last?.end.timeIntervalSince1970 ?? start + 1
        let span = max(end - start, 1)
        func x(_ time: Double) -> Double { Self.left + (time - start) / span * plotWidth }
        func y(_ value: Double) -> Double { Self.top + plotHeight - value / maximum * plotHeight }

        var svg = """
            <svg class="chart" id="\(id)" viewBox="0 0 \(Int(Self.width)) \(Int(Self.height))" role="img" \
            aria-labelledby="\(id)-title \(id)-desc" xmlns="http://www.w3.org/2000/svg">
            <title id="\(id)-title">Latency of \(name)</title>
            <desc id="\(id)-desc">\(description(maximum: maximum))</desc>

            """
        for step in 0...4 {
            let value = maximum * Double(step) / 4
            let lineY = Self.number(y(value))
            svg += "<line class=\"grid\" x1=\"\(Int(Self.left))\" x2=\"\(Int(Self.width - Self.right))\" "
            svg += "y1=\"\(lineY)\" y2=\"\(lineY)\"/>"
            svg += "<text x=\"\(Int(Self.left - 6))\" y=\"\(Self.number(y(value) + 4))\" text-anchor=\"end\">"
            svg += "\(Self.axisLabel(value)) ms</text>\n"
        }
        for incident in page.incidents where incident.endpoint == endpoint.name {
            let from = max(start, incident.start.timeIntervalSince1970)
            let to = min(end, (incident.end ?? page.reference).timeIntervalSince1970)
            guard to >= from else { continue }
            let bandX = x(from)
            let bandWidth = max(2, x(to) - bandX)
            svg += "<rect class=\"band\" x=\"\(Self.number(bandX))\" y=\"\(Int(Self.top))\" "
            svg += "width=\"\(Self.number(bandWidth))\" height=\"\(Self.number(plotHeight))\"/>\n"
        }
        for series in ["p50", "p95"] {
            var segment: [String] = []
            func flush() {
                if segment.count == 1, let point = segment.first {
                    let parts = point.split(separator: ",")
                    svg += "<circle class=\"\(series)\" cx=\"\(parts[0])\" cy=\"\(parts[1])\" r=\"2.5\"/>\n"
                } else if segment.count > 1 {
                    svg += "<polyline class=\"\(series)\" points=\"\(segment.joined(separator: " "))\"/>\n"
                }
                segment = []
            }
            for bucket in buckets {
                let value = series == "p50" ? bucket.latency.p50 : bucket.latency.p95
                guard let value else {
                    flush()
                    continue
                }
                let middle = (bucket.start.timeIntervalSince1970 + bucket.end.timeIntervalSince1970) / 2
                segment.append("\(Self.number(x(middle))),\(Self.number(y(value)))")
            }
            flush()
        }
        let labelY = Int(Self.height - 10)
        svg +=
            "<text x=\"\(Int(Self.left))\" y=\"\(labelY)\">\(StatusPageText.time(Date(timeIntervalSince1970: start)))</text>\n"
        svg += "<text x=\"\(Int(Self.width - Self.right))\" y=\"\(labelY)\" text-anchor=\"end\">"
        svg += "\(StatusPageText.time(Date(timeIntervalSince1970: end)))</text>\n</svg>\n"

        var rows = ""
        for bucket in buckets {
            rows += "<tr><th scope=\"row\"><time datetime=\"\(StatusPageText.machineTime(bucket.start))\">"
            rows += "\(StatusPageText.time(bucket.start))</time></th>"
            rows += "<td data-field=\"rounds\">\(bucket.latency.rounds)</td>"
            rows += "<td data-field=\"p50\">\(StatusPageText.milliseconds(bucket.latency.p50))</td>"
            rows += "<td data-field=\"p95\">\(StatusPageText.milliseconds(bucket.latency.p95))</td></tr>\n"
        }
        return """
            <h3 id="\(id)-heading">\(name)</h3>
            <figure aria-labelledby="\(id)-heading">
            \(svg)<figcaption><span class="key p50" aria-hidden="true"></span>p50 \
            <span class="key p95" aria-hidden="true"></span>p95, \(buckets.count) buckets of \
            \(StatusPageText.duration(span / Double(max(1, buckets.count)))) each.</figcaption>
            </figure>
            <details>
            <summary>Latency of \(name) as a table</summary>
            <table class="chart-data" data-endpoint="\(name)">
            <caption>Latency of \(name) per bucket (start time, rounds with a latency, p50, p95).</caption>
            <thead><tr><th scope="col">Bucket start</th><th scope="col">Rounds</th><th scope="col">p50</th>\
            <th scope="col">p95</th></tr></thead>
            <tbody>
            \(rows)</tbody>
            </table>
            </details>

            """
    }

    /// The chart in words: the range shown and the lowest and highest of each line.
    func description(maximum: Double) -> String {
        let p50 = endpoint.chart.compactMap(\.latency.p50)
        let p95 = endpoint.chart.compactMap(\.latency.p95)
        func range(_ values: [Double]) -> String {
            guard let low = values.min(), let high = values.max() else { return "no data" }
            return "from \(StatusPageText.milliseconds(low)) to \(StatusPageText.milliseconds(high))"
        }
        let first = endpoint.chart.first.map { StatusPageText.time($0.start) } ?? ""
        let last = endpoint.chart.last.map { StatusPageText.time($0.end) } ?? ""
        return "Latency in \(endpoint.chart.count) buckets from \(first) to \(last): p50 \(range(p50)), "
            + "p95 \(range(p95)). The same numbers are in the table below the chart."
    }

    /// `250`, `2.5`, `0.25`: as few decimals as the tick needs.
    static func axisLabel(_ value: Double) -> String {
        if value == value.rounded() { return String(Int(value)) }
        return DisplayText.trimmed(value)
    }
}
