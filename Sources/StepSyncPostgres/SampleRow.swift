import Foundation
import StepSyncCore

/// Receives the columns of one row of `samples`, in the order ``SampleRow/write(_:typeKey:client:to:)`` gives them:
/// the COPY text (``CopyText``), the binary COPY (``CopyBinary``) and the multi-row `INSERT`'s parameters each write
/// the same columns in their own form.
protocol SampleRowWriter {
    /// `client_id` or `type_key`.
    mutating func integer(_ value: Int64)
    mutating func uuid(_ value: UUID)
    mutating func text(_ value: String)
    /// A text or `json` column that may be NULL.
    mutating func optionalText(_ value: String?)
    /// `start_at` or `end_at`, UTC milliseconds since 1970.
    mutating func instant(_ milliseconds: Int64)
    /// `utc_offset_seconds`.
    mutating func offset(_ seconds: Int32?)
    mutating func value(_ value: Double)
}

/// The one order of a row's columns: `client_id` when given, then ``PostgresSampleStorage/sampleColumns`` (whose last,
/// `type_key`, when given).
enum SampleRow {
    @inline(__always)
    static func write<Writer: SampleRowWriter>(_ sample: HealthSample, typeKey: Int64?, client: Int64?,
                                              to writer: inout Writer) {
        if let client { writer.integer(client) }
        writer.uuid(sample.uuid)
        writer.text(sample.type.rawValue)
        writer.instant(sample.startMs)
        writer.instant(sample.endMs)
        writer.offset(sample.utcOffsetSeconds)
        writer.value(sample.value)
        writer.text(sample.unit)
        writer.text(sample.sourceName)
        writer.text(sample.sourceBundleId)
        writer.optionalText(sample.sourceVersion)
        writer.optionalText(sample.deviceName)
        writer.optionalText(sample.deviceModel)
        writer.optionalText(sample.details)
        if let typeKey { writer.integer(typeKey) }
    }

    /// The UTF-8 bytes of the row's text columns (what a row's reservation must hold beyond its fixed columns).
    static func textBytes(_ sample: HealthSample) -> Int {
        var texts = sample.type.rawValue.utf8.count + sample.unit.utf8.count + sample.sourceName.utf8.count
        texts += sample.sourceBundleId.utf8.count + (sample.sourceVersion?.utf8.count ?? 0)
        texts += (sample.deviceName?.utf8.count ?? 0) + (sample.deviceModel?.utf8.count ?? 0)
        return texts + (sample.details?.utf8.count ?? 0)
    }
}
