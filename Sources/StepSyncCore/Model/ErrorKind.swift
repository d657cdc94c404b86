/// The machine-readable keys of stepsync's refusals, in one vocabulary: the `error` of a sink's 4xx/5xx body and
/// the `kind` of the errors behind it (the sink's own, a daily-totals request, a deletions body, the PostgreSQL
/// storage). A client
/// branches on these, never on the wording of a message.
///
/// A sample's own problems have their keys in ``SampleProblem/Reason`` (`end_before_start`, …).
public enum ErrorKind: String, Sendable, CaseIterable {
    // The sink's own refusals (`SinkError`).
    /// A request the sink cannot use (a parameter, a header, a body that is not wire JSON).
    case badRequest = "bad_request"
    /// No or a wrong bearer token (401).
    case unauthorized
    /// A `Host` that is not a loopback name on a loopback bind (421).
    case misdirectedHost = "misdirected_host"
    /// No such path (404).
    case notFound = "not_found"
    /// A method the path does not allow (405).
    case methodNotAllowed = "method_not_allowed"
    /// A body over the limit (413).
    case tooLarge = "too_large"
    /// A `Content-Type` or `Content-Encoding` the sink does not read (415).
    case unsupportedMediaType = "unsupported_media_type"
    /// The storage cannot write now (503, retry).
    case storageUnavailable = "storage_unavailable"
    /// Too much in flight now (503, retry).
    case busy

    // Daily step totals (``DailyStepsError``).
    /// A date that is not `YYYY-MM-DD`.
    case invalidDate = "invalid_date"
    /// `from` after `to`, or a span longer than allowed.
    case invalidSpan = "invalid_span"
    /// A time zone that is not an IANA name or offset.
    case invalidTimeZone = "invalid_tz"
    /// A device priority that cannot be read.
    case invalidPriority = "invalid_priority"
    /// A step sample the totals cannot use.
    case invalidSample = "invalid_sample"
    /// Samples not in the order the sweep needs.
    case samplesOutOfOrder = "samples_out_of_order"
    /// A day's total too large to add up exactly.
    case totalTooLarge = "total_too_large"

    // Deletions bodies (``DeletionRequestError``).
    /// A body that is not the JSON object expected.
    case malformedJSON = "malformed_json"
    /// A required field missing.
    case missingField = "missing_field"
    /// A field of the wrong JSON type.
    case wrongType = "wrong_type"
    /// A sample type identifier that is not one.
    case invalidType = "invalid_type"
    /// A uuid that is not one.
    case invalidUUID = "invalid_uuid"

    // The PostgreSQL storage (`PostgresStorageError`).
    /// A `--database` URL that cannot be used.
    case badDatabaseURL = "bad_database_url"
    /// The database cannot be reached now (503, retry).
    case databaseUnavailable = "database_unavailable"
    /// A schema migration failed.
    case migrationFailed = "migration_failed"
    /// The database's schema is newer than this stepsync.
    case schemaTooNew = "schema_too_new"
    /// A client of that name exists already.
    case clientExists = "client_exists"
    /// No client of that name.
    case noSuchClient = "no_such_client"
    /// A client name that cannot be used.
    case badClientName = "bad_client_name"
    /// The database refused a query.
    case databaseError = "database_error"
    /// A batch that would bring a client past its types limit.
    case tooManyTypes = "too_many_types"
}
