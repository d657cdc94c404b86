import Crypto

/// SHA-1 (FIPS 180-4) for name-based UUIDs (RFC 4122 version 5) only: a thin wrapper over swift-crypto's
/// `Insecure.SHA1` (BoringSSL, with the CPU's SHA instructions where it has them).
///
/// SHA-1 is not used here for security: a version-5 UUID is defined as the first 128 bits of the SHA-1 of a
/// namespace and a name, so stable identities derived from content need exactly this function. Feed bytes with
/// ``update(_:)`` (any number of calls) and take the 20-byte digest with ``finalize()``. A state is a value: a copy
/// (``NameBasedUUID/state(namespace:prefix:)``, cached by the importer) goes on from where the original was.
///
/// Until issue 26 this was a hand-written implementation (whole blocks compressed in Swift): an import derives one
/// uuid per record, and swift-crypto's was measured faster on the reader thread; figures in `Planning/import.md`.
///
/// `@unchecked Sendable`: `Insecure.SHA1` is not marked `Sendable` on Linux, but it is a value (its BoringSSL context
/// is copied before any write to a shared one), so a copy handed to another thread is never written by both.
public struct SHA1: @unchecked Sendable {
    private var sha = Insecure.SHA1()

    /// Starts a new digest.
    public init() {}

    /// Adds `bytes` to the message.
    @inline(__always)
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        sha.update(bufferPointer: bytes)
    }

    /// Adds `bytes` to the message.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Pads the message and returns its 20-byte digest.
    public mutating func finalize() -> [UInt8] {
        Array(sha.finalize())
    }

    /// Pads the message and returns its digest as five big-endian words (`h0` … `h4`).
    @inline(__always)
    public mutating func finalizeWords() -> (UInt32, UInt32, UInt32, UInt32, UInt32) {
        sha.finalize().withUnsafeBytes { raw in
            (raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self).bigEndian,
             raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self).bigEndian,
             raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self).bigEndian,
             raw.loadUnaligned(fromByteOffset: 12, as: UInt32.self).bigEndian,
             raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self).bigEndian)
        }
    }
}
