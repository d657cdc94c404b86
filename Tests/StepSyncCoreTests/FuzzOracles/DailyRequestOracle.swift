import Foundation
import StepSyncCore

/// What `DailyStepsRequest.parse(from:to:tz:priority:)` (the query parameters of `GET /steps/daily`, and
/// `stats --daily`'s options) promises for any text, as checks that return the broken promises (empty when all hold).
///
/// The input is the four parameters separated by a `0xFF` byte (never part of UTF-8): `from 0xFF to 0xFF tz` and,
/// when a third `0xFF` follows, `0xFF priority` (else no priority). A parameter is read as the sink reads a
/// percent-decoded query value: its bytes as UTF-8, invalid sequences replaced by U+FFFD. The promises:
/// 1. any input is safe (no trap), and a refusal is a ``DailyStepsError`` whose message starts with the parameter
///    it names, quotes at most 64 Unicode scalars of any value, and names the *first* parameter at fault in the
///    order `from`, `to`, `priority`, then the span (`to`), then `tz` — judged by a second, independent reading of
///    each parameter (a date by its digits and the Gregorian calendar; a priority list split at every comma);
/// 2. an accepted request holds exactly what was given: `from ≤ to` are those dates (years 0001…9999, written back
///    the same), at most ``DailyStepsRequest/maxDays`` days, the zone named as given and known to `TimeZone`, the
///    priority's names trimmed and in order (the default without one);
/// 3. its days are a valid range: day boundaries never decrease and no day is longer than 48 hours, and (for up to
///    62 days) daily totals of no samples are one zero per day whose JSON `JSONSerialization` reads back with the
///    same zone name.
enum DailyRequestOracle {
    /// Messages are at most this many Unicode scalars longer than the 64 scalars (and `…`) they may quote.
    static let maxFixedScalars = 190

    /// The four parameters of `bytes` (see the type's documentation).
    static func parameters(_ bytes: UnsafeRawBufferPointer) -> (from: String, to: String, tz: String, priority: String?) {
        let fields = bytes.split(separator: 0xFF, maxSplits: 3, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        func field(_ i: Int) -> String { i < fields.count ? fields[i] : "" }
        return (field(0), field(1), field(2), fields.count > 3 ? fields[3] : nil)
    }

    /// The promises `DailyStepsRequest.parse` breaks on `bytes`.
    static func problems(_ bytes: UnsafeRawBufferPointer) -> [String] {
        let given = parameters(bytes)
        let expected = expectedFault(given)
        let request: DailyStepsRequest
        do {
            request = try DailyStepsRequest.parse(from: given.from, to: given.to, tz: given.tz, priority: given.priority)
        } catch let error as DailyStepsError {
            return errorProblems(error, expected: expected)
        } catch {
            return ["parse threw \(type(of: error)), not DailyStepsError: \(error)"]
        }
        if let expected {
            return ["accepted, though \(expected.parameter) is at fault (\(expected.kind)): \(FuzzText.head("\(given)"))"]
        }
        return requestProblems(request, given)
    }

    // MARK: - Refusals

    static func errorProblems(_ error: DailyStepsError, expected: (parameter: String, kind: String)?) -> [String] {
        var problems: [String] = []
        let message = error.description
        guard let parameter = error.parameter else { return ["a refusal names no parameter: \(FuzzText.head(message))"] }
        if !message.hasPrefix("\(parameter): ") { problems.append("the message does not start with \(parameter): ") }
        if message.unicodeScalars.count > InputExcerpt.maxScalars + 1 + maxFixedScalars {
            problems.append("the message quotes too much (\(message.unicodeScalars.count) scalars): \(FuzzText.head(message))")
        }
        if let expected {
            if (parameter, error.kind) != (expected.parameter, expected.kind) {
                problems.append("refused naming \(parameter) (\(error.kind)), expected \(expected.parameter) (\(expected.kind)): \(FuzzText.head(message))")
            }
        } else if error.parameter != "tz" || error.kind != "invalid_tz" {
            // Everything else is right by the independent reading, so only the zone can be refused.
            problems.append("refused naming \(parameter) (\(error.kind)), though only tz could be at fault: \(FuzzText.head(message))")
        }
        return problems
    }

    /// The first parameter at fault by the independent reading, or `nil` when only `tz` (which only `TimeZone` can
    /// judge) can still be at fault.
    static func expectedFault(_ given: (from: String, to: String, tz: String, priority: String?))
        -> (parameter: String, kind: String)?
    {
        guard let from = date(given.from) else { return ("from", "invalid_date") }
        guard let to = date(given.to) else { return ("to", "invalid_date") }
        if let priority = given.priority, names(priority) == nil { return ("priority", "invalid_priority") }
        if to.days < from.days || to.days - from.days + 1 > DailyStepsRequest.maxDays { return ("to", "invalid_span") }
        return nil
    }

    /// `YYYY-MM-DD` of years 0001…9999 read digit by digit, as days since 0001-01-01 (a proleptic Gregorian count).
    static func date(_ text: String) -> (year: Int, month: Int, day: Int, days: Int)? {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                value = value * 10 + Int(b[i] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), year >= 1 else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...lengths[month - 1]).contains(day) else { return nil }
        let y = year - 1
        return (year, month, day, y * 365 + y / 4 - y / 100 + y / 400 + lengths[..<(month - 1)].reduce(0, +) + day - 1)
    }

    /// A priority list split at every comma (U+002C, whatever follows it) and trimmed of spaces, or `nil` when the
    /// list is refused: empty, more than 32 names, an empty or over-long name, a name repeated ignoring case.
    static func names(_ text: String) -> [String]? {
        let names = text.unicodeScalars.split(separator: ",", omittingEmptySubsequences: false)
            .map { String(String.UnicodeScalarView($0)).trimmingCharacters(in: .whitespaces) }
        guard !(names.count == 1 && names[0].isEmpty), names.count <= DevicePriority.maxNames,
              names.allSatisfy({ !$0.isEmpty && $0.utf8.count <= SampleValidation.maxFieldBytes }),
              Set(names.map { $0.lowercased() }).count == names.count
        else { return nil }
        return names
    }

    // MARK: - Acceptances

    static func requestProblems(_ request: DailyStepsRequest,
                                _ given: (from: String, to: String, tz: String, priority: String?)) -> [String] {
        var problems: [String] = []
        if request.from.description != given.from || request.to.description != given.to {
            problems.append("dates \(given.from)…\(given.to) read as \(request.from)…\(request.to)")
        }
        if !(request.from <= request.to) { problems.append("from \(request.from) is after to \(request.to)") }
        let count = request.from.distance(to: request.to) + 1
        if count > DailyStepsRequest.maxDays { problems.append("\(count) days, over \(DailyStepsRequest.maxDays)") }
        if request.timeZoneName != given.tz { problems.append("tz \(FuzzText.head(given.tz)) became \(request.timeZoneName)") }
        if TimeZone(identifier: given.tz) == nil { problems.append("tz \(FuzzText.head(given.tz)) is not a TimeZone") }
        if !given.tz.utf8.allSatisfy({ $0 < 0x80 }) || given.tz.utf8.count > DailyStepsRequest.maxTimeZoneNameLength {
            problems.append("tz \(FuzzText.head(given.tz)) is not a short ASCII name")
        }
        let names = given.priority.map { self.names($0) } ?? DevicePriority.default.names
        if request.priority.names != names {
            problems.append("priority \(FuzzText.head(given.priority ?? "nil")) read as \(request.priority.names.map(FuzzText.head))")
        }
        problems += dayProblems(request, count: count)
        return problems
    }

    static func dayProblems(_ request: DailyStepsRequest, count: Int) -> [String] {
        let zone = request.timeZone
        guard count <= 62 else {
            let start = LocalDays.startOfDay(daysSinceEpoch: request.from.daysSinceEpoch, in: zone)
            let end = LocalDays.startOfDay(daysSinceEpoch: request.to.daysSinceEpoch + 1, in: zone)
            if start > end || end - start > Int64(count) * 48 * Milliseconds.hour {
                return ["the days \(request.from)…\(request.to) in \(request.timeZoneName) span \(start)…\(end)"]
            }
            return []
        }
        var problems: [String] = []
        let days = request.days
        if days.count != count { problems.append("\(days.count) days, expected \(count)") }
        for (a, b) in zip(days.boundaries, days.boundaries.dropFirst()) where b < a || b - a > 48 * Milliseconds.hour {
            problems.append("a day of \(request.timeZoneName) from \(a) to \(b) ms")
        }
        do {
            let result = try DailyStepTotals.compute([DailyStepTotals.Sample](), request: request)
            if result.days.count != count || result.days.contains(where: { $0.steps != 0 || $0.microSteps != 0 })
                || result.days.first?.date != request.from || result.days.last?.date != request.to {
                problems.append("totals of no samples are not \(count) zero days")
            }
            let object = try? JSONSerialization.jsonObject(with: Data(result.json.utf8)) as? [String: Any]
            if object?["tz"] as? String != request.timeZoneName || (object?["days"] as? [Any])?.count != count {
                problems.append("the answer's JSON does not read back: \(FuzzText.head(result.json))")
            }
        } catch {
            problems.append("totals of no samples fail: \(error)")
        }
        return problems
    }
}
