import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension SinkResponder {
    /// The request body as JSON bytes: content type checked, size limited, gzip inflated with its own limit, every
    /// byte held counted against ``BodyBudget`` (`reservation` is what to give back once the request is answered).
    func jsonBody(_ request: Request, reservation: inout Int) async throws -> ByteBuffer {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "application/json" else {
            throw SinkError.unsupportedMediaType(
                "Content-Type must be application/json, not \(type.isEmpty ? "absent" : String(type.prefix(64)))")
        }
        let encoding = request.headers[.contentEncoding]?.lowercased().trimmingCharacters(in: .whitespaces) ?? "identity"
        guard encoding == "gzip" || encoding == "identity" else {
            throw SinkError.unsupportedMediaType("Content-Encoding \(encoding.prefix(64)) is not supported; use gzip or none")
        }
        let limit = configuration.maxBodyBytes
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
        guard body.readableBytes > 0 else { throw SinkError.badRequest("gzip body is empty") }
        return try inflate(&body, reservation: &reservation)
    }

    /// Inflates a gzip body 1 MiB at a time, counting each piece against the budget and the inflated limit.
    private func inflate(_ body: inout ByteBuffer, reservation: inout Int) throws -> ByteBuffer {
        let decompressor: ZlibDecompressor
        do {
            decompressor = try ZlibDecompressor(algorithm: .gzip)
        } catch {
            throw SinkError.unavailable("cannot start inflating: \(error)", retryAfterSeconds: configuration.retryAfterSeconds)
        }
        let limit = configuration.maxInflatedBytes
        var inflated = ByteBuffer()
        while true {
            var window = ByteBufferAllocator().buffer(capacity: 1 << 20)
            var finished = false
            do {
                try decompressor.inflate(from: &body, to: &window)
                finished = true
            } catch let error as CompressNIOError where error == .bufferOverflow {
                // The window is full: take it and go on.
            } catch let error as CompressNIOError where error == .inputBufferOverflow {
                finished = true // the input ended before the gzip trailer; the JSON parser judges what came out
            } catch {
                throw SinkError.badRequest("gzip body is corrupt: \(error)")
            }
            guard inflated.readableBytes + window.readableBytes <= limit else {
                throw SinkError.tooLarge("gzip body inflates to more than the limit of \(limit) bytes")
            }
            try reserve(window.readableBytes, &reservation)
            inflated.writeBuffer(&window)
            if finished || body.readableBytes == 0 && window.readableBytes == 0 { break }
        }
        return inflated
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
