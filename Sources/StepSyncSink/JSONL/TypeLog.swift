import StepSyncCore

/// The JSONL storage's state for one sample type: its file, a compact table of its lines, and what is waiting to be
/// written. Owned by ``JSONLStorage`` (an actor), so it needs no lock.
struct TypeLog {
    /// One stored line, in 16 bytes: where it is and when its sample starts.
    struct Slot: BitwiseCopyable {
        /// Offset (high 40 bits: up to 1 TiB) and length including the newline (low 24 bits: up to 16 MiB; 0 marks a
        /// deleted sample).
        private var packed: UInt64
        /// The sample's start, UTC ms (for `from`/`to` filters without reading the line).
        var startMs: Int64

        /// The longest line a slot can describe.
        static let maxLength = (1 << 24) - 1

        init(offset: Int64, length: Int, startMs: Int64) {
            packed = UInt64(offset) << 24 | UInt64(length)
            self.startMs = startMs
        }

        var offset: Int64 { Int64(packed >> 24) }
        var length: Int { Int(packed & 0xFF_FFFF) }
        var isDeleted: Bool { packed & 0xFF_FFFF == 0 }
        mutating func markDeleted() { packed &= ~0xFF_FFFF }
    }

    /// The type whose samples the file holds.
    let type: SampleType
    /// The file.
    var file: SampleLogFile
    /// Every line that held a sample, in file order (deleted ones marked); grown in place (``PageBuffer``), so a
    /// decade's table never exists twice while it grows. Shared by copies of the log: only the storage mutates it.
    var slots = PageBuffer<Slot>()
    /// The samples in (start, uuid) order, made on the first page asked of the type (``StartOrder``).
    var startOrder: StartOrder?
    /// How many of `slots` are written and synced (only those are served).
    var readable = 0
    /// Live samples (stored, not deleted), including those being committed.
    var live = 0
    /// The longest duration of a sample ever stored here (to find the samples overlapping a range by start).
    var maxDurationMs: Int64 = 0
    /// Bytes waiting for the next commit.
    var pending: [UInt8] = []
    /// Whether the next commit empties the file first (`clear`).
    var truncatePending = false
    /// The file's size once everything pending is written.
    var enqueuedEnd: Int64 = 0
    /// The file's size after the last successful commit.
    var committedEnd: Int64 = 0
    /// Bumped by `clear`, so a commit that started before it does not mark the new slots readable.
    var epoch = 0

    init(type: SampleType, file: SampleLogFile) {
        self.type = type
        self.file = file
    }
}
