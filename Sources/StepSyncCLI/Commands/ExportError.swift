import Foundation

/// `stepsync export` could not write where it was told to, and says why: no partial file is left behind.
struct ExportError: Error, CustomStringConvertible {
    private enum Code {
        case exists, create, write, rename, interrupted
    }

    private let code: Code
    let description: String

    /// `--out` names a file that exists, and `--force` was not given.
    static func exists(_ path: String) -> ExportError {
        ExportError(code: .exists, description: "\(path) exists: give --force to replace it, or another --out")
    }

    /// The temporary file beside `--out` could not be created (no such directory, permission).
    static func create(_ path: String, errno number: Int32) -> ExportError {
        ExportError(code: .create, description: "cannot create \(path): \(String(cString: strerror(number)))"
                    + " (the export is written there first, then renamed to --out)")
    }

    /// Writing failed part-way (a full disk, a closed pipe).
    static func write(_ path: String, errno number: Int32) -> ExportError {
        ExportError(code: .write, description: "cannot write \(path): \(String(cString: strerror(number)))")
    }

    /// The finished temporary file could not be renamed to `--out`.
    static func rename(_ temp: String, to path: String, errno number: Int32) -> ExportError {
        ExportError(code: .rename, description: "cannot rename \(temp) to \(path): \(String(cString: strerror(number)))")
    }

    /// SIGINT or SIGTERM stopped the export between two pages.
    static let interrupted = ExportError(code: .interrupted, description: "interrupted")

    /// Whether a signal stopped the export (exit 130, as shells report SIGINT).
    var isInterrupted: Bool { code == .interrupted }
}
