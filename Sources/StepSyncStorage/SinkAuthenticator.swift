/// Decides which client a request speaks for, from its `Authorization` header. Every request but `GET /health`
/// goes through it; `nil` is answered 401.
public protocol SinkAuthenticator: Sendable {
    /// The client `authorization` (the header's value, or `nil` when absent) authenticates, or `nil`.
    func client(authorization: String?) async throws -> ClientIdentity?
}

/// The single-user sink's authenticator: with no token every request is ``ClientIdentity/single``; with a token
/// (`serve --token`) only `Bearer <token>` is, compared in constant time.
public struct SharedTokenAuthenticator: SinkAuthenticator {
    private let expected: [UInt8]?

    /// Requires `Authorization: Bearer <token>` when `token` is set.
    public init(token: String?) {
        self.expected = token.map { Array(("Bearer " + $0).utf8) }
    }

    public func client(authorization: String?) async throws -> ClientIdentity? {
        guard let expected else { return .single }
        let given = Array((authorization ?? "").utf8)
        // Compare every byte so timing does not reveal a prefix.
        var diff = given.count ^ expected.count
        for (a, b) in zip(given, expected) { diff |= Int(a ^ b) }
        return diff == 0 ? .single : nil
    }
}
