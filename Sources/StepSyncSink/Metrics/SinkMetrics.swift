import Prometheus
import StepSyncCore
import Synchronization

/// The sink's figures for `GET /metrics`, in Prometheus' text format (swift-prometheus' registry, one per sink, so
/// that several sinks in one process — the tests — never share counters).
///
/// **Bounded labels.** A label's values are a closed set: routes by their *template* (`/workouts/{uuid}/route`,
/// never a raw path or a uuid; a path no route matches counts as `unmatched`), methods among the standard ones
/// (else `other`), status codes, outcomes, and sample types up to ``maxTypeLabels`` distinct names (then `other`).
/// A stranger's requests therefore cannot grow the registry.
///
/// Names follow Prometheus' conventions: `stepsync_…_total` for counters, `_seconds` for durations, and the
/// process figures under the names every client library uses (`process_resident_memory_bytes`, …).
public final class SinkMetrics: Sendable {
    /// The registry `GET /metrics` emits.
    let registry = PrometheusCollectorRegistry()
    /// The storage label: `jsonl` or `postgresql`.
    let storage: String
    /// When the process started (seconds since 1970).
    let startTimeSeconds: Double
    /// The type names already given a label of their own.
    private let typeLabels = Mutex<Set<String>>([])
    private let inFlight: Gauge

    /// The most distinct sample types labelled by name; later ones count as `other`.
    static let maxTypeLabels = 200
    /// The request-duration histogram's buckets (5 ms … 60 s).
    static let durationBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        .seconds(30), .seconds(60),
    ]
    /// The methods labelled by name.
    private static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]

    /// Figures for a sink over `storage` (`jsonl`, `postgresql`), started at `startTimeSeconds`.
    public init(storage: String, startTimeSeconds: Double) {
        self.storage = storage
        self.startTimeSeconds = startTimeSeconds
        inFlight = registry.makeGauge(descriptor: Self.name("http_requests_in_flight", unit: "",
                                                           "Requests being answered now."))
    }

    // MARK: - Requests

    /// A request began (``requestEnded(route:method:status:duration:)`` follows it).
    func requestStarted() { inFlight.increment() }

    /// A request to `route` (a template, or `nil` for a path no route matches) was answered `status` after
    /// `duration`.
    func requestEnded(route: String?, method: String, status: Int, duration: Duration) {
        inFlight.decrement()
        let route = route ?? "unmatched"
        let method = Self.methods.contains(method) ? method : "other"
        registry.makeCounter(descriptor: Self.name("http_requests", unit: "total", "Requests answered, by route template, method and status."),
                             labels: [("route", route), ("method", method), ("status", "\(status)")]).increment()
        registry.makeDurationHistogram(descriptor: Self.name("http_request_duration", unit: "seconds",
                                                             "Time from a request's head to its answer, by route template."),
                                       labels: [("route", route)], buckets: Self.durationBuckets).record(duration)
    }

    // MARK: - Samples

    /// What one ingest did: `received` samples (by type), of which `inserted` were stored, `replaced` replaced a
    /// stored one and `duplicates` were already stored. The outcomes are labelled with the batch's type when it
    /// holds one type (the sync engine's batches, `/steps`), else `mixed`.
    func recordIngest(types: [SampleType: Int], inserted: Int, replaced: Int = 0, duplicates: Int) {
        for (type, count) in types {
            registry.makeCounter(descriptor: Self.name("samples_received", unit: "total",
                                                       "Samples received in accepted ingests, by type."),
                                 labels: [("storage", storage), ("type", typeLabel(type.rawValue))])
                .increment(by: Int64(count))
        }
        let type = types.count == 1 ? typeLabel(types.keys.first!.rawValue) : "mixed"
        for (outcome, count) in [("inserted", inserted), ("replaced", replaced), ("duplicate", duplicates)] {
            registry.makeCounter(descriptor: Self.samples,
                                 labels: [("storage", storage), ("type", type), ("outcome", outcome)])
                .increment(by: Int64(count))
        }
    }

    /// Points of a Health Auto Export push skipped as unreadable (reason → count), counted as refused samples.
    func recordRefused(_ count: Int) {
        guard count > 0 else { return }
        registry.makeCounter(descriptor: Self.samples,
                             labels: [("storage", storage), ("type", "mixed"), ("outcome", "refused")])
            .increment(by: Int64(count))
    }

    /// One Health Auto Export push accepted, of which `skipped` points were unreadable.
    func recordHealthAutoExport(skipped: Int) {
        registry.makeCounter(descriptor: Self.name("hae_pushes", unit: "total", "Health Auto Export pushes accepted."))
            .increment()
        registry.makeCounter(descriptor: Self.name("hae_points_skipped", unit: "total",
                                                   "Health Auto Export points skipped as unreadable."))
            .increment(by: Int64(skipped))
        recordRefused(skipped)
    }

    // MARK: - Exposition

    /// The text `GET /metrics` answers: the counters so far, with the storage's state, its connection pool (when it
    /// reports one) and the process' figures set now.
    func exposition(health: StorageHealth, pool: StoragePoolFigures?, process: ProcessFigures) -> [UInt8] {
        registry.makeGauge(descriptor: Self.name("storage_degraded", unit: "",
                                                 "1 while the storage refuses writes (503), else 0."),
                           labels: [("storage", storage)]).set(health.isDegraded ? 1.0 : 0.0)
        registry.makeGauge(descriptor: Self.name("storage_disk_full", unit: "",
                                                 "1 while writes fail for want of disk space, else 0."),
                           labels: [("storage", storage)]).set(health.isDiskFull ? 1.0 : 0.0)
        if let pool {
            registry.makeGauge(descriptor: Self.name("postgres_connections_in_use", unit: "",
                                                     "PostgreSQL connections leased by requests now.")).set(Double(pool.inUse))
            registry.makeGauge(descriptor: Self.name("postgres_connections_waiting", unit: "",
                                                     "Requests waiting for a PostgreSQL connection now.")).set(Double(pool.waiting))
            registry.makeGauge(descriptor: Self.name("postgres_connections_max", unit: "",
                                                     "The PostgreSQL pool's largest number of connections.")).set(Double(pool.maximum))
        }
        let processName = { (name: String, unit: String, help: String) in
            MetricNameDescriptor(namespace: "process", metricName: name, unitName: unit, helpText: help)
        }
        if let resident = process.residentBytes {
            registry.makeGauge(descriptor: processName("resident_memory", "bytes", "Resident memory size in bytes."))
                .set(Double(resident))
        }
        if let descriptors = process.openDescriptors {
            registry.makeGauge(descriptor: processName("open_fds", "", "Number of open file descriptors.")).set(Double(descriptors))
        }
        if let limit = process.maxDescriptors {
            registry.makeGauge(descriptor: processName("max_fds", "", "Maximum number of open file descriptors.")).set(Double(limit))
        }
        registry.makeGauge(descriptor: processName("start_time", "seconds", "Start time of the process since unix epoch in seconds."))
            .set(startTimeSeconds)
        return registry.emitToBuffer()
    }

    /// The label of type `name`: itself while fewer than ``maxTypeLabels`` names have one, else `other`.
    private func typeLabel(_ name: String) -> String {
        typeLabels.withLock { labels in
            if labels.contains(name) { return name }
            guard labels.count < Self.maxTypeLabels else { return "other" }
            labels.insert(name)
            return name
        }
    }

    /// `stepsync_samples_total`, counted by ingests and by Health Auto Export's skipped points.
    private static var samples: MetricNameDescriptor {
        name("samples", unit: "total", """
            Samples of accepted ingests by outcome (inserted, replaced, duplicate; refused: points of a Health Auto \
            Export push skipped as unreadable), storage and type (mixed: a batch of several types).
            """)
    }

    private static func name(_ metric: String, unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "stepsync", metricName: metric, unitName: unit, helpText: help)
    }
}
