import Foundation
import StepSyncCore
import StepSyncStore
import Testing
import StepSyncTestSupport

/// Deleting a workout deletes its route parts (`Planning/series.md`), so the next layer plans their deletion and sync
/// removes them from the sink.
@Suite("Deleting a workout deletes its route")
struct RouteCascadeTests {
    static let limits = LayeringLimits(maxSteps: 5_000, maxSamples: 40)

    /// A workout of `minutes` from `startMs` and its route: a point a second, cut into parts under 56 KiB.
    static func routedWorkout(startMs: Int64, minutes: Int, seed: Int) -> (HealthSample, [HealthSample]) {
        let workout = HealthSample(uuid: UUID(), type: .workout, startMs: startMs,
                                   endMs: startMs + Int64(minutes) * 60_000, utcOffsetSeconds: 3600,
                                   value: Double(minutes * 60), unit: "s", sourceName: "Apple Watch",
                                   sourceBundleId: "com.apple.health.watch", deviceName: "Apple Watch",
                                   deviceModel: "Watch6,2")
        var points: [RoutePoint] = []
        for k in 0..<(minutes * 60) {
            let time: Int64 = startMs + Int64(k) * 1000
            let latitude: Double = 48.85 + Double(k + seed) * 1e-5
            let longitude: Double = 2.35 + Double(k) * 2e-5
            let elevation: Double = 35 + Double(k % 9)
            points.append(RoutePoint(timeMs: time, latitude: latitude, longitude: longitude, elevation: elevation,
                                     speed: 2.5, course: 90, horizontalAccuracy: 3, verticalAccuracy: 2))
        }
        let parts = RoutePart.split(points, workout: workout.uuid, file: "/workout-routes/route_\(seed).gpx")
            .compactMap { $0.sample(of: workout) }
        return (workout, parts)
    }

    /// A store with steps, three routed workouts (one an hour long: several parts) and one route of a workout that
    /// is not stored (an unreferenced file's).
    static func store(_ dir: TemporaryDirectory) throws -> (StepStore, [(HealthSample, [HealthSample])], [HealthSample]) {
        let store = try StepStore(path: dir.file("health.sqlite"))
        let day = StoreTestData.origin
        let routed = [Self.routedWorkout(startMs: day + 3_600_000, minutes: 60, seed: 1),
                      Self.routedWorkout(startMs: day + 5 * 86_400_000, minutes: 20, seed: 2),
                      Self.routedWorkout(startMs: day + 9 * 86_400_000, minutes: 30, seed: 3)]
        let orphan = Self.routedWorkout(startMs: day + 5 * 86_400_000 + 600_000, minutes: 10, seed: 4).1
        let samples = StoreTestData.samples(count: 500, spanMs: 10 * Milliseconds.day, seed: 31)
            + routed.flatMap { [$0.0] + $0.1 } + orphan
        #expect(try store.insert(samples).inserted == samples.count)
        #expect(routed[0].1.count > 1)
        return (store, routed, orphan)
    }

    func storedRouteUUIDs(_ store: StepStore) throws -> Set<UUID> {
        Set(try store.samplePage(of: .workoutRoute, in: LayeringEngine.domain, limit: 10_000).map(\.uuid))
    }

    @Test("by uuid: the workout's parts go with it, leave tombstones, and the next layer plans their deletion")
    func byUUID() throws {
        let dir = try TemporaryDirectory()
        let (store, routed, orphan) = try Self.store(dir)
        let first = try store.layer(limits: Self.limits)
        let (workout, parts) = routed[0]

        let summary = try store.deleteSamples(uuids: [workout.uuid])

        #expect(summary.deletedByType == [.workout: 1, .workoutRoute: parts.count] && summary.missing == 0)
        #expect(try storedRouteUUIDs(store) == Set((routed[1].1 + routed[2].1 + orphan).map(\.uuid)))
        let second = try store.layer(limits: Self.limits)
        #expect(second.anchor == first.anchor + 1 + Int64(parts.count))
        let deletions = second.intervals.filter { $0.kind == .deletions }
        #expect(Set(deletions.map(\.type)) == [.workout, .workoutRoute])
        var tombstoned: [UUID] = []
        for interval in deletions where interval.type == .workoutRoute {
            tombstoned += try store.tombstones(of: .workoutRoute, seqAfter: interval.seqAfter,
                                               seqThrough: interval.seqThrough, limit: 100).map(\.uuid)
        }
        #expect(tombstoned.sorted { $0.uuidString < $1.uuidString } == parts.map(\.uuid).sorted { $0.uuidString < $1.uuidString })
        #expect(deletions.filter { $0.type == .workoutRoute }.reduce(0) { $0 + $1.samples } == parts.count)
    }

    @Test("by range, --type workout: the parts go wherever they start; --all-types: counted once")
    func byRange() throws {
        let dir = try TemporaryDirectory()
        let (store, routed, orphan) = try Self.store(dir)
        let day = StoreTestData.origin
        // Day 5 holds workout 2 and the unreferenced route: only workout 2's parts go.
        let range = TimeRange(start: day + 5 * 86_400_000, end: day + 6 * 86_400_000)
        let summary = try store.deleteSamples(of: [.workout], in: range)
        #expect(summary.deletedByType == [.workout: 1, .workoutRoute: routed[1].1.count])
        #expect(try storedRouteUUIDs(store) == Set((routed[0].1 + routed[2].1 + orphan).map(\.uuid)))

        // Every type over days 0–9: the steps, the two workouts and their parts, and the unreferenced route
        // (in the range itself), each once.
        let steps = try store.total(of: .stepCount, in: LayeringEngine.domain).count
        let all = try store.deleteSamples(of: nil, in: TimeRange(start: day, end: day + 10 * 86_400_000))
        #expect(all.deletedByType == [.stepCount: steps, .workout: 2,
                                      .workoutRoute: routed[0].1.count + routed[2].1.count + orphan.count])
        #expect(try storedRouteUUIDs(store).isEmpty)
    }

    @Test("a workout without a route, or a route part deleted alone, touches nothing else")
    func nothingElse() throws {
        let dir = try TemporaryDirectory()
        let (store, routed, _) = try Self.store(dir)
        let before = try storedRouteUUIDs(store)
        let part = routed[2].1[0]
        #expect(try store.deleteSamples(uuids: [part.uuid]).deletedByType == [.workoutRoute: 1])
        #expect(try storedRouteUUIDs(store) == before.subtracting([part.uuid]))
        #expect(try store.samplePage(of: .workout, in: LayeringEngine.domain, limit: 10).count == 3)
    }
}
