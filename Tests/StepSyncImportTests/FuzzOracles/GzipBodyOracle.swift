import Foundation
import StepSyncCore
#if canImport(StepSyncZlib)
    import StepSyncZlib
#endif

/// What the sink's reading of a `Content-Encoding: gzip` body promises (issue 21.6, ``GzipMember``), checked against
/// zlib's own gzip reader, for the `gzip-body` fuzz target and the replay tests. (Here, with the importer's targets,
/// because they are the ones linked with zlib.)
///
/// The sink's rule, as `SinkResponder+Body` runs it: ``GzipMember/headerLength(_:crc32:)``, raw inflate (zlib,
/// windowBits −15) in small windows until a call returns without filling its window, then
/// ``GzipMember/checkTrailer(_:crc:inflatedCount:)`` on every byte left. The reference: zlib in gzip mode
/// (windowBits 31, which checks the header CRC, the CRC-32 and the length itself) accepts when it reaches the end of
/// the stream with no input left. The promises: the two accept the same bodies and inflate them to the same bytes;
/// refusals are ``GzipError``s of at most 200 bytes. Byte 0 of the input picks what the rest is: the body itself, or
/// a payload that is gzipped (by zlib) and then cut, extended or changed at fuzzer-chosen places.
enum GzipBodyOracle {
    /// Whether zlib is reachable here (it is wherever the importer builds on Linux).
    static var available: Bool {
        #if canImport(StepSyncZlib)
            true
        #else
            false
        #endif
    }

    static func problems(_ input: UnsafeRawBufferPointer) -> [String] {
        #if canImport(StepSyncZlib)
            guard let mode = input.first else { return [] }
            let body = makeBody(mode: mode, Array(input.dropFirst()))
            let sink = sinkRule(body)
            let reference = zlibGzip(body)
            var problems: [String] = []
            switch (sink, reference) {
            case (.success(let a), .some(let b)):
                if a != b { problems.append("inflated \(a.count) bytes, zlib \(b.count), not the same") }
            case (.failure(let error), nil):
                if error.description.utf8.count > 200 { problems.append("the message is \(error.description.utf8.count) bytes") }
            case (.success, nil):
                problems.append("accepted a body zlib's gzip reader refuses: \(body.prefix(64))…")
            case (.failure(let error), .some):
                problems.append("refused a body zlib's gzip reader accepts: \(error)")
            }
            return problems
        #else
            return []
        #endif
    }

    #if canImport(StepSyncZlib)
        /// The body the input stands for: mode 0 the bytes as they are; else a gzip member of the bytes after the
        /// first two, which `mode` and byte 1 then change: 1 kept, 2 cut short, 3 extended with the bytes' tail, 4 a
        /// byte flipped, 5 two members.
        static func makeBody(mode: UInt8, _ rest: [UInt8]) -> [UInt8] {
            guard mode % 6 != 0, rest.count >= 1 else { return rest }
            let at = Int(rest[0])
            let payload = Array(rest.dropFirst())
            var member = gzip(payload)
            switch mode % 6 {
            case 2: member.removeLast(min(member.count, 1 + at % 24))
            case 3: member += payload.suffix(1 + at % 8)
            case 4: member[(at * 7) % member.count] ^= UInt8(truncatingIfNeeded: 1 << (at % 8))
            case 5: member += gzip(payload.reversed())
            default: break
            }
            return member
        }

        /// zlib's gzip member of `bytes` (default level, no name).
        static func gzip(_ bytes: [UInt8]) -> [UInt8] {
            var stream = z_stream()
            guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                                Int32(MemoryLayout<z_stream>.size)) == Z_OK else { fatalError("deflateInit2") }
            defer { deflateEnd(&stream) }
            var input = bytes
            var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 32)
            let written = input.withUnsafeMutableBufferPointer { i in
                out.withUnsafeMutableBufferPointer { o in
                    stream.next_in = i.baseAddress
                    stream.avail_in = UInt32(i.count)
                    stream.next_out = o.baseAddress
                    stream.avail_out = UInt32(o.count)
                    guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { fatalError("deflate") }
                    return o.count - Int(stream.avail_out)
                }
            }
            return Array(out.prefix(written))
        }

        static func crc32(_ crc: UInt32 = 0, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
            return UInt32(truncatingIfNeeded: StepSyncZlib.crc32(UInt(crc), base.assumingMemoryBound(to: UInt8.self), UInt32(bytes.count)))
        }

        /// The sink's rule (see the type's comment), with 61-byte windows so that window ends fall everywhere.
        static func sinkRule(_ body: [UInt8]) -> Result<[UInt8], GzipError> {
            body.withUnsafeBytes { raw in
                let header: Int
                do throws(GzipError) {
                    header = try GzipMember.headerLength(raw, crc32: { crc32(0, $0) })
                } catch {
                    return .failure(error)
                }
                var stream = z_stream()
                guard inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                    fatalError("inflateInit2")
                }
                defer { inflateEnd(&stream) }
                var consumed = header
                var out: [UInt8] = []
                var crc: UInt32 = 0
                while true {
                    var window = [UInt8](repeating: 0, count: 61)
                    let before = consumed
                    let (code, availOut, read) = window.withUnsafeMutableBufferPointer { w in
                        let input = UnsafeMutablePointer(mutating: raw.baseAddress!.assumingMemoryBound(to: UInt8.self)) + before
                        stream.next_in = input
                        stream.avail_in = UInt32(raw.count - before)
                        stream.next_out = w.baseAddress
                        stream.avail_out = UInt32(w.count)
                        let code = inflate(&stream, Z_NO_FLUSH)
                        return (code, Int(stream.avail_out), stream.next_in - input)
                    }
                    consumed += read
                    let produced = Array(window.prefix(61 - availOut))
                    crc = produced.withUnsafeBytes { crc32(crc, $0) }
                    out += produced
                    // compress-nio's ZlibDecompressor.inflate: Z_OK with a full window → bufferOverflow (go on);
                    // Z_OK with room, or Z_STREAM_END → a normal return (the sink stops); Z_BUF_ERROR with no input
                    // left → inputBufferOverflow (cut short); anything else → corrupt.
                    switch code {
                    case Z_OK where availOut == 0: continue
                    case Z_OK, Z_STREAM_END: break
                    case Z_BUF_ERROR where consumed == raw.count: return .failure(.cutShort("inside its compressed data"))
                    case Z_BUF_ERROR: return .failure(.corrupt("zlib made no progress with input and room left"))
                    default: return .failure(.corrupt("its deflate data is invalid"))
                    }
                    break
                }
                do throws(GzipError) {
                    try GzipMember.checkTrailer(UnsafeRawBufferPointer(rebasing: raw[consumed...]), crc: crc, inflatedCount: out.count)
                } catch {
                    return .failure(error)
                }
                return .success(out)
            }
        }

        /// zlib's gzip reader: the inflated bytes when it ends the stream with no input left, else `nil`.
        static func zlibGzip(_ body: [UInt8]) -> [UInt8]? {
            var stream = z_stream()
            guard inflateInit2_(&stream, 31, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                fatalError("inflateInit2")
            }
            defer { inflateEnd(&stream) }
            var input = body
            var out: [UInt8] = []
            return input.withUnsafeMutableBufferPointer { i -> [UInt8]? in
                stream.next_in = i.baseAddress
                stream.avail_in = UInt32(i.count)
                while true {
                    var window = [UInt8](repeating: 0, count: 4096)
                    let code = window.withUnsafeMutableBufferPointer { w in
                        stream.next_out = w.baseAddress
                        stream.avail_out = UInt32(w.count)
                        return inflate(&stream, Z_NO_FLUSH)
                    }
                    out += window.prefix(4096 - Int(stream.avail_out))
                    switch code {
                    case Z_STREAM_END: return stream.avail_in == 0 ? out : nil
                    case Z_OK: continue
                    default: return nil
                    }
                }
            }
        }
    #endif
}
