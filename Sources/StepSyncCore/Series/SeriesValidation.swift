import Foundation

/// The check of a series part (``RoutePart``, ``ElectrocardiogramPart``) where it enters: the sink's `POST /samples`
/// on every storage (through ``WireDecoder``'s request decoding) and the importer. ``SampleValidation`` checks what
/// every sample shares; this reads the part's `details` with the part's own reader and holds the sample to it:
///
/// 1. `details` present and at most ``SeriesLimits/maxPartDetailsBytes`` (56 KiB) of UTF-8;
/// 2. the part's reader accepts it: integers in range (`part`, `parts`, `first`, `voltageCount`, `sampleRateHz`),
///    arrays of one length, instants inside ``Instants`` (``RoutePart/init(details:)``,
///    ``ElectrocardiogramPart/init(details:)``) — JSON is decoded, so a key spelled with escapes (`"micro\u0076olts"`)
///    is the same key;
/// 3. the sample's `value` is the part's point count and its uuid the part's (``RoutePart/uuid``,
///    ``ElectrocardiogramPart/uuid``), since the sink finds parts by uuid.
///
/// Every refusal is ``SampleProblem/Reason/invalidDetails`` naming the field (`details.first`, `details.time`,
/// `value`, `uuid`). Other types pass untouched. Readers re-check (the same `init(details:)`), so a part stored before
/// this check is skipped, never trusted.
public enum SeriesValidation {
    /// The first problem of `sample` as a series part, or `nil` (also for a sample of another type).
    public static func problem(of sample: HealthSample) -> SampleProblem? {
        let isRoute = sample.type == .workoutRoute
        guard isRoute || sample.type == .electrocardiogram else { return nil }
        guard let details = sample.details else {
            return SampleProblem(.invalidDetails, field: "details", detail: "is missing: a series part carries its points there")
        }
        let bytes = details.utf8.count
        guard bytes <= SeriesLimits.maxPartDetailsBytes else {
            return SampleProblem(.invalidDetails, field: "details",
                                 detail: "is \(bytes) bytes long, over the limit of \(SeriesLimits.maxPartDetailsBytes) for a series part")
        }
        let points: Int
        let uuid: UUID
        do throws(SeriesDetailsError) {
            if isRoute {
                let part = try RoutePart(details: details)
                (points, uuid) = (part.points.count, part.uuid)
            } else {
                let part = try ElectrocardiogramPart(details: details)
                (points, uuid) = (part.microvolts.count, part.uuid)
            }
        } catch {
            return SampleProblem(.invalidDetails, field: error.field.map { "details.\($0)" } ?? "details",
                                 detail: error.problem)
        }
        guard sample.value == Double(points) else {
            return SampleProblem(.invalidDetails, field: "value",
                                 detail: "is \(sample.value), but the part's details hold \(points) points")
        }
        guard sample.uuid == uuid else {
            return SampleProblem(.invalidDetails, field: "uuid",
                                 detail: "is not the part's own (\(uuid.uuidString), from its details' owner and index)")
        }
        return nil
    }
}
