import Foundation

/// The order in which sources outrank each other in daily step totals, by their device name (`sourceDeviceName`).
///
/// Rank 0 is the highest. A listed name has its position as rank, matched case-insensitively (`apple watch` is
/// `Apple Watch`); every other device name, and a sample without one, shares the lowest rank, ``lowestRank``
/// (= the number of names). Samples of the same rank never hide each other. The default is HealthKit's usual
/// choice for steps: Apple Watch, then iPhone.
public struct DevicePriority: Hashable, Sendable, CustomStringConvertible {
    /// The most names a priority list may have.
    public static let maxNames = 32

    /// The names, highest priority first, as given (trimmed of spaces).
    public let names: [String]
    /// Lowercased name → rank.
    private let ranks: [String: Int]

    /// Apple Watch, then iPhone.
    public static let `default` = DevicePriority(checked: ["Apple Watch", "iPhone"])

    private init(checked names: [String]) {
        self.names = names
        var ranks: [String: Int] = [:]
        for (rank, name) in names.enumerated() { ranks[name.lowercased()] = rank }
        self.ranks = ranks
    }

    /// A priority of `names`, highest first.
    ///
    /// - Throws: ``DailyStepsError`` naming `parameter` when the list is empty or longer than ``maxNames``, or a name
    ///   is empty, longer than ``SampleValidation/maxFieldBytes`` bytes or repeated (ignoring case).
    public init(_ names: [String], parameter: String = "priority") throws {
        guard !names.isEmpty else {
            throw DailyStepsError.invalidPriority("is empty; name the devices to prefer, such as \"Apple Watch,iPhone\"",
                                                  parameter: parameter)
        }
        guard names.count <= Self.maxNames else {
            throw DailyStepsError.invalidPriority("lists \(names.count) names, over the limit of \(Self.maxNames)",
                                                  parameter: parameter)
        }
        var seen = Set<String>()
        for (index, name) in names.enumerated() {
            guard !name.isEmpty else {
                throw DailyStepsError.invalidPriority("name \(index + 1) is empty", parameter: parameter)
            }
            guard name.utf8.count <= SampleValidation.maxFieldBytes else {
                throw DailyStepsError.invalidPriority(
                    "name \(index + 1) is \(name.utf8.count) bytes long, over the limit of \(SampleValidation.maxFieldBytes)",
                    parameter: parameter)
            }
            guard seen.insert(name.lowercased()).inserted else {
                throw DailyStepsError.invalidPriority("lists \(DailyStepsError.quoted(name)) twice", parameter: parameter)
            }
        }
        self.init(checked: names)
    }

    /// Parses a comma-separated list, `Apple Watch,iPhone`; spaces around each name are ignored. Every comma
    /// (U+002C) separates, even one a combining mark follows (as a `Character`, `","` + U+0301 is not a comma).
    ///
    /// - Throws: ``DailyStepsError`` naming `parameter`, as ``init(_:parameter:)``.
    public static func parse(_ text: String, parameter: String = "priority") throws -> DevicePriority {
        let names = text.unicodeScalars.split(separator: ",", omittingEmptySubsequences: false).map {
            String(String.UnicodeScalarView($0)).trimmingCharacters(in: .whitespaces)
        }
        return try DevicePriority(names.count == 1 && names[0].isEmpty ? [] : names, parameter: parameter)
    }

    /// The rank shared by unlisted devices and samples without a device name: one below the last listed name.
    public var lowestRank: Int { names.count }

    /// The rank of a sample recorded by `deviceName` (0 is the highest).
    public func rank(ofDevice deviceName: String?) -> Int {
        guard let deviceName else { return lowestRank }
        return ranks[deviceName.lowercased()] ?? lowestRank
    }

    /// `Apple Watch, iPhone`.
    public var description: String { names.joined(separator: ", ") }

    public static func == (lhs: DevicePriority, rhs: DevicePriority) -> Bool { lhs.names == rhs.names }
    public func hash(into hasher: inout Hasher) { hasher.combine(names) }
}
