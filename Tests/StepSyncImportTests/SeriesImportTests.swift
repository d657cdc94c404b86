import Foundation
import StepSyncCore
import StepSyncStore
import Testing
@testable import StepSyncImport

/// Routes and ECGs of an export stored as series parts (`Planning/series.md`, `Planning/import.md`).
@Suite("Importing routes and ECGs")
struct SeriesImportTests {
    typealias S = SeriesExportFixture

    /// Every stored route part, decoded, by workout, parts in order.
    static func routes(_ store: StepStore) throws -> [UUID: [RoutePart]] {
        let samples = try store.samplePage(of: .workoutRoute, in: all, limit: 10_000)
        var byWorkout: [UUID: [RoutePart]] = [:]
        for sample in samples {
            let part = try RoutePart(details: try #require(sample.details))
            #expect(sample.uuid == part.uuid && sample.value == Double(part.points.count) && sample.unit == "count")
            #expect(sample.startMs == part.points.first?.timeMs && sample.endMs == part.points.last?.timeMs)
            byWorkout[part.workout, default: []].append(part)
        }
        return byWorkout.mapValues { $0.sorted { $0.index < $1.index } }
    }

    /// Every stored ECG part, decoded, by recording, parts in order, with their samples.
    static func electrocardiograms(_ store: StepStore) throws -> [UUID: [(HealthSample, ElectrocardiogramPart)]] {
        var byRecording: [UUID: [(HealthSample, ElectrocardiogramPart)]] = [:]
        for sample in try store.samplePage(of: .electrocardiogram, in: all, limit: 10_000) {
            let part = try ElectrocardiogramPart(details: try #require(sample.details))
            byRecording[part.recording, default: []].append((sample, part))
        }
        return byRecording.mapValues { $0.sorted { $0.1.index < $1.1.index } }
    }

    /// The stored workouts by activity type.
    static func workouts(_ store: StepStore) throws -> [String: HealthSample] {
        var byActivity: [String: HealthSample] = [:]
        for workout in try store.samplePage(of: .workout, in: all, limit: 100) {
            let details = try #require(workout.details)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(details.utf8)) as? [String: Any])
            byActivity[try #require(object["activityType"] as? String)] = workout
        }
        return byActivity
    }

    /// Checks a store holding `export` whole: both routes point for point, both ECGs voltage for voltage.
    func expectStored(_ export: S.Export, in store: StepStore) throws {
        let workouts = try Self.workouts(store)
        let run = try #require(workouts["HKWorkoutActivityTypeRunning"])
        let walk = try #require(workouts["HKWorkoutActivityTypeWalking"])
        let routes = try Self.routes(store)
        #expect(Set(routes.keys) == [run.uuid, walk.uuid])
        let runParts = try #require(routes[run.uuid])
        #expect(runParts.count > 1 && runParts.allSatisfy { $0.count == runParts.count && $0.file == S.Export.runFile })
        #expect(runParts.map(\.index) == Array(0..<runParts.count))
        #expect(runParts.flatMap(\.points) == export.run)
        #expect(try #require(routes[walk.uuid]).flatMap(\.points) == export.walk)
        let runSamples = try store.samplePage(of: .workoutRoute, in: all, limit: 10_000).filter { runParts.map(\.uuid).contains($0.uuid) }
        #expect(runSamples.allSatisfy { $0.sourceName == run.sourceName && $0.deviceModel == run.deviceModel })

        let recordings = try Self.electrocardiograms(store)
        #expect(recordings.count == 2)
        for (expected, classification, recorded) in [(export.english, "Sinus Rhythm", "2025-06-05T08:07:00.000Z"),
                                                     (export.german, "Sinusrhythmus", "2025-06-05T16:41:30.000Z")] {
            let parts = try #require(recordings.values.first { $0.first?.1.header.classification == classification })
            let header = try #require(parts.first?.1.header)
            #expect(parts.map(\.1.index) == Array(0..<parts.count) && parts.count > 1)
            #expect(parts.flatMap(\.1.microvolts) == expected && expected.count == 15_360)
            #expect(header.recordedMs == ISO8601Millis.parse(recorded) && header.utcOffsetSeconds == 7_200)
            #expect(header.sampleRateHz == 512 && header.voltageCount == 15_360 && header.device == "Watch6,2")
            #expect(header.lead == "Lead I" && header.unit == "µV" && header.softwareVersion == "1.90")
            #expect(parts.allSatisfy { $0.0.sourceName == "ECG" && $0.0.sourceBundleId == "com.apple.NanoHeartRhythm" })
            #expect(parts.first?.0.startMs == header.recordedMs && parts.last?.0.endMs == header.recordedMs + 30_000)
        }
    }

    @Test("a zip with a two-hour run (7,200 points), a walk and two ECGs: every point and voltage in order; a re-import adds 0")
    func zip() throws {
        let w = try Workspace()
        let export = S.export()
        let zip = try F.zip(export.entries, named: "export.zip", in: w.directory)

        let summary = try w.importExport(zip)

        #expect(summary.skipped.isEmpty, "\(summary.firstSkipped)")
        #expect(summary.routes == 2 && summary.routePoints == 7_800 && summary.electrocardiograms == 2)
        #expect(summary.insertedWorkouts == 2 && summary.insertedStepSamples == 1)
        try expectStored(export, in: w.store)
        let parts = (summary.insertedByType[.workoutRoute] ?? 0) + (summary.insertedByType[.electrocardiogram] ?? 0)
        #expect(summary.inserted == 3 + parts)

        let again = try w.importExport(zip)
        #expect(again.inserted == 0 && again.duplicates == summary.inserted)
        #expect(again.routes == 0 && again.routePoints == 0 && again.electrocardiograms == 0)
        try expectStored(export, in: w.store)
    }

    @Test("a bare export.xml with its workout-routes/ and electrocardiograms/ folders beside it imports the same")
    func folder() throws {
        let w = try Workspace()
        let export = S.export()
        let folder = w.directory.appendingPathComponent("apple_health_export")
        try S.writeFolder(export.entries.map { (String($0.0.dropFirst("apple_health_export/".count)), $0.1) }, in: folder)

        let summary = try w.importExport(folder.appendingPathComponent("export.xml").path)

        #expect(summary.skipped.isEmpty, "\(summary.firstSkipped)")
        #expect(summary.routes == 2 && summary.routePoints == 7_800 && summary.electrocardiograms == 2)
        try expectStored(export, in: w.store)
    }

    @Test("the committed fixtures (Apple's GPX; English and German ECG files, one with BOM and CRLF) import as written")
    func committedFixtures() throws {
        let w = try Workspace()
        let body = S.workout(activity: "HKWorkoutActivityTypeRunning", start: "2024-12-08 15:07:56 +0000",
                             end: "2024-12-08 15:08:00 +0000", minutes: 1, route: "/workout-routes/route_2024-12-08_3.07pm.gpx")
        let zip = try F.zip([("apple_health_export/export.xml", F.document(.v14, body: body)),
                             ("apple_health_export/workout-routes/route_2024-12-08_3.07pm.gpx", try F.real("route_2024-12-08_3.07pm.gpx")),
                             ("apple_health_export/electrocardiograms/ecg_2025-06-05.csv", try F.real("ecg_2025-06-05.csv")),
                             ("apple_health_export/electrocardiograms/ecg_2025-06-07.csv", try F.real("ecg_2025-06-07.csv"))],
                            named: "export.zip", in: w.directory)

        let summary = try w.importExport(zip)

        #expect(summary.skipped.isEmpty && summary.routes == 1 && summary.routePoints == 5 && summary.electrocardiograms == 2)
        let route = try #require(try Self.routes(w.store).values.first)
        #expect(route.flatMap(\.points).map(\.latitude) == [40.154135, 40.154145, 40.154153, 40.154162, 40.154170])
        #expect(route.flatMap(\.points).map(\.elevation) == [22.107849, 22.222656, 22.335938, 22.446533, 22.553711])
        #expect(route[0].points[0].verticalAccuracy == 1.612305 && route[0].points[4].speed == 1.734568)
        let recordings = try Self.electrocardiograms(w.store).values.map { $0.map(\.1) }
        let german = try #require(recordings.first { $0[0].header.classification == "Sinusrhythmus" })
        let english = try #require(recordings.first { $0[0].header.classification == "Sinus Rhythm" })
        #expect(german.flatMap(\.microvolts) == english.flatMap(\.microvolts) && english.flatMap(\.microvolts).count == 512)
        #expect(english[0].microvolts[0] == -265.868)
        #expect(german[0].header.symptoms == "Schwindel oder Benommenheit" && german[0].header.lead == "Ableitung I")
    }

    @Test("a GPX file no workout names is stored under a uuid derived from its path")
    func unreferencedRoute() throws {
        let w = try Workspace()
        var export = S.export()
        let stray = "/workout-routes/route_2024-12-10_6.00pm.gpx"
        let strayRoute = S.route(startMs: ISO8601Millis.parse("2024-12-10T18:00:00.000Z")!, points: 90)
        export.files.append((stray, strayRoute.text))
        let zip = try F.zip(export.entries, named: "export.zip", in: w.directory)

        let summary = try w.importExport(zip)

        #expect(summary.routes == 3 && summary.routePoints == 7_890 && summary.skipped.isEmpty)
        let uuid = SeriesReader.orphanWorkoutUUID(file: stray)
        #expect(uuid == NameBasedUUID.v5(namespace: SeriesLimits.namespace, name: "route-file|\(stray)"))
        let parts = try #require(try Self.routes(w.store)[uuid])
        #expect(parts.flatMap(\.points) == strayRoute.points && parts[0].file == stray)
    }

    @Test("damaged files are skipped with reason, file and line; the rest is stored")
    func damaged() throws {
        let w = try Workspace()
        var export = S.export(extraBody: S.workout(activity: "HKWorkoutActivityTypeCycling", start: "2024-12-11 09:00:00 +0000",
                                                   end: "2024-12-11 10:00:00 +0000", minutes: 60,
                                                   route: "/workout-routes/route_2024-12-11_9.00am.gpx"))
        // The walk's point 4 loses its time; the German ECG's voltage 100 (line 114: 13 header lines) is text.
        let pointLine = try #require(export.files[1].1.components(separatedBy: "\n").firstIndex { $0.contains("07:30:03Z") }) + 1
        export.files[1].1 = export.files[1].1.replacingOccurrences(of: "<time>2024-12-09T07:30:03Z</time>", with: "")
        var lines = export.files[3].1.components(separatedBy: "\r\n")
        lines[113] = "n/a"
        export.files[3].1 = lines.joined(separator: "\r\n")
        let xmlLines = export.xml.components(separatedBy: "\n")
        let cyclingLine = try #require(xmlLines.firstIndex { $0.contains("HKWorkoutActivityTypeCycling") }) + 1
        let zip = try F.zip(export.entries, named: "export.zip", in: w.directory)

        let summary = try w.importExport(zip)

        #expect(summary.skipped == [.unreadableRoute: 1, .unreadableElectrocardiogram: 1, .missingRouteFile: 1])
        #expect(summary.routes == 1 && summary.routePoints == 7_200 && summary.electrocardiograms == 1)
        #expect(summary.insertedWorkouts == 3)
        let byReason = Dictionary(uniqueKeysWithValues: summary.firstSkipped.map { ($0.reason, $0) })
        let route = try #require(byReason[.unreadableRoute])
        #expect(route.file == S.Export.walkFile && route.line == pointLine && pointLine == 12 && route.element == "WorkoutRoute")
        #expect(route.detail == "\(S.Export.walkFile) line 12 has a <trkpt> without a <time>")
        let ecg = try #require(byReason[.unreadableElectrocardiogram])
        #expect(ecg.file == S.Export.germanFile && ecg.line == 114)
        #expect(ecg.detail == "\(S.Export.germanFile) line 114 n/a is not a voltage")
        let missing = try #require(byReason[.missingRouteFile])
        #expect(missing.file == nil && missing.line == cyclingLine)
        #expect(missing.detail.contains("/workout-routes/route_2024-12-11_9.00am.gpx"))
        #expect("\(route)" == "WorkoutRoute skipped (unreadable_route): \(route.detail)")
    }

    @Test("--strict refuses a damaged route, a damaged ECG or a missing route file, and the store is unchanged",
          arguments: ["route", "ecg", "missing"])
    func strict(_ damage: String) throws {
        let w = try Workspace()
        var export = S.export()
        switch damage {
        case "route": export.files[0].1 = export.files[0].1.replacingOccurrences(of: " lat=\"", with: " lat=\"north ")
        case "ecg": export.files[2].1 = export.files[2].1.replacingOccurrences(of: "Sample Rate,512 hertz", with: "Sample Rate,fast")
        default: export.files.remove(at: 1)
        }
        let zip = try F.zip(export.entries, named: "export.zip", in: w.directory)
        try w.store.insert([HealthSample(uuid: UUID(), type: .stepCount, startMs: 1_000, endMs: 2_000, value: 5,
                                         unit: "count", sourceName: "iPhone", sourceBundleId: "")])
        let before = try w.snapshot()

        let error = #expect(throws: ImportError.self) { try w.importExport(zip, strict: true) }

        let message = try #require(error?.message)
        #expect(message.contains("--strict imports nothing"))
        switch damage {
        case "route": #expect(message.contains("export.zip: apple_health_export/workout-routes/route_2024-12-08_3.07pm.gpx: WorkoutRoute cannot be imported (unreadable_route)"), "\(message)")
        case "ecg": #expect(message.contains("apple_health_export/electrocardiograms/ecg_2025-06-05.csv: Electrocardiogram cannot be imported (unreadable_electrocardiogram)"), "\(message)")
        default: #expect(message.contains("apple_health_export/export.xml line ") && message.contains("(missing_route_file)"), "\(message)")
        }
        #expect(try w.snapshot() == before)
        #expect(try w.store.samplePage(of: .workoutRoute, in: all, limit: 10).isEmpty)
        #expect(try w.store.samplePage(of: .electrocardiogram, in: all, limit: 10).isEmpty)
    }
}
