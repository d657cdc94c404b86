/// The samples of a request body, validated, with where each one's object lies in the body when those bytes are
/// already the line the sink stores for it.
///
/// A sink that keeps lines (the JSONL storage) copies `body[storedLines[k]!]` and a newline instead of encoding
/// `samples[k]` again; the two are the same bytes (``WireParser/parseSample(_:)`` says when, `WireDecoderTests`
/// checks it). A `nil` range means the object was written another way (whitespace, escapes, another key order, a
/// decimal count, …): the sink encodes the sample.
public struct DecodedSamples: Sendable {
    /// The samples, in body order.
    public var samples: [HealthSample]
    /// Per sample, the byte range of its object in the body when it is the stored line, else `nil`.
    public var storedLines: [Range<Int>?]

    /// Creates decoded samples; `storedLines` is empty or has one entry per sample.
    public init(samples: [HealthSample], storedLines: [Range<Int>?]) {
        precondition(storedLines.isEmpty || storedLines.count == samples.count, "one stored line per sample")
        self.samples = samples
        self.storedLines = storedLines
    }
}
