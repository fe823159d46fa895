import APIProbeShared
package import Foundation

/// A time when an endpoint is expected to be unavailable (a deploy, a database upgrade): a round that starts
/// inside it does not probe the endpoint, so it neither fails the run, nor counts towards `downAfter`, nor alerts.
///
/// ```yaml
/// maintenance:                                   # every endpoint; an endpoint's own list adds to it
///   - {start: "02:00", duration: 2h, every: [sun], timezone: Europe/Berlin}
///   - {start: "23:30", duration: 45m}            # every day, UTC
/// ```
///
/// `start` is the time of day the window opens (24-hour `HH:MM`), in `timezone` (an IANA name, `UTC` by default);
/// `every` lists the days it opens on (`mon` … `sun`; every day when left out); a window may run past midnight.
/// Gatus skips alerts in its maintenance windows the same way; `apiprobe run --only NAME` probes an endpoint in
/// maintenance all the same (the user asked for it) and shows the result, but records nothing of it: no history
/// line, counter, alert or push.
package struct MaintenanceWindow: Sendable, Hashable, CustomStringConvertible {
    /// Minutes after midnight, 0 to 1439.
    var startMinute: Int
    var duration: Duration
    /// Weekdays as `Calendar` numbers them (1 is Sunday); empty for every day.
    var weekdays: Set<Int>
    var timeZone: TimeZone

    package init(
        startMinute: Int, duration: Duration, weekdays: Set<Int> = [],
        timeZone: TimeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0)!
    ) {
        self.startMinute = startMinute
        self.duration = duration
        self.weekdays = weekdays
        self.timeZone = timeZone
    }

    /// The days `every` accepts, by `Calendar` weekday number.
    static let dayNames: [(short: String, long: String)] = [
        ("sun", "sunday"), ("mon", "monday"), ("tue", "tuesday"), ("wed", "wednesday"), ("thu", "thursday"),
        ("fri", "friday"), ("sat", "saturday"),
    ]

    /// The longest window: a week (a longer one is a decommission, not maintenance).
    static let longest: Duration = .seconds(7 * 86_400)

    /// When the window that contains `date` ends, or `nil` when `date` is outside every opening of the window.
    package func end(ifContaining date: Date) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let seconds = duration.timeInterval
        // An opening that contains `date` began on its day or on one of the days before (a window lasts a week at
        // most): the latest such opening decides.
        let today = calendar.startOfDay(for: date)
        for back in 0...7 {
            guard let day = calendar.date(byAdding: .day, value: -back, to: today) else { continue }
            if !weekdays.isEmpty && !weekdays.contains(calendar.component(.weekday, from: day)) { continue }
            guard
                let start = calendar.date(
                    bySettingHour: startMinute / 60, minute: startMinute % 60, second: 0, of: day)
            else { continue }
            if start <= date && date < start.addingTimeInterval(seconds) {
                return start.addingTimeInterval(seconds)
            }
        }
        return nil
    }

    /// `02:00 for 2h on sun, mon (Europe/Berlin)`.
    package var description: String {
        let time = String(format: "%02d:%02d", startMinute / 60, startMinute % 60)
        let days =
            weekdays.isEmpty
            ? "every day" : "on " + weekdays.sorted().map { Self.dayNames[$0 - 1].short }.joined(separator: ", ")
        let zone = ["GMT", "UTC"].contains(timeZone.identifier) ? "UTC" : timeZone.identifier
        return "\(time) for \(ProbeConfig.describe(duration)) \(days) (\(zone))"
    }
}

extension ProbeConfig {
    /// When `endpoint`'s maintenance ends, if a window of the config's or its own contains `date`: the latest end
    /// of the windows that do.
    package func maintenanceEnd(of endpoint: EndpointConfig, at date: Date) -> Date? {
        (maintenance + endpoint.maintenance).compactMap { $0.end(ifContaining: date) }.max()
    }

    /// `2h`, `45m`, `90s`: a duration as a config would write it.
    static func describe(_ duration: Duration) -> String {
        let seconds = Int(duration.timeInterval.rounded())
        if seconds % 3_600 == 0 { return "\(seconds / 3_600)h" }
        if seconds % 60 == 0 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }
}
