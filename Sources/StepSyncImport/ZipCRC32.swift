import Foundation

// zlib's CRC-32 (the C module ZIPFoundation itself links on Linux). Without it (a build that has only ZIPFoundation's
// Swift sources), ZIPFoundation's own `crc32(checksum:)` is used: same result, slower.
#if canImport(CZlib)
    import CZlib
#else
    import ZIPFoundation
#endif

/// The CRC-32 of a zip entry, computed by the importer as the entry streams by.
///
/// ZIPFoundation 0.9.20 checks an entry's CRC-32 with zlib on Apple platforms but, on Linux, with a table-driven
/// loop over each byte in Swift (its `canImport(zlib)` is false there): that loop was 5 % of an import's CPU time
/// (`perf`, 2026-11-23). The importer therefore extracts with `skipCRC32: true` and checks the CRC here with zlib's
/// `crc32`, which runs several times faster.
enum ZipCRC32 {
    /// `crc` updated with `bytes` (start from 0).
    static func update(_ crc: UInt32, with bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        #if canImport(CZlib)
            var crc = UInt(crc)
            var p = base.assumingMemoryBound(to: UInt8.self)
            var left = bytes.count
            while left > 0 {
                let n = min(left, Int(UInt32.max))
                crc = crc32(crc, p, UInt32(n))
                p += n
                left -= n
            }
            return UInt32(truncatingIfNeeded: crc)
        #else
            return Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none)
                .crc32(checksum: crc)
        #endif
    }
}
