import Foundation

/// The `STEPSYNC_*` variables that stand in for options: the one rule of reading them (an empty value is none).
enum EnvironmentValue {
    /// `given` (the option, when given), else the variable `name` when set and not empty, else `nil`.
    static func or(_ given: String?, _ name: String,
                   environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        given ?? environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
