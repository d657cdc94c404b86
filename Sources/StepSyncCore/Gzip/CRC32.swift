import StepSyncZlib

/// zlib's CRC-32 (the system library, declared by the package as `StepSyncZlib`): the check of a zip entry as the
/// importer streams it and of a gzip body as the sink inflates it.
///
/// ZIPFoundation 0.9.20 checks an entry's CRC-32 on Linux with a table-driven loop over each byte in Swift: that loop
/// was 5 % of an import's CPU time (`perf`, 2026-11-23), so the importer extracts with `skipCRC32: true` and checks
/// the CRC here, several times faster.
public enum CRC32 {
    /// `crc` updated with `bytes` (start from 0).
    public static func update(_ crc: UInt32, with bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard var pointer = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else { return crc }
        var value = UInt(crc)
        var left = bytes.count
        while left > 0 {
            let n = min(left, Int(UInt32.max))
            value = crc32(value, pointer, UInt32(n))
            pointer += n
            left -= n
        }
        return UInt32(truncatingIfNeeded: value)
    }
}
