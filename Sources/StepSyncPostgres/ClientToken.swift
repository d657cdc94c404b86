import Crypto
import Foundation

/// A client's bearer token: `ss_` and 256 random bits as base64url (46 characters, no padding).
///
/// The prefix keeps a token from starting with `-` (one base64url token in 64 did), which a shell user pasting it
/// after `--token` would see refused as a missing value, and it lets secret scanners recognise a leaked token.
/// Tokens issued before the prefix still work: the database looks a token up by the hash of its whole text.
///
/// The token is shown once, when the client is added; the database keeps only its SHA-256 (``hash``). A token is
/// high-entropy, so a plain hash is enough (no salt, no slow KDF), and the lookup by hash through a unique index
/// needs no constant-time comparison: an attacker who times it learns about hashes, not tokens. The type never
/// prints its text (`description` is redacted), so a token cannot reach a log by accident.
public struct ClientToken: Sendable, Hashable, CustomStringConvertible {
    /// The token as the client sends it: `Authorization: Bearer <text>`.
    public let text: String

    /// Wraps a token a client presented (not checked: an unknown token simply matches no client).
    public init(text: String) { self.text = text }

    /// A new token from 32 bytes of `generator` (the system's CSPRNG unless a test passes a seeded one).
    public static func random(using generator: inout some RandomNumberGenerator) -> ClientToken {
        var bytes = [UInt8]()
        bytes.reserveCapacity(32)
        for _ in 0..<4 {
            withUnsafeBytes(of: generator.next().littleEndian) { bytes.append(contentsOf: $0) }
        }
        return ClientToken(text: prefix + base64URL(bytes))
    }

    /// What every issued token starts with.
    public static let prefix = "ss_"

    /// A new token from the system's cryptographically secure generator.
    public static func random() -> ClientToken {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// SHA-256 of the token's UTF-8 bytes: what the database stores and looks up.
    public var hash: [UInt8] { Array(SHA256.hash(data: Array(text.utf8))) }

    /// Redacted: a token never appears in logs or error messages.
    public var description: String { "ClientToken(redacted)" }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
