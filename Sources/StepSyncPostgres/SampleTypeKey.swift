import Crypto
import StepSyncCore
import StepSyncStorage

/// The 64-bit key of a sample type in schema v3's indexes (`samples.type_key`, migration 3): the first eight bytes of
/// the MD5 of the type's name (UTF-8), big-endian, as a signed integer — the value of the database's own
/// `stepsync_type_key(name)` (`('x' || substr(md5(name), 1, 16))::bit(64)::bigint`), which the migration used to key
/// the rows already stored.
///
/// Why a key and not the name: the paging index `(client_id, type_key, start_at)` is 24 bytes a row where
/// `(client_id, type, start_at, uuid)` was 72 with the step type's 33-byte name, and the index's size is most of
/// the cost of an insert. The name stays in the row, and every statement filters on both (`type_key = $k AND type =
/// $name`), so two names sharing a key cost a filter, never a wrong answer. The type limit counts keys, so the key
/// is 64 bits, not 32: a name made to share a held type's key (to slip past `--max-types`) would take ≈ 2⁶⁴ MD5s,
/// where 32 bits took minutes on one core. It costs no index space: `(bigint, bigint, timestamptz)` is 24 bytes
/// a tuple, as `(bigint, integer, timestamptz)` was with its padding.
enum SampleTypeKey {
    /// The key of `type`.
    static func of(_ type: SampleType) -> Int64 { of(type.rawValue) }

    /// The key of a type name.
    static func of(_ name: String) -> Int64 {
        let digest = Insecure.MD5.hash(data: Array(name.utf8))
        var bits: UInt64 = 0
        for byte in digest.prefix(8) { bits = bits << 8 | UInt64(byte) }
        return Int64(bitPattern: bits)
    }

    /// The step count's key: the daily totals select step samples by it alone (migration 5).
    static let stepCount = of(SampleType.stepCount)

    /// The refusal of a type name whose key is the step count's (`key` is the name's), or nil. Such a name would
    /// take ≈ 2⁶⁴ MD5s to make, and its samples would only count in their own client's step totals; it is refused
    /// anyway, so that every row keyed as steps is a step sample.
    static func refusal(name: String, key: Int64) -> SampleStorageError? {
        guard key == stepCount, name != SampleType.stepCount.rawValue else { return nil }
        return .invalidType("""
            sample type "\(name.prefix(64))" has the same 64-bit type key as \(SampleType.stepCount.rawValue); \
            this sink cannot store it beside step counts; nothing of the request was stored
            """)
    }

}
