import Foundation

/// Name-based UUIDs (RFC 4122 §4.3, version 5: SHA-1): the same namespace and name always give the same UUID.
///
/// stepsync uses them for samples that arrive without an identity of their own (Apple Health exports carry no
/// uuid), so that importing the same record twice names it the same way and the store skips the copy.
public enum NameBasedUUID {
    /// The version-5 UUID of `name` in `namespace`: SHA-1 of the namespace's 16 bytes then the name, truncated to
    /// 128 bits, with the version (5) and variant (RFC 4122) bits set.
    public static func v5(namespace: UUID, name: UnsafeRawBufferPointer) -> UUID {
        var sha = SHA1()
        withUnsafeBytes(of: namespace.uuid) { sha.update($0) }
        sha.update(name)
        var d = sha.finalize()
        d[6] = (d[6] & 0x0F) | 0x50
        d[8] = (d[8] & 0x3F) | 0x80
        return UUID(uuid: (d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7],
                           d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15]))
    }

    /// The version-5 UUID of the UTF-8 bytes of `name` in `namespace`.
    public static func v5(namespace: UUID, name: String) -> UUID {
        var name = name
        return name.withUTF8 { v5(namespace: namespace, name: UnsafeRawBufferPointer($0)) }
    }
}
