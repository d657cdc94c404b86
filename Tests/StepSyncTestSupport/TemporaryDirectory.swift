import Foundation

/// A fresh directory under the system temp dir, removed when the value goes away — the one way tests make one.
public final class TemporaryDirectory: Sendable {
    /// The directory's path.
    public let path: String

    /// Creates `<tmp>/<prefix>-<uuid>`.
    public init(_ prefix: String = "stepsync-test") throws {
        path = try Self.make(prefix)
    }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// The directory as a file URL.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A fresh path `<tmp>/<prefix>-<uuid>`, not created (for a command that must create it itself).
    public static func uniquePath(_ prefix: String) -> String {
        (NSTemporaryDirectory() as NSString).appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    }

    /// Creates a fresh directory `<tmp>/<prefix>-<uuid>` and returns its path; the caller removes it.
    public static func make(_ prefix: String) throws -> String {
        let path = uniquePath(prefix)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// Runs `body` with a fresh temporary directory's path, removing the directory afterwards.
public func withTemporaryDirectory<T>(_ prefix: String = "stepsync-test", _ body: (String) async throws -> T)
    async throws -> T
{
    let directory = try TemporaryDirectory(prefix)
    defer { withExtendedLifetime(directory) {} }
    return try await body(directory.path)
}
