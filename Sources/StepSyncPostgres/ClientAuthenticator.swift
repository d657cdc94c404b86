import Synchronization

/// Turns a bearer token into the client it belongs to, with a short cache so that a busy client costs one
/// database lookup per ``cacheLifetime``, not one per request.
///
/// Revocation is therefore effective on every sink within ``cacheLifetime`` (half a second by default: "within a
/// second"). Unknown tokens are cached too (so a flood of wrong tokens cannot hammer the database), and the cache
/// holds at most ``maximumEntries`` tokens (it is emptied when full). Keys are the tokens' SHA-256, never the tokens.
/// The clock is passed in, so tests move time by hand.
public final class ClientAuthenticator<C: Clock>: Sendable where C.Duration == Duration {
    private struct Entry {
        var client: AuthenticatedClient?
        var expires: C.Instant
    }

    /// How long a lookup (found or not) is trusted.
    public let cacheLifetime: Duration
    /// The most tokens kept.
    public let maximumEntries: Int
    private let storage: PostgresSampleStorage
    private let clock: C
    private let cache = Mutex<[[UInt8]: Entry]>([:])

    /// An authenticator over `storage`'s `clients` table.
    public init(storage: PostgresSampleStorage, clock: C, cacheLifetime: Duration = .milliseconds(500),
                maximumEntries: Int = 10_000) {
        self.storage = storage
        self.clock = clock
        self.cacheLifetime = cacheLifetime
        self.maximumEntries = maximumEntries
    }

    /// The active client holding `token`, or nil (answer 401).
    ///
    /// - Throws: an unavailable ``PostgresStorageError`` when the database cannot be asked (answer 503).
    public func client(for token: ClientToken) async throws -> AuthenticatedClient? {
        let hash = token.hash
        let now = clock.now
        if let entry = cache.withLock({ $0[hash] }), now < entry.expires { return entry.client }
        let client = try await storage.lookUpClient(tokenHash: hash)
        let expires = clock.now.advanced(by: cacheLifetime)
        cache.withLock { cache in
            if cache.count >= maximumEntries { cache.removeAll(keepingCapacity: true) }
            cache[hash] = Entry(client: client, expires: expires)
        }
        return client
    }
}
