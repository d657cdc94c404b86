/// Why an import failed, naming the file (and the entry of a zip) and, for XML content, the line.
///
/// An import that throws leaves the sample store as it was: see `Planning/import.md`.
public struct ImportError: Error, CustomStringConvertible, Sendable {
    private enum Code: Sendable {
        case cannotRead
        case notAnExport
        case badArchive
        case malformedXML
        case truncated
        case strictRefusal
    }

    private let code: Code
    /// What went wrong, for people: `export.xml line 1234: Record startDate "2019-13-01 …" is not a date`.
    public let message: String

    public var description: String { message }

    /// The file could not be opened or read.
    static func cannotRead(_ file: String, reason: String) -> ImportError {
        ImportError(code: .cannotRead, message: "\(file): cannot read the file: \(reason)")
    }

    /// The file is neither a zip archive nor XML, or holds no Apple Health export.
    static func notAnExport(_ file: String, reason: String) -> ImportError {
        ImportError(code: .notAnExport, message: "\(file): \(reason)")
    }

    /// The zip archive is damaged or truncated.
    static func badArchive(_ file: String, reason: String) -> ImportError {
        ImportError(code: .badArchive, message: "\(file): \(reason)")
    }

    /// The XML is not well-formed where the importer needs it to be.
    static func malformedXML(_ file: String, line: Int, reason: String) -> ImportError {
        ImportError(code: .malformedXML, message: "\(file) line \(line): \(reason)")
    }

    /// The XML ends before its root element does.
    static func truncated(_ file: String, line: Int, reason: String) -> ImportError {
        ImportError(code: .truncated, message: "\(file) line \(line): \(reason); the file is truncated")
    }

    /// `--strict`: a record would have been skipped (a date that is not a date, a value that is not a number, …),
    /// so nothing is imported.
    static func strictRefusal(_ file: String, line: Int, reason: String) -> ImportError {
        ImportError(code: .strictRefusal, message: "\(file) line \(line): \(reason); --strict imports nothing when a record would be skipped (without it, the record is skipped and counted)")
    }
}

extension ImportError {
    /// `--strict`: a route or ECG file of the export would have been skipped (the reason names the file and line).
    static func strictRefusal(_ file: String, reason: String) -> ImportError {
        ImportError(code: .strictRefusal, message: "\(file): \(reason); --strict imports nothing when a record or file would be skipped (without it, it is skipped and counted)")
    }
}

/// A problem found while scanning XML, before the importer knows the file's display name.
struct XMLProblem: Error {
    enum Kind {
        /// Structural damage: the file is refused.
        case malformed, truncated
        /// A record that would be skipped, under `--strict`.
        case strict
    }
    var kind: Kind
    var line: Int
    var reason: String

    /// The public error, naming `file`.
    func error(in file: String) -> ImportError {
        switch kind {
        case .malformed: return .malformedXML(file, line: line, reason: reason)
        case .truncated: return .truncated(file, line: line, reason: reason)
        case .strict: return .strictRefusal(file, line: line, reason: reason)
        }
    }
}
