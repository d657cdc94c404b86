/// One client of a PostgreSQL sink, as `stepsync clients list` shows it.
public struct ClientRecord: Sendable, Hashable {
    /// The database id (`clients.id`); samples belong to it.
    public var id: Int64
    /// The name given at `clients add`.
    public var name: String
    /// When it was added, UTC milliseconds since 1970.
    public var createdMs: Int64
    /// When it last made an authenticated request (updated at most once a minute), if ever.
    public var lastSeenMs: Int64?
    /// When it was revoked, if it was.
    public var revokedMs: Int64?
    /// How many samples it stores, per type.
    public var samplesByType: [String: Int]

    /// How many samples it stores.
    public var sampleCount: Int { samplesByType.values.reduce(0, +) }
}

/// A client a request was authenticated as: what every storage call of that request is scoped to.
public struct AuthenticatedClient: Sendable, Hashable {
    /// The database id (`clients.id`).
    public var id: Int64
    /// The client's name (for logs).
    public var name: String
}
