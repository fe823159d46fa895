import APIProbeShared
package import Foundation
package import HTTPFixtures
import ProbeRunner

/// Writes a ``StatusPage`` as a static site: `index.html` (no script, no outside resource) and SVG badges under
/// `badges/`.
///
/// Every text from outside (endpoint names, URLs, failure messages, drift) passes the redactor, after it has
/// learned the credentials in all of them, and is escaped. Files are written atomically and only inside the
/// output folder; badge file names made from endpoint names are made safe (`badges/<endpoint>-uptime-30d.svg`).
package struct StatusPageWriter: Sendable {
    var page: StatusPage
    var redactor: Redactor

    package init(page: StatusPage, redactor: Redactor = Redactor()) {
        self.page = page
        self.redactor = redactor
        for text in page.outsideTexts { redactor.learnBody(Data(text.utf8), contentType: "text/plain") }
    }

    /// The files written, relative to the folder.
    package struct Output: Sendable, Hashable {
        package var index: String
        package var badges: [String]
    }

    /// Writes the site into `folder` (created when missing).
    ///
    /// - Throws: ``HTTPFixtures/InputError`` naming a file that cannot be written.
    @discardableResult
    package func write(to folder: URL, displayName: String? = nil) throws -> Output {
        let shown = displayName ?? folder.relativePath
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw InputError(
                file: shown, position: .file, expected: "a folder that can be created or written",
                found: "\(error.localizedDescription)")
        }
        let badges = self.badges()
        for (path, badge) in badges {
            try AtomicFile.write(
                Data(badge.svg.utf8), to: folder.appendingPathComponent(path), displayName: "\(shown)/\(path)",
                inside: folder)
        }
        try AtomicFile.write(
            Data(html(badges: badges).utf8), to: folder.appendingPathComponent("index.html"),
            displayName: "\(shown)/index.html", inside: folder)
        return Output(index: "index.html", badges: badges.map(\.0))
    }

    var text: OutsideText { OutsideText(redactor: redactor) }

    // MARK: Badges

    /// File names of endpoints' badges: safe, one per endpoint (`-2` after a name made safe twice).
    func badgeNames() -> [String: String] {
        var taken: Set<String> = ["uptime-24h", "uptime-7d", "uptime-30d", "p95"]
        var names: [String: String] = [:]
        for endpoint in page.endpoints {
            let base = SafePath.fileName(text.plain(endpoint.name), fallback: "endpoint")
            let name = UniqueName.first(base) { taken.contains($0.lowercased()) }
            taken.insert(name.lowercased())
            names[endpoint.name] = name
        }
        return names
    }

    /// Every badge with its path: overall uptime per window and p95, then each endpoint's.
    func badges() -> [(String, StatusBadge)] {
        var result: [(String, StatusBadge)] = []
        func add(
            prefix: String, label: String, uptime: [StatusPage.Window: StatusPage.Uptime], latency: StatusPage.Latency
        ) {
            for window in StatusPage.Window.allCases {
                let value = uptime[window]
                result.append(
                    (
                        "badges/\(prefix)uptime-\(window.label).svg",
                        StatusBadge(
                            label: "\(label)uptime \(window.label)", value: StatusPageText.percent(value),
                            color: StatusBadge.uptimeColor(value))
                    ))
            }
            result.append(
                (
                    "badges/\(prefix)p95.svg",
                    StatusBadge(
                        label: "\(label)p95 24h", value: StatusPageText.milliseconds(latency.p95),
                        color: latency.p95 == nil ? StatusBadge.noDataColor : StatusBadge.latencyColor)
                ))
        }
        add(prefix: "", label: "", uptime: page.uptime, latency: page.latency)
        let names = badgeNames()
        for endpoint in page.endpoints {
            add(
                prefix: "\(names[endpoint.name] ?? "endpoint")-", label: "\(text.plain(endpoint.name)) ",
                uptime: endpoint.uptime, latency: endpoint.latency)
        }
        return result
    }

    // MARK: The page

    func html(badges: [(String, StatusBadge)]) -> String {
        let state = page.overallState
        var out = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(text(page.options.title)): \(state.headline)</title>
            <style>\(Self.css)</style>
            </head>
            <body>
            <main>
            <header>
            <h1>\(text(page.options.title))</h1>
            <p id="overall-state" class="state \(state.rawValue)" data-state="\(state.rawValue)">\(state.headline)</p>
            <p class="meta">As of <time id="reference" datetime="\(StatusPageText.machineTime(page.reference))">\
            \(StatusPageText.time(page.reference))</time> (the newest round), from <span id="rounds">\(page.rounds)</span> \
            rounds since <time datetime="\(StatusPageText.machineTime(page.firstRound))">\
            \(StatusPageText.time(page.firstRound))</time>. An endpoint is down after \(page.options.downAfter) failed \
            round\(page.options.downAfter == 1 ? "" : "s") in a row and up again after \
            \(page.options.successThreshold) passing round\(page.options.successThreshold == 1 ? "" : "s").\
            \(page.reportStartedAt.map { " Latest report: \(StatusPageText.time($0))." } ?? "")\
            \(page.damagedLines > 0 ? " \(page.damagedLines) damaged history line(s) skipped." : "")</p>
            <p class="badges">\(overallBadges(badges))</p>
            </header>

            """
        out += maintenanceSection()
        out += uptimeTable()
        out += latencySection()
        out += incidentsSection()
        out += driftSection()
        out += badgesSection(badges)
        out += """
            <footer><p>Generated by apiprobe status-page from the probe history. No scripts, no outside resources.</p></footer>
            </main>
            </body>
            </html>

            """
        return out
    }

    /// The overall badges (paths without an endpoint's prefix), shown under the heading.
    private func overallBadges(_ badges: [(String, StatusBadge)]) -> String {
        badges.prefix(StatusPage.Window.allCases.count + 1).map { path, badge in
            "<img src=\"\(path)\" alt=\"\(StatusPageText.escaped("\(badge.label): \(badge.value)"))\">"
        }.joined(separator: " ")
    }

    /// The config's maintenance windows (with `--config`), each with the endpoints it covers and whether the page's
    /// time is inside it; nothing without windows.
    private func maintenanceSection() -> String {
        guard !page.options.maintenance.isEmpty else { return "" }
        var rows = ""
        for item in page.options.maintenance {
            let scope =
                item.endpoints.isEmpty ? "every endpoint" : item.endpoints.map { text($0) }.joined(separator: ", ")
            var now = "not now"
            if let end = item.window.end(ifContaining: page.reference) {
                now =
                    "<strong class=\"maintenance-now\">in maintenance until <time datetime=\""
                    + "\(StatusPageText.machineTime(end))\">\(StatusPageText.time(end))</time></strong>"
            }
            rows += "<tr><td>\(text(item.window.description))</td><td>\(scope)</td><td>\(now)</td></tr>\n"
        }
        return """
            <section aria-labelledby="maintenance-heading" id="maintenance">
            <h2 id="maintenance-heading">Planned maintenance</h2>
            <p>Rounds inside a window do not probe its endpoints: they count towards no uptime, no incident and no \
            alert.</p>
            <table>
            <thead><tr><th scope="col">Window</th><th scope="col">Endpoints</th>\
            <th scope="col">At \(StatusPageText.time(page.reference))</th></tr></thead>
            <tbody>
            \(rows)</tbody>
            </table>
            </section>

            """
    }

    private func uptimeTable() -> String {
        var rows = ""
        for endpoint in page.endpoints {
            let name = text(endpoint.name)
            rows += "<tr data-endpoint=\"\(name)\">\n<th scope=\"row\">\(name)"
            if let url = endpoint.url { rows += "<br><span class=\"url\">\(text.url(url))</span>" }
            rows += "</th>\n"
            rows +=
                "<td data-field=\"state\" data-state=\"\(endpoint.state.rawValue)\"><span class=\"dot \(endpoint.state.rawValue)\" aria-hidden=\"true\"></span>\(Self.stateName(endpoint.state))"
            if !page.isCurrent(endpoint) {
                rows += " <span class=\"why\">(no round since \(StatusPageText.time(endpoint.lastSeen)))</span>"
            }
            if endpoint.state != .up, let first = endpoint.failedChecks.first {
                rows += "<br><span class=\"why\">\(text(first))</span>"
            }
            rows += "</td>\n"
            for window in StatusPage.Window.allCases {
                rows +=
                    "<td data-field=\"uptime-\(window.label)\">\(StatusPageText.percent(endpoint.uptime[window]))</td>\n"
            }
            rows += "<td data-field=\"p50\">\(StatusPageText.milliseconds(endpoint.latency.p50))</td>\n"
            rows += "<td data-field=\"p95\">\(StatusPageText.milliseconds(endpoint.latency.p95))</td>\n</tr>\n"
        }
        rows += "<tr data-overall=\"true\" class=\"overall\">\n<th scope=\"row\">All endpoints</th>\n"
        rows +=
            "<td data-field=\"state\" data-state=\"\(page.overallState.rawValue)\">\(page.overallState.headline)</td>\n"
        for window in StatusPage.Window.allCases {
            rows += "<td data-field=\"uptime-\(window.label)\">\(StatusPageText.percent(page.uptime[window]))</td>\n"
        }
        rows += "<td data-field=\"p50\">\(StatusPageText.milliseconds(page.latency.p50))</td>\n"
        rows += "<td data-field=\"p95\">\(StatusPageText.milliseconds(page.latency.p95))</td>\n</tr>\n"
        return """
            <section aria-labelledby="uptime-heading">
            <h2 id="uptime-heading">Uptime</h2>
            <table id="uptime">
            <caption>Share of rounds in which every check passed, over the 24 hours, 7 days and 30 days before the \
            newest round (all endpoints: rounds in which every endpoint passed). Latency over the last 24 hours: p50 is \
            the median of the rounds' p50, p95 the 95th percentile of the rounds' p95.</caption>
            <thead><tr><th scope="col">Endpoint</th><th scope="col">State</th><th scope="col">Uptime 24 h</th>\
            <th scope="col">Uptime 7 d</th><th scope="col">Uptime 30 d</th><th scope="col">p50 (24 h)</th>\
            <th scope="col">p95 (24 h)</th></tr></thead>
            <tbody>
            \(rows)</tbody>
            </table>
            </section>

            """
    }

    static func stateName(_ state: StatusPage.State) -> String {
        switch state {
        case .up: return "Up"
        case .failing: return "Failing"
        case .down: return "Down"
        }
    }

    private func latencySection() -> String {
        var out = """
            <section aria-labelledby="latency-heading">
            <h2 id="latency-heading">Latency</h2>
            <p>Each point is a bucket of rounds: p50 is the median of their p50, p95 the 95th percentile of their p95. \
            Shaded: incidents.</p>

            """
        for (index, endpoint) in page.endpoints.enumerated() {
            out += LatencyChart(endpoint: endpoint, index: index, page: page, text: text).html
        }
        return out + "</section>\n"
    }

    private func incidentsSection() -> String {
        var out = """
            <section aria-labelledby="incidents-heading">
            <h2 id="incidents-heading">Incidents</h2>

            """
        guard !page.incidents.isEmpty else {
            return out + "<p id=\"no-incidents\">No incidents in the history.</p>\n</section>\n"
        }
        out += """
            <table id="incidents">
            <caption>Down periods, newest first: from the first failed round to the first passing round of the \
            recovery\(page.olderIncidents > 0 ? " (\(page.olderIncidents) older not shown)" : "").</caption>
            <thead><tr><th scope="col">Endpoint</th><th scope="col">Started</th><th scope="col">Ended</th>\
            <th scope="col">Duration</th><th scope="col">Failed rounds</th><th scope="col">Failure categories</th>\
            <th scope="col">First failure</th></tr></thead>
            <tbody>

            """
        for incident in page.incidents {
            let ended =
                incident.end.map {
                    "<time datetime=\"\(StatusPageText.machineTime($0))\">\(StatusPageText.time($0))</time>"
                } ?? "<strong class=\"ongoing\">ongoing</strong>"
            out += """
                <tr data-incident="\(text(incident.endpoint))">
                <th scope="row">\(text(incident.endpoint))</th>
                <td data-field="start"><time datetime="\(StatusPageText.machineTime(incident.start))">\
                \(StatusPageText.time(incident.start))</time></td>
                <td data-field="end">\(ended)</td>
                <td data-field="duration">\(StatusPageText.duration(incident.duration(until: page.reference)))</td>
                <td data-field="failed-rounds">\(incident.failedRounds)</td>
                <td data-field="failures">\(text(incident.failures.joined(separator: ", ")))</td>
                <td data-field="message">\(incident.message.map { text($0) } ?? "")</td>
                </tr>

                """
        }
        return out + "</tbody>\n</table>\n</section>\n"
    }

    private func driftSection() -> String {
        var out = """
            <section aria-labelledby="drift-heading">
            <h2 id="drift-heading">Schema drift</h2>

            """
        guard !page.driftEvents.isEmpty else {
            return out + "<p id=\"no-drift\">No schema drift in the history.</p>\n</section>\n"
        }
        out += """
            <table id="drift">
            <caption>Each time the drift of an endpoint's response against its snapshot changed, newest first\
            \(page.olderDriftEvents > 0 ? " (\(page.olderDriftEvents) older not shown)" : "").</caption>
            <thead><tr><th scope="col">Endpoint</th><th scope="col">Since</th><th scope="col">Drift</th></tr></thead>
            <tbody>

            """
        for event in page.driftEvents {
            let changes =
                event.changes.isEmpty
                ? "cleared: the responses match the snapshot again"
                : event.changes.map { text($0) }.joined(separator: "<br>")
            out += """
                <tr data-drift="\(text(event.endpoint))">
                <th scope="row">\(text(event.endpoint))</th>
                <td><time datetime="\(StatusPageText.machineTime(event.at))">\(StatusPageText.time(event.at))</time></td>
                <td>\(changes)</td>
                </tr>

                """
        }
        return out + "</tbody>\n</table>\n</section>\n"
    }

    private func badgesSection(_ badges: [(String, StatusBadge)]) -> String {
        var rows = ""
        for (path, badge) in badges {
            let alt = StatusPageText.escaped("\(badge.label): \(badge.value)")
            rows += """
                <tr><td><img src="\(path)" alt="\(alt)"></td><td><code>![\(alt)](\(path))</code></td></tr>

                """
        }
        return """
            <section aria-labelledby="badges-heading">
            <h2 id="badges-heading">Badges</h2>
            <details>
            <summary>\(badges.count) SVG badges for a README</summary>
            <table id="badges">
            <caption>Badges and the Markdown that embeds them (paths relative to this page).</caption>
            <thead><tr><th scope="col">Badge</th><th scope="col">Markdown</th></tr></thead>
            <tbody>
            \(rows)</tbody>
            </table>
            </details>
            </section>

            """
    }

    static let css = """

        :root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--card:#f6f8fa;\
        --up:#1a7f37;--failing:#9a6700;--down:#cf222e;--p50:#0969da;--p95:#8250df;--band:rgba(207,34,46,.14)}
        @media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;--line:#30363d;\
        --card:#161b22;--up:#3fb950;--failing:#d29922;--down:#f85149;--p50:#58a6ff;--p95:#bc8cff;\
        --band:rgba(248,81,73,.2)}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",\
        Roboto,"DejaVu Sans",sans-serif}
        main{max-width:1000px;margin:0 auto;padding:24px 16px 48px}
        h1{margin:0 0 8px;font-size:28px}h2{margin:32px 0 8px;font-size:20px}h3{margin:20px 0 4px;font-size:16px}
        .state{display:inline-block;margin:4px 0;padding:6px 14px;border-radius:6px;font-weight:600;color:#fff}
        .state.operational{background:var(--up)}.state.degraded{background:var(--failing)}
        .state.partial-outage,.state.major-outage{background:var(--down)}
        @media (prefers-color-scheme:dark){.state{color:#0d1117}}
        .meta,caption,.url,.why,footer{color:var(--muted)}
        .url,.why{font-size:13px;font-weight:400;word-break:break-all}
        table{width:100%;border-collapse:collapse;margin:8px 0}
        caption{text-align:left;font-size:13px;padding-bottom:6px;caption-side:top}
        th,td{padding:6px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
        thead th{background:var(--card);font-size:13px;white-space:nowrap}
        .badges img{height:20px;margin-right:4px;vertical-align:middle}
        td[data-field^=uptime],td[data-field^=p],td[data-field=failed-rounds]{font-variant-numeric:tabular-nums;\
        white-space:nowrap}
        tr.overall th,tr.overall td{font-weight:600}
        .dot{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:6px}
        .dot.up{background:var(--up)}.dot.failing{background:var(--failing)}.dot.down{background:var(--down)}
        .ongoing{color:var(--down)}
        figure{margin:8px 0 4px}svg.chart{width:100%;height:auto;background:var(--card);border-radius:6px}
        svg.chart .grid{stroke:var(--line);stroke-width:1}svg.chart text{fill:var(--muted);font-size:11px}
        svg.chart .p50{stroke:var(--p50);fill:none;stroke-width:2}svg.chart .p95{stroke:var(--p95);fill:none;\
        stroke-width:2}
        svg.chart circle.p50{fill:var(--p50)}svg.chart circle.p95{fill:var(--p95)}
        svg.chart .band{fill:var(--band)}
        figcaption{font-size:13px;color:var(--muted)}
        .key{display:inline-block;width:14px;height:3px;vertical-align:middle;margin:0 4px 0 10px}
        .key.p50{background:var(--p50)}.key.p95{background:var(--p95)}
        details{margin:4px 0 12px}summary{cursor:pointer;color:var(--muted);font-size:13px}
        code{font-size:12px;word-break:break-all}

        """
}

extension StatusPage {
    /// Every text on the page that came from outside (names, URLs, messages, drift), for the redactor to learn
    /// the credentials in before anything is written.
    var outsideTexts: [String] {
        var texts: [String] = [options.title]
        for endpoint in endpoints {
            texts.append(endpoint.name)
            if let url = endpoint.url { texts.append(url) }
            texts += endpoint.failedChecks
        }
        for incident in incidents {
            if let message = incident.message { texts.append(message) }
            texts += incident.failures
        }
        for event in driftEvents { texts += event.changes }
        return texts
    }
}
