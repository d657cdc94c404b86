import StepSyncCore

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
        case invalidRecord
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

    /// A record's attribute cannot be read (a date that is not a date, a value that is not a number, …).
    static func invalidRecord(_ file: String, line: Int, reason: String) -> ImportError {
        ImportError(code: .invalidRecord, message: "\(file) line \(line): \(reason)")
    }
}

/// A problem found while scanning XML, before the importer knows the file's display name.
struct XMLProblem: Error {
    enum Kind { case malformed, truncated, invalidRecord }
    var kind: Kind
    var line: Int
    var reason: String

    /// The public error, naming `file`.
    func error(in file: String) -> ImportError {
        switch kind {
        case .malformed: return .malformedXML(file, line: line, reason: reason)
        case .truncated: return .truncated(file, line: line, reason: reason)
        case .invalidRecord: return .invalidRecord(file, line: line, reason: reason)
        }
    }
}

extension XMLProblem {
    /// What an error may quote of the input: ``InputExcerpt`` (its first 64 Unicode scalars, `…` when there is more).
    static func excerpt(_ text: some StringProtocol) -> String {
        InputExcerpt.of(text)
    }

    /// ``excerpt(_:)`` of raw attribute or name bytes (entities decoded), reading no more than it quotes.
    static func excerpt(_ raw: UnsafeRawBufferPointer) -> String {
        excerpt(XMLAttributes.decode(UnsafeRawBufferPointer(rebasing: raw.prefix(64 * 4 + 16))))
    }
}
