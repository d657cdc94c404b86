import Foundation

/// Name-based UUIDs (RFC 4122 §4.3, version 5: SHA-1): the same namespace and name always give the same UUID.
///
/// stepsync uses them for samples that arrive without an identity of their own (Apple Health exports carry no
/// uuid), so that importing the same record twice names it the same way and the store skips the copy.
public enum NameBasedUUID {
    /// The version-5 UUID of `name` in `namespace`: SHA-1 of the namespace's 16 bytes then the name, truncated to
    /// 128 bits, with the version (5) and variant (RFC 4122) bits set.
    public static func v5(namespace: UUID, name: UnsafeRawBufferPointer) -> UUID {
        v5(resuming: state(namespace: namespace, prefix: UnsafeRawBufferPointer(start: nil, count: 0)), suffix: name)
    }

    /// The SHA-1 state after `namespace` and the first bytes of a name, `prefix`: many names that start alike (an
    /// export's records of one type, source, version, device and unit) hash their common start once and continue
    /// from it with ``v5(resuming:suffix:)``. The uuid is exactly `v5(namespace:name: prefix + suffix)`.
    public static func state(namespace: UUID, prefix: UnsafeRawBufferPointer) -> SHA1 {
        var sha = SHA1()
        withUnsafeBytes(of: namespace.uuid) { sha.update($0) }
        sha.update(prefix)
        return sha
    }

    /// The version-5 UUID of the name whose start is hashed in `state` (``state(namespace:prefix:)``) and which
    /// ends with `suffix`.
    public static func v5(resuming state: SHA1, suffix: UnsafeRawBufferPointer) -> UUID {
        var sha = state
        sha.update(suffix)
        let (h0, h1, h2, h3, _) = sha.finalizeWords()
        // Digest bytes 6 (version 5) and 8 (RFC 4122 variant) are in h1 and h2.
        let d = (h0.bigEndian, (h1 & 0xFFFF_0FFF | 0x0000_5000).bigEndian, (h2 & 0x3FFF_FFFF | 0x8000_0000).bigEndian,
                 h3.bigEndian)
        return UUID(uuid: unsafeBitCast(d, to: uuid_t.self))
    }

    /// The version-5 UUID of the UTF-8 bytes of `name` in `namespace`.
    public static func v5(namespace: UUID, name: String) -> UUID {
        var name = name
        return name.withUTF8 { v5(namespace: namespace, name: UnsafeRawBufferPointer($0)) }
    }
}
