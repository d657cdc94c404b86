import Foundation

/// A fresh directory under the system temp dir, removed when the test ends.
final class TemporaryDirectory {
    let path: String

    init(_ name: String = "stepsync-test") throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
