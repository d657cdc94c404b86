import ArgumentParser
import StepSyncCore

/// An option value from a closed set of names, read in any case (`--status inflight`, `--profile Realistic`).
public protocol CaseInsensitiveArgument: ExpressibleByArgument, CaseIterable, RawRepresentable where RawValue == String {}

extension CaseInsensitiveArgument {
    /// The case whose name is `text` in any case, `nil` for none.
    public static func named(_ text: String) -> Self? {
        let wanted = text.lowercased()
        return allCases.first { $0.rawValue.lowercased() == wanted }
    }

    public init?(argument: String) {
        guard let match = Self.named(argument) else { return nil }
        self = match
    }
}

extension IntervalStatus: CaseInsensitiveArgument {}
