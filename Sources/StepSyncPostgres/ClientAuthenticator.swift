import Foundation
import StepSyncCore
import StepSyncStorage
import Synchronization

/// Turns a bearer token into the client it belongs to, with a short cache so that a busy client costs one
/// database lookup per ``cacheLifetime``, not one per request.
///
/// Revocation is therefore effective on every sink within ``cacheLifetime`` (half a second by default: "within a
/// second"). Unknown tokens are cached too (so a flood of wrong tokens cannot hammer the database), and the cache
/// holds at most ``maximumEntries`` tokens (it is emptied when full). Keys are the tokens' SHA-256, never the tokens.
/// The time is passed in, so tests move it by hand.
public final class ClientAuthenticator: SinkAuthenticator, Sendable {
    private struct Entry {
        var client: AuthenticatedClient?
        /// When the entry stops being trusted, on ``elapsed``.
        var expires: Duration
    }

    /// How long a lookup (found or not) is trusted.
    public let cacheLifetime: Duration
    /// The most tokens kept.
    public let maximumEntries: Int
    private let storage: PostgresSampleStorage
    /// The time since this authenticator was made (the stopwatch of its `TimeSource`).
    private let elapsed: @Sendable () -> Duration
    private let cache = Mutex<[[UInt8]: Entry]>([:])

    /// An authenticator over `storage`'s `clients` table.
    public init(storage: PostgresSampleStorage, time: TimeSource, cacheLifetime: Duration = .milliseconds(500),
                maximumEntries: Int = 10_000) {
        self.storage = storage
        self.elapsed = time.stopwatch()
        self.cacheLifetime = cacheLifetime
        self.maximumEntries = maximumEntries
    }

    /// The active client holding `token`, or nil (answer 401).
    ///
    /// - Throws: an unavailable ``PostgresStorageError`` when the database cannot be asked (answer 503).
    public func client(for token: ClientToken) async throws -> AuthenticatedClient? {
        let hash = token.hash
        let now = elapsed()
        if let entry = cache.withLock({ $0[hash] }), now < entry.expires { return entry.client }
        let client = try await storage.lookUpClient(tokenHash: hash)
        let expires = elapsed() + cacheLifetime
        cache.withLock { cache in
            if cache.count >= maximumEntries { cache.removeAll(keepingCapacity: true) }
            cache[hash] = Entry(client: client, expires: expires)
        }
        return client
    }

    /// The sink's question: which client does `Authorization: Bearer <token>` speak for (nil → 401)? The identity
    /// is the client's database key.
    ///
    /// - Throws: ``SampleStorageError/unavailable(_:retryAfterSeconds:)`` when the database cannot be asked (503).
    public func client(authorization: String?) async throws -> ClientIdentity? {
        guard let token = Self.bearerToken(authorization) else { return nil }
        do {
            return try await client(for: token).map { ClientIdentity(String($0.id), name: $0.name) }
        } catch {
            let failure = PostgresStorageError.from(error)
            throw SampleStorageError.unavailable(failure.message,
                                                 retryAfterSeconds: storage.configuration.retryAfterSeconds)
        }
    }

    /// The token of `Bearer <token>` (scheme case-insensitive), or nil; tokens over 256 bytes are not looked up.
    static func bearerToken(_ header: String?) -> ClientToken? {
        guard let header, header.utf8.count <= 7 + 256 else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let text = parts[1].trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : ClientToken(text: text)
    }
}
