import Synchronization

/// Request ids (`X-Request-Id`): the one a proxy sent when it is a sane token (1–128 of `A–Z a–z 0–9 . _ : -`),
/// else one made here — a prefix drawn once per sink and a sequence number (`3f9a0c1d27e4b865-42`), unique within
/// the sink's life and across its restarts with overwhelming likelihood.
final class RequestIDs: Sendable {
    private let prefix: String
    private let next = Atomic<UInt64>(0)

    /// Ids with a prefix of `seed` (the sink draws it from the system's random source).
    init(seed: UInt64) {
        let hex = String(seed, radix: 16)
        prefix = String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The id of a request that came with `given` (the `X-Request-Id` header, if any).
    func id(given: String?) -> String {
        if let given, Self.isSane(given) { return given }
        let n = next.wrappingAdd(1, ordering: .relaxed).newValue
        return "\(prefix)-\(n)"
    }

    /// Whether a sent id may be kept: 1–128 bytes of letters, digits, `.`, `_`, `:` and `-` (it goes into logs and
    /// a response header).
    static func isSane(_ text: String) -> Bool {
        let utf8 = text.utf8
        return (1...128).contains(utf8.count) && utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: ":") || c == UInt8(ascii: "-")
        }
    }
}
