/// SHA-1 (FIPS 180-4), small and allocation-free, for name-based UUIDs (RFC 4122 version 5) only.
///
/// SHA-1 is not used here for security: a version-5 UUID is defined as the first 128 bits of the SHA-1 of a
/// namespace and a name, so stable identities derived from content need exactly this function. Feed bytes with
/// ``update(_:)`` (any number of calls) and take the 20-byte digest with ``finalize()``.
public struct SHA1: Sendable {
    private var h0: UInt32 = 0x6745_2301
    private var h1: UInt32 = 0xEFCD_AB89
    private var h2: UInt32 = 0x98BA_DCFE
    private var h3: UInt32 = 0x1032_5476
    private var h4: UInt32 = 0xC3D2_E1F0
    private var block = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
    private var blockCount = 0
    private var length: UInt64 = 0

    /// Starts a new digest.
    public init() {}

    /// Adds `bytes` to the message.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        for byte in bytes { append(byte) }
    }

    /// Adds `bytes` to the message.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Pads the message and returns its 20-byte digest.
    public mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        append(0x80)
        while blockCount != 56 { append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        var out: [UInt8] = []
        out.reserveCapacity(20)
        for word in [h0, h1, h2, h3, h4] {
            out.append(UInt8(truncatingIfNeeded: word >> 24)); out.append(UInt8(truncatingIfNeeded: word >> 16))
            out.append(UInt8(truncatingIfNeeded: word >> 8)); out.append(UInt8(truncatingIfNeeded: word))
        }
        return out
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        withUnsafeMutableBytes(of: &block) { $0[blockCount] = byte }
        blockCount += 1
        if blockCount == 64 {
            compress()
            blockCount = 0
        }
    }

    private mutating func compress() {
        var w = (
            UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0),
            UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0))
        withUnsafeBytes(of: block) { bytes in
            withUnsafeMutableBytes(of: &w) { words in
                for i in 0..<16 {
                    let v = UInt32(bytes[4 * i]) << 24 | UInt32(bytes[4 * i + 1]) << 16
                        | UInt32(bytes[4 * i + 2]) << 8 | UInt32(bytes[4 * i + 3])
                    words.storeBytes(of: v, toByteOffset: 4 * i, as: UInt32.self)
                }
            }
        }
        var a = h0, b = h1, c = h2, d = h3, e = h4
        withUnsafeMutableBytes(of: &w) { raw in
            let words = raw.bindMemory(to: UInt32.self)
            for t in 0..<80 {
                let s = t & 15
                if t >= 16 {
                    let x = words[(s + 13) & 15] ^ words[(s + 8) & 15] ^ words[(s + 2) & 15] ^ words[s]
                    words[s] = x << 1 | x >> 31
                }
                let f: UInt32, k: UInt32
                switch t {
                case 0..<20: f = (b & c) | (~b & d); k = 0x5A82_7999
                case 20..<40: f = b ^ c ^ d; k = 0x6ED9_EBA1
                case 40..<60: f = (b & c) | (b & d) | (c & d); k = 0x8F1B_BCDC
                default: f = b ^ c ^ d; k = 0xCA62_C1D6
                }
                let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ words[s]
                e = d; d = c; c = b << 30 | b >> 2; b = a; a = temp
            }
        }
        h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d; h4 &+= e
    }
}
