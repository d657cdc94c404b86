import Foundation
import GRDB
import StepSyncCore
@testable import StepSyncStore
import StepSyncTestSupport
import Testing

/// A bulk load that has the store to itself writes through a rollback journal (`BulkJournal`): pages it appends are
/// written once, into the database, instead of into the write-ahead log and again by the checkpoint. These tests pin
/// when it does, that the store is back in WAL mode afterwards whatever happened, and that the store it leaves is the
/// one the write-ahead log leaves. (A process killed in the middle of such a load: `ImportCrashTests`.)
@Suite("Bulk load through a rollback journal")
struct BulkJournalTests {
    /// The store's journal mode, read by a connection of its own.
    static func journalMode(_ path: String) throws -> String {
        try DatabaseQueue(path: path).read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
    }

    static func samples(_ path: String) throws -> Int {
        try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sample") ?? -1 }
    }

    /// The writer connection's settings that a bulk load changes for its transaction.
    static func writerSettings(_ store: StepStore) throws -> [String: String] {
        try store.dbWriter.writeWithoutTransaction { db in
            var settings: [String: String] = [:]
            for pragma in ["journal_mode", "synchronous", "foreign_keys", "busy_timeout", "locking_mode"] {
                settings[pragma] = try String.fetchOne(db, sql: "PRAGMA \(pragma)")
            }
            return settings
        }
    }

    /// What the writer runs with outside a bulk load: WAL, `synchronous = FULL` (2; GRDB's WAL setup would leave
    /// NORMAL), foreign keys on, the 10 s busy timeout, normal locking.
    static let writerDefaults = ["journal_mode": "wal", "synchronous": "2", "foreign_keys": "1", "busy_timeout": "10000",
                                 "locking_mode": "normal"]

    @Test("a store opens with its writer at synchronous = FULL, and a store left in rollback-journal mode (a kill between the switches) opens in WAL mode")
    func writerSettingsOnOpen() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("a.sqlite")
        #expect(try Self.writerSettings(StepStore(path: path)) == Self.writerDefaults)
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
        }
        #expect(try Self.journalMode(path) == "delete")
        #expect(try Self.writerSettings(StepStore(path: path)) == Self.writerDefaults)
        #expect(try Self.journalMode(path) == "wal")
    }

    @Test("alone with the store: the load writes through a rollback journal, commits, and leaves the store in WAL mode with no journal file")
    func alone() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("a.sqlite")
        let store = try StepStore(path: path)
        let samples = SampleInserterTests.samples(seed: 11)
        let ((journaled, journalFile), summary) = try store.insertSamples(bulkLoad: .standard) { inserter -> (Bool, Bool) in
            try inserter.insert(contentsOf: samples)
            // The load holds the file's lock from its start: a reader arriving now is refused (it would wait, with
            // a busy timeout), rather than holding a lock the load's spills and commit would have to wait for.
            var impatient = Configuration()
            impatient.busyMode = .immediateError
            #expect(throws: (any Error).self) {
                try DatabaseQueue(path: path, configuration: impatient).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sample") }
            }
            return (inserter.writesThroughRollbackJournal, FileManager.default.fileExists(atPath: path + "-journal"))
        }
        #expect(journaled, "the bulk load did not write through a rollback journal")
        #expect(journalFile, "no rollback journal while the load ran")
        #expect(summary.inserted == Set(samples.map(\.uuid)).count)
        #expect(try Self.journalMode(path) == "wal")
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
        #expect(try Self.samples(path) == Set(samples.map(\.uuid)).count)
        // Loaded without checking foreign keys row by row, and none is broken.
        let broken = try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM pragma_foreign_key_check('sample')") }
        #expect(broken == 0)
        // The writer is as it was: WAL, FULL, foreign keys on, its busy timeout, its lock given back.
        #expect(try Self.writerSettings(store) == Self.writerDefaults)
        // Not bulk: the one-row path never leaves the write-ahead log.
        let plain = try store.insertSamples { inserter in inserter.writesThroughRollbackJournal }.0
        #expect(!plain)
    }

    @Test("a load that fails through the rollback journal leaves the store as it was and in WAL mode")
    func failure() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("a.sqlite")
        let store = try StepStore(path: path)
        try store.insert(SampleInserterTests.samples(seed: 12).prefix(50))
        let before = try StoreDump.lines(path)
        struct Stop: Error {}
        var journaled = false
        #expect(throws: Stop.self) {
            _ = try store.insertSamples(bulkLoad: .standard) { inserter in
                journaled = inserter.writesThroughRollbackJournal
                try inserter.insert(contentsOf: SampleInserterTests.samples(seed: 13))
                throw Stop()
            }
        }
        #expect(journaled)
        #expect(try Self.writerSettings(store) == Self.writerDefaults)
        #expect(try StoreDump.lines(path) == before)
        #expect(try Self.journalMode(path) == "wal")
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
    }

    @Test("another process's connection holding the store keeps the load in the write-ahead log, with the same store as a result")
    func sharedStaysInWAL() throws {
        let dir = try TemporaryDirectory()
        let samples = SampleInserterTests.samples(seed: 14)
        // Reference: a bulk load alone.
        let alonePath = dir.file("alone.sqlite")
        let alone = try StepStore(path: alonePath)
        let aloneJournaled = try alone.insertSamples(bulkLoad: .standard) { inserter in
            try inserter.insert(contentsOf: samples)
            return inserter.writesThroughRollbackJournal
        }.0
        #expect(aloneJournaled)
        // The same load while another connection (as a `stepsync status` in another process would) has the store
        // open in WAL mode.
        let sharedPath = dir.file("shared.sqlite")
        let store = try StepStore(path: sharedPath)
        let other = try DatabaseQueue(path: sharedPath)
        try other.read { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sample") }
        let journaled = try store.insertSamples(bulkLoad: .standard) { inserter in
            #expect(inserter.isBulkLoading)
            try inserter.insert(contentsOf: samples)
            return inserter.writesThroughRollbackJournal
        }.0
        #expect(!journaled)
        let seen = try other.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sample") }
        #expect(seen == Set(samples.map(\.uuid)).count)
        try other.close()
        #expect(try Self.journalMode(sharedPath) == "wal")
        // The same rows, seqs, rollup and schema either way.
        #expect(try StoreDump.lines(sharedPath) == StoreDump.lines(alonePath))
    }

    @Test("a store too large for a bulk load is loaded through the write-ahead log")
    func largeStoreStaysInWAL() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("a.sqlite")
        let store = try StepStore(path: path)
        let samples = SampleInserterTests.samples(seed: 15)
        try store.insert(samples.prefix(20))
        let journaled = try store.insertSamples(bulkLoad: BulkLoad(maxStoredSamples: 10, capacity: 1 << 20)) { inserter in
            try inserter.insert(contentsOf: samples)
            return inserter.writesThroughRollbackJournal
        }.0
        #expect(!journaled)
        #expect(try Self.journalMode(path) == "wal")
    }
}
