import Foundation
import StepSyncCore

/// Reads an export's route and ECG files, after its XML, into series parts (`Planning/series.md`), one file at a time.
///
/// - Routes: each stored workout that names route files (``RoutedWorkout``) has every one read (from the zip, or
///   the folder beside a bare `export.xml`), parsed (``GPXRoute``) and cut into ``RoutePart``s of one route under the
///   workout's uuid, source and device (the files in time order, one index space). A GPX file no workout names (its workout was skipped, or the export lost the
///   reference) is stored all the same, under a workout uuid derived from its path (``orphanWorkoutUUID(file:)``),
///   so nothing is lost.
/// - ECGs: every `electrocardiograms/*.csv` is parsed (``ElectrocardiogramCSV``) and cut into
///   ``ElectrocardiogramPart``s (source `ECG`, the ECG app's bundle id, the Watch model from its header).
///
/// A damaged file, or a route file the export does not hold, is skipped and counted like a record
/// (``SkipReason/unreadableRoute``, ``SkipReason/missingRouteFile``, ``SkipReason/unreadableElectrocardiogram``), the
/// detail naming the file and line; under `--strict` the parser's ``HealthExportParser/skip(_:in:)`` throws instead.
struct SeriesReader {
    /// The source the ECG parts are stored with: Apple Health exports name none for an ECG file, and HealthKit names
    /// the Watch's ECG app so.
    static let electrocardiogramSource = (name: "ECG", bundleId: "com.apple.NanoHeartRhythm")

    let attachments: ExportAttachments
    /// The export's display name (`export.zip: apple_health_export/export.xml`), for `--strict` refusals.
    let exportName: String

    /// The workout uuid an unreferenced route file is stored under: ``RoutePart/orphanOwner(file:)``
    /// (`file` as `/workout-routes/route_….gpx`), so a re-import names it the same.
    static func orphanWorkoutUUID(file: String) -> UUID { RoutePart.orphanOwner(file: file) }

    /// Reads every route of `routed` (all the files each workout names, as one route), then every unreferenced route
    /// file, then every ECG file, handing each route's or file's parts to `emit` and each damaged or missing file to
    /// `parser`'s skip count. Stops (returns) when `cancelled`.
    func run(routed: [RoutedWorkout], parser: inout HealthExportParser, cancelled: () -> Bool,
             emit: (SeriesBatch) -> Void) throws {
        var referenced = Set<String>()
        for route in routed {
            if cancelled() { return }
            var files: [(file: String?, points: [RoutePoint])] = []
            for file in route.files {
                referenced.insert(file)
                let bytes: [UInt8]
                do {
                    bytes = try attachments.read(file, maxBytes: GPXRoute.maxBytes)
                } catch .missing {
                    try parser.skip(SkippedRecord(
                        line: route.line, element: "WorkoutRoute", type: nil, reason: .missingRouteFile,
                        detail: "the workout's route file \(InputExcerpt.of(file)) is not in the export"), in: exportName)
                    continue
                } catch {
                    try skipRoute(file, problem: "the file \(error.description)", parser: &parser)
                    continue
                }
                if let points = try parseRoute(bytes, file: file, parser: &parser) {
                    files.append((file: Optional(file), points: points))
                }
            }
            try emitRoute(files, workout: route.workout, kind: .route, parser: &parser, emit: emit)
        }
        for file in attachments.files(in: ExportAttachments.routeFolder, suffix: ".gpx") where !referenced.contains(file) {
            if cancelled() { return }
            let bytes: [UInt8]
            do {
                bytes = try attachments.read(file, maxBytes: GPXRoute.maxBytes)
            } catch {
                try skipRoute(file, problem: "the file \(error.description)", parser: &parser)
                continue
            }
            let uuid = Self.orphanWorkoutUUID(file: file)
            // Only the uuid, source and offset of this stand-in are used (by `RoutePart.sample(of:)`).
            let standIn = HealthSample(uuid: uuid, type: .workout, startMs: 0, endMs: 0, value: 0, unit: "min",
                                       sourceName: "Health", sourceBundleId: "")
            guard let points = try parseRoute(bytes, file: file, parser: &parser) else { continue }
            try emitRoute([(file: Optional(file), points: points)], workout: standIn, kind: .orphanRoute,
                          parser: &parser, emit: emit)
        }
        for file in attachments.files(in: ExportAttachments.electrocardiogramFolder, suffix: ".csv") {
            if cancelled() { return }
            do {
                let bytes = try attachments.read(file, maxBytes: ElectrocardiogramCSV.maxBytes)
                try readElectrocardiogram(bytes, file: file, parser: &parser, emit: emit)
            } catch let problem as ExportAttachments.Problem {
                try skipElectrocardiogram(file, problem: "the file \(problem.description)", line: 0, parser: &parser)
            }
        }
    }

    /// Parses one GPX file into its points, or skips it (`nil`).
    private func parseRoute(_ bytes: [UInt8], file: String, parser: inout HealthExportParser) throws -> [RoutePoint]? {
        do {
            return try GPXRoute.parse(bytes).points
        } catch {
            try skipRoute(file, problem: error.description, line: error.line ?? 0, parser: &parser)
            return nil
        }
    }

    /// Cuts the files of one route (``RoutePart/split(files:workout:maxDetailsBytes:)``: one index space, the files in
    /// time order) and emits the parts, or skips the route's files when a part is refused.
    private func emitRoute(_ files: [(file: String?, points: [RoutePoint])], workout: HealthSample, kind: SeriesBatch.Kind,
                           parser: inout HealthExportParser, emit: (SeriesBatch) -> Void) throws {
        let samples = RoutePart.split(files: files, workout: workout.uuid).compactMap { $0.sample(of: workout) }
        for sample in samples {
            if let problem = SampleValidation.problem(of: sample, kind: sample.type.kind)
                ?? SeriesValidation.problem(of: sample) {
                for file in files.compactMap({ $0.file }) {
                    try skipRoute(file, problem: "a part is refused: \(problem.description)", parser: &parser)
                }
                return
            }
        }
        if !samples.isEmpty { emit(SeriesBatch(kind: kind, samples: samples)) }
    }

    /// Parses one ECG file and emits its parts, or skips it.
    private func readElectrocardiogram(_ bytes: [UInt8], file: String, parser: inout HealthExportParser,
                                       emit: (SeriesBatch) -> Void) throws {
        let csv: ElectrocardiogramCSV
        do {
            csv = try ElectrocardiogramCSV.parse(bytes)
        } catch {
            return try skipElectrocardiogram(file, problem: error.description, line: error.line ?? 0, parser: &parser)
        }
        let samples = ElectrocardiogramPart.split(csv.microvolts, header: csv.header).map {
            $0.sample(sourceName: Self.electrocardiogramSource.name, sourceBundleId: Self.electrocardiogramSource.bundleId)
        }
        for sample in samples {
            if let problem = SampleValidation.problem(of: sample, kind: sample.type.kind)
                ?? SeriesValidation.problem(of: sample) {
                return try skipElectrocardiogram(file, problem: "a part is refused: \(problem.description)", line: 0,
                                                 parser: &parser)
            }
        }
        if !samples.isEmpty { emit(SeriesBatch(kind: .electrocardiogram, samples: samples)) }
    }

    private func skipRoute(_ file: String, problem: String, line: Int = 0, parser: inout HealthExportParser) throws {
        try parser.skip(SkippedRecord(line: line, element: "WorkoutRoute", type: nil, reason: .unreadableRoute,
                                      detail: "\(InputExcerpt.of(file)) \(problem)", file: file),
                        in: attachments.displayName(file))
    }

    private func skipElectrocardiogram(_ file: String, problem: String, line: Int, parser: inout HealthExportParser) throws {
        try parser.skip(SkippedRecord(line: line, element: "Electrocardiogram", type: nil,
                                      reason: .unreadableElectrocardiogram,
                                      detail: "\(InputExcerpt.of(file)) \(problem)", file: file),
                        in: attachments.displayName(file))
    }
}
