import NIOCore
import StepSyncCore

/// The samples of one `POST` (parsed and validated), with the body they came in, so that a storage that writes lines
/// can copy each sample's bytes rather than encode it again when they already are its stored line
/// (``DecodedSamples``; the JSONL storage does, the PostgreSQL one reads ``samples``).
public struct SampleBatch: Sendable {
    /// The samples, in body order.
    public let samples: [HealthSample]
    /// The (inflated) request body the samples were parsed from.
    public let body: ByteBuffer
    /// Per sample, the range of its stored line in `body`'s readable bytes, or `nil`; empty when there is no body.
    public let storedLines: [Range<Int>?]

    /// A batch of samples with no body to copy from.
    public init(_ samples: [HealthSample]) {
        self.samples = samples
        self.body = ByteBuffer()
        self.storedLines = []
    }

    /// The samples decoded from `body`, with their stored lines.
    public init(_ decoded: DecodedSamples, body: ByteBuffer) {
        self.samples = decoded.samples
        self.body = body
        self.storedLines = decoded.storedLines
    }
}
