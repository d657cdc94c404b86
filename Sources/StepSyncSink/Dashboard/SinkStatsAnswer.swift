import Foundation
import StepSyncCore

/// The body of `GET /stats`, what the dashboard shows (see `Planning/dashboard.md` and the OpenAPI document):
/// `{"activity":{…},"samples":{…},"storage":{…}}` with sorted keys and `null` for an instant or reason not known.
///
/// Only the dashboard's page reads it, so it is the sink's own type, not one of the core's ``SinkAnswer``s.
struct SinkStatsAnswer: Encodable, Sendable, Equatable {
    /// The client's samples.
    struct Samples: Encodable, Sendable, Equatable {
        /// Samples of every type.
        var total: Int
        /// Step-count samples.
        var steps: Int
        /// Samples per type identifier.
        var types: [String: Int]
        /// The start of the first and last step samples (ISO-8601, ms), `null` for none.
        @NullWhenAbsent var firstStepStart: String?
        @NullWhenAbsent var lastStepStart: String?
        /// Per type identifier held, the start of its oldest and of its newest sample (ISO-8601, ms): a panel whose
        /// type has nothing in the chart's days shows the days ending on its newest instead.
        var firstStarts: [String: String]
        var lastStarts: [String: String]
    }

    /// What the sink has done since it started (``SinkActivity``); instants ISO-8601, `null` when not yet.
    struct Activity: Encodable, Sendable, Equatable {
        @NullWhenAbsent var startedAt: String?
        var requests: Int
        var errors: Int
        var ingests: Int
        var inserted: Int
        var duplicates: Int
        @NullWhenAbsent var lastIngest: String?
        @NullWhenAbsent var lastRequest: String?
    }

    /// One file (JSONL) or relation (PostgreSQL) and its size.
    struct File: Encodable, Sendable, Equatable {
        var name: String
        var bytes: Int
    }

    /// What and where the storage is, what it occupies and whether it can write.
    struct Storage: Encodable, Sendable, Equatable {
        var kind: String
        var location: String
        var files: [File]
        var totalBytes: Int
        /// `ok` or `degraded`.
        var status: String
        /// Why writes fail, `null` when they do not.
        @NullWhenAbsent var reason: String?
    }

    var samples: Samples
    var activity: Activity
    var storage: Storage

    /// The body with sorted keys (byte order: the type identifiers of `samples.types` ascend as `/samples/types`
    /// lists them).
    func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(self))
    }
}

/// An optional member written as `null` when absent (`JSONEncoder` leaves such a key out), as the dashboard expects.
@propertyWrapper
struct NullWhenAbsent<Value: Encodable & Sendable & Equatable>: Encodable, Sendable, Equatable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}
