import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StepSyncCore

extension SinkResponder {
    /// The request body as JSON bytes: content type checked, size limited, gzip inflated with its own limit, every
    /// byte held counted against ``BodyBudget`` (`reservation` is what to give back once the request is answered).
    /// `limit` overrides ``SinkConfiguration/maxBodyBytes`` (and the inflated limit, when larger).
    func jsonBody(_ request: Request, reservation: inout Int, limit: Int? = nil) async throws -> ByteBuffer {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "application/json" else {
            throw SinkError.unsupportedMediaType(
                "Content-Type must be application/json, not \(type.isEmpty ? "absent" : String(type.prefix(64)))")
        }
        let encoding = request.headers[.contentEncoding]?.lowercased().trimmingCharacters(in: .whitespaces) ?? "identity"
        guard encoding == "gzip" || encoding == "identity" else {
            throw SinkError.unsupportedMediaType("Content-Encoding \(encoding.prefix(64)) is not supported; use gzip or none")
        }
        let limit = limit ?? configuration.maxBodyBytes
        let length = request.headers[.contentLength].flatMap { Int($0) }
        if let length, length > limit {
            throw SinkError.tooLarge("body of \(length) bytes is over the limit of \(limit)")
        }
        var body = ByteBufferAllocator().buffer(capacity: max(0, length ?? 0))
        for try await chunk in request.body {
            guard body.readableBytes + chunk.readableBytes <= limit else {
                throw SinkError.tooLarge("body is over the limit of \(limit) bytes")
            }
            try reserve(chunk.readableBytes, &reservation)
            var chunk = chunk
            body.writeBuffer(&chunk)
        }
        guard encoding == "gzip" else { return body }
        return try inflate(&body, reservation: &reservation, limit: max(limit, configuration.maxInflatedBytes))
    }

    /// Inflates a gzip body 1 MiB at a time, counting each piece against the budget and the inflated limit, and
    /// checks its framing (``GzipMember``): the header, the deflate data to its end, then exactly the 8-byte trailer
    /// with the CRC-32 and length of what came out. A body cut short, with a wrong CRC-32 or length, or with bytes
    /// after the trailer (garbage, a second member) is refused whole (400) before anything is parsed or stored.
    private func inflate(_ body: inout ByteBuffer, reservation: inout Int, limit: Int) throws -> ByteBuffer {
        let header: Int
        do {
            header = try body.withUnsafeReadableBytes { raw in
                try GzipMember.headerLength(raw, crc32: { Self.crc32(0, $0) })
            }
        } catch {
            throw SinkError.badRequest("gzip body \(error)")
        }
        body.moveReaderIndex(forwardBy: header)
        let decompressor: ZlibDecompressor
        do {
            // Raw deflate: zlib stops at the end of the deflate data and leaves the trailer (and anything after it)
            // unread, for ``GzipMember/checkTrailer(_:crc:inflatedCount:)``.
            decompressor = try ZlibDecompressor(algorithm: .deflate)
        } catch {
            throw SinkError.unavailable("cannot start inflating: \(error)", retryAfterSeconds: configuration.retryAfterSeconds)
        }
        var inflated = ByteBuffer()
        var crc: UInt32 = 0
        while true {
            var window = ByteBufferAllocator().buffer(capacity: 1 << 20)
            var ended = false
            do {
                // A normal return is the end of the deflate data, or its input used up before it (zlib's Z_OK with
                // room left): the trailer check below refuses the second, which leaves no byte for a trailer.
                try decompressor.inflate(from: &body, to: &window)
                ended = true
            } catch let error as CompressNIOError where error == .bufferOverflow {
                // The window is full: take it and go on.
            } catch let error as CompressNIOError where error == .inputBufferOverflow {
                throw SinkError.badRequest("gzip body \(GzipError.cutShort("inside its compressed data"))")
            } catch {
                throw SinkError.badRequest("gzip body \(GzipError.corrupt("its deflate data is invalid (\(error))"))")
            }
            guard inflated.readableBytes + window.readableBytes <= limit else {
                throw SinkError.tooLarge("gzip body inflates to more than the limit of \(limit) bytes")
            }
            try reserve(window.readableBytes, &reservation)
            crc = window.withUnsafeReadableBytes { Self.crc32(crc, $0) }
            inflated.writeBuffer(&window)
            if ended { break }
        }
        let count = inflated.readableBytes
        do {
            try body.withUnsafeReadableBytes { rest in
                try GzipMember.checkTrailer(rest, crc: crc, inflatedCount: count)
            }
        } catch {
            throw SinkError.badRequest("gzip body \(error)")
        }
        return inflated
    }

    /// zlib's CRC-32 of `bytes`, continuing from `crc` (0 to start): ``CRC32``.
    static func crc32(_ crc: UInt32 = 0, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        CRC32.update(crc, with: bytes)
    }

    private func reserve(_ bytes: Int, _ reservation: inout Int) throws {
        guard budget.reserve(bytes) else {
            throw SinkError.busy("""
                the sink holds its budget of \(budget.capacity >> 10) KiB of request bodies already; try again shortly
                """, retryAfterSeconds: 1)
        }
        reservation += bytes
    }
}
