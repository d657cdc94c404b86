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
        var firstStepStart: String?
        var lastStepStart: String?

        private enum CodingKeys: String, CodingKey {
            case total, steps, types, firstStepStart, lastStepStart
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(total, forKey: .total)
            try container.encode(steps, forKey: .steps)
            try container.encode(types, forKey: .types)
            try container.encode(firstStepStart, forKey: .firstStepStart)
            try container.encode(lastStepStart, forKey: .lastStepStart)
        }
    }

    /// What the sink has done since it started (``SinkActivity``); instants ISO-8601, `null` when not yet.
    struct Activity: Encodable, Sendable, Equatable {
        var startedAt: String?
        var requests: Int
        var errors: Int
        var ingests: Int
        var inserted: Int
        var duplicates: Int
        var lastIngest: String?
        var lastRequest: String?

        private enum CodingKeys: String, CodingKey {
            case startedAt, requests, errors, ingests, inserted, duplicates, lastIngest, lastRequest
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(startedAt, forKey: .startedAt)
            try container.encode(requests, forKey: .requests)
            try container.encode(errors, forKey: .errors)
            try container.encode(ingests, forKey: .ingests)
            try container.encode(inserted, forKey: .inserted)
            try container.encode(duplicates, forKey: .duplicates)
            try container.encode(lastIngest, forKey: .lastIngest)
            try container.encode(lastRequest, forKey: .lastRequest)
        }
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
        var reason: String?

        private enum CodingKeys: String, CodingKey {
            case kind, location, files, totalBytes, status, reason
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
            try container.encode(location, forKey: .location)
            try container.encode(files, forKey: .files)
            try container.encode(totalBytes, forKey: .totalBytes)
            try container.encode(status, forKey: .status)
            try container.encode(reason, forKey: .reason)
        }
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
