/// The hand-written SHA-1 that `StepSyncCore.SHA1` was until issue 26 (commit 5de10b1), kept as the reference the
/// swift-crypto-backed one is checked against (`DerivedUUIDTests`).
struct HandwrittenSHA1 {
    private var h0: UInt32 = 0x6745_2301
    private var h1: UInt32 = 0xEFCD_AB89
    private var h2: UInt32 = 0x98BA_DCFE
    private var h3: UInt32 = 0x1032_5476
    private var h4: UInt32 = 0xC3D2_E1F0
    private var block = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
    private var blockCount = 0
    private var length: UInt64 = 0

    /// Starts a new digest.
    init() {}

    /// Adds `bytes` to the message.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var p = bytes.baseAddress, !bytes.isEmpty else { return }
        var n = bytes.count
        length &+= UInt64(n)
        if blockCount > 0 {
            let take = min(64 - blockCount, n)
            let at = blockCount
            withUnsafeMutableBytes(of: &block) { $0.baseAddress!.advanced(by: at).copyMemory(from: p, byteCount: take) }
            blockCount += take
            p += take
            n -= take
            guard blockCount == 64 else { return }
            compressBuffered()
        }
        while n >= 64 {
            compress(p)
            p += 64
            n -= 64
        }
        if n > 0 {
            withUnsafeMutableBytes(of: &block) { $0.baseAddress!.copyMemory(from: p, byteCount: n) }
            blockCount = n
        }
    }

    /// Adds `bytes` to the message.
    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Pads the message and returns its 20-byte digest.
    mutating func finalize() -> [UInt8] {
        let words = finalizeWords()
        var out: [UInt8] = []
        out.reserveCapacity(20)
        for word in [words.0, words.1, words.2, words.3, words.4] {
            out.append(UInt8(truncatingIfNeeded: word >> 24)); out.append(UInt8(truncatingIfNeeded: word >> 16))
            out.append(UInt8(truncatingIfNeeded: word >> 8)); out.append(UInt8(truncatingIfNeeded: word))
        }
        return out
    }

    /// Pads the message and returns its digest as five big-endian words (`h0` … `h4`), without allocating.
    mutating func finalizeWords() -> (UInt32, UInt32, UInt32, UInt32, UInt32) {
        let bitLength = length &* 8
        var pad = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0),
                   UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        // 0x80, zeros to 56 mod 64, then the length in bits, big-endian.
        let padCount = blockCount < 56 ? 56 - blockCount : 120 - blockCount
        withUnsafeMutableBytes(of: &pad) { raw in
            raw[0] = 0x80
            raw.storeBytes(of: bitLength.bigEndian, toByteOffset: padCount, as: UInt64.self)
            update(UnsafeRawBufferPointer(rebasing: raw[0..<(padCount + 8)]))
        }
        return (h0, h1, h2, h3, h4)
    }

    private mutating func compressBuffered() {
        var copy = block
        withUnsafeBytes(of: &copy) { compress($0.baseAddress!) }
        blockCount = 0
    }

    /// Compresses the 64 bytes at `p` into the state.
    private mutating func compress(_ p: UnsafeRawPointer) {
        var w = (
            UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0),
            UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0))
        var a = h0, b = h1, c = h2, d = h3, e = h4
        withUnsafeMutableBytes(of: &w) { raw in
            let words = raw.bindMemory(to: UInt32.self)
            for i in 0..<16 { words[i] = p.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self).bigEndian }
            @inline(__always) func schedule(_ t: Int) -> UInt32 {
                let s = t & 15
                if t >= 16 {
                    let x = words[(s + 13) & 15] ^ words[(s + 8) & 15] ^ words[(s + 2) & 15] ^ words[s]
                    words[s] = x << 1 | x >> 31
                }
                return words[s]
            }
            @inline(__always) func round(_ f: UInt32, _ k: UInt32, _ wt: UInt32) {
                let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ wt
                e = d; d = c; c = b << 30 | b >> 2; b = a; a = temp
            }
            for t in 0..<20 { let wt = schedule(t); round((b & c) | (~b & d), 0x5A82_7999, wt) }
            for t in 20..<40 { let wt = schedule(t); round(b ^ c ^ d, 0x6ED9_EBA1, wt) }
            for t in 40..<60 { let wt = schedule(t); round((b & c) | (b & d) | (c & d), 0x8F1B_BCDC, wt) }
            for t in 60..<80 { let wt = schedule(t); round(b ^ c ^ d, 0xCA62_C1D6, wt) }
        }
        h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d; h4 &+= e
    }
}
