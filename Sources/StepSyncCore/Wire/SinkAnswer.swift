import Foundation

/// A JSON body the sink answers and the sync reads, defined once for both sides of the wire: the sink writes it with
/// ``encoded()``, the sync reads it with ``init(bytes:)``, so renaming a field breaks both at once (issue 24).
///
/// The default coding is Foundation's: `JSONEncoder` with sorted keys (byte for byte what `JSONSerialization` with
/// `.sortedKeys` wrote before, slashes escaped as `\/`) and `JSONDecoder`, which ignores keys it does not know — a
/// newer sink may add fields without breaking an older sync. The acknowledgements write their bytes by hand, to keep
/// the key order their documented examples show.
public protocol SinkAnswer: Codable, Sendable, Equatable {
    /// What the body is, for messages: `the acknowledgement of POST /steps`.
    static var answerName: String { get }

    /// The body's bytes, as the sink sends them.
    func encoded() -> [UInt8]

    /// Reads a body the sink sent.
    ///
    /// - Throws: ``SinkAnswerError`` when `bytes` is not JSON or lacks a field the type needs (a proxy's or another
    ///   server's page, a sink of another API version).
    init(bytes: some Collection<UInt8>) throws(SinkAnswerError)
}

extension SinkAnswer {
    /// The body as `JSONEncoder` writes it with sorted keys; empty only for a non-finite number, which no answer holds.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? Array(encoder.encode(self))) ?? []
    }

    /// Reads a body with `JSONDecoder` (unknown keys are ignored).
    public init(bytes: some Collection<UInt8>) throws(SinkAnswerError) {
        do {
            self = try JSONDecoder().decode(Self.self, from: Data(bytes))
        } catch {
            throw SinkAnswerError(expected: Self.answerName, body: bytes, error: error)
        }
    }
}
