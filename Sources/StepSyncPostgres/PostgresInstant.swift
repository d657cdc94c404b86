import NIOCore
import PostgresNIO
import StepSyncCore

/// An instant (UTC milliseconds since 1970) as a PostgreSQL `timestamptz`, encoded and decoded exactly.
///
/// PostgresNIO maps `Date` to `timestamptz` through a `Double`, which can be off by a microsecond far from 2000 and
/// truncates toward zero; the sink must give back every millisecond it was sent (from 0001-01-01 to 9999-12-31, see
/// ``Instants``), so this type writes the server's own representation: signed microseconds since
/// 2000-01-01T00:00:00Z as an `Int64`.
struct PostgresInstant: PostgresNonThrowingEncodable, PostgresDecodable, Hashable, Sendable {
    /// UTC milliseconds since 1970.
    var milliseconds: Int64

    /// Milliseconds from 1970-01-01 to PostgreSQL's epoch 2000-01-01.
    static let epochOffsetMs: Int64 = 946_684_800_000

    init(milliseconds: Int64) { self.milliseconds = milliseconds }

    static var psqlType: PostgresDataType { .timestamptz }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer,
                                                  context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeInteger(Self.microseconds(milliseconds: milliseconds))
    }

    /// `milliseconds` (UTC since 1970) as the server's microseconds since 2000-01-01.
    ///
    /// Only what would overflow is clamped (beyond ±292,000 years), so a query's half-open bound past the last instant
    /// (`Instants.max + 1`, as `LocalDays` and `ExportRange.all` give) keeps the sample at `Instants.max` inside it.
    /// Stored instants are validated to years 0001–9999 long before this.
    @inline(__always)
    static func microseconds(milliseconds: Int64) -> Int64 {
        (min(max(milliseconds, representable.lowerBound), representable.upperBound) - epochOffsetMs) * 1000
    }

    /// The milliseconds whose microseconds since 2000 fit an `Int64`.
    static let representable = (Int64.min / 1000 + epochOffsetMs)...(Int64.max / 1000 + epochOffsetMs)

    init<JSONDecoder: PostgresJSONDecoder>(from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat,
                                           context: PostgresDecodingContext<JSONDecoder>) throws {
        guard type == .timestamptz || type == .timestamp, format == .binary, buffer.readableBytes == 8,
              let micros = buffer.readInteger(as: Int64.self)
        else { throw PostgresDecodingError.Code.typeMismatch }
        milliseconds = Self.milliseconds(microseconds: micros)
    }

    /// UTC milliseconds since 1970 of `micros`, the server's microseconds since 2000-01-01, rounded down (the sink
    /// only stores whole milliseconds, but a row written by hand may hold microseconds).
    @inline(__always)
    static func milliseconds(microseconds micros: Int64) -> Int64 {
        let (q, r) = micros.quotientAndRemainder(dividingBy: 1000)
        return (r < 0 ? q - 1 : q) + epochOffsetMs
    }
}
