import ArgumentParser
import Foundation
import StepSyncCore

/// The current instant for the commands that generate samples (`generate`, `demo`): the system clock, or
/// `STEPSYNC_NOW` (an ISO-8601 UTC instant such as `2025-06-30T12:00:00.000Z`) so that tests fix "now" without
/// racing the wall clock.
enum Now {
    /// The environment variable that fixes "now" (tests).
    static let variable = "STEPSYNC_NOW"

    /// Milliseconds since 1970 of the current instant.
    ///
    /// - Throws: `ValidationError` naming `STEPSYNC_NOW` when it is set but not an instant.
    static func ms(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Int64 {
        if let text = environment[variable], !text.isEmpty {
            guard let ms = ISO8601Millis.parse(text) else {
                throw ValidationError("\(variable) must be an ISO-8601 UTC instant such as 2025-06-30T12:00:00.000Z, not '\(text.prefix(64))'")
            }
            return ms
        }
        return TimeSource.systemNowMs()
    }

    /// The UTC date of `ms`.
    static func utcDate(_ ms: Int64) -> CivilDate {
        let days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
        return CivilDate(daysSinceEpoch: Int(days))
    }
}
