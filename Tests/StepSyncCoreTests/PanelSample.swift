import Foundation
import StepSyncCore

/// A sample for the panel tests: `type` from `start` to `end` (ISO-8601 with offset) with `value`.
func panelSample(_ type: SampleType, _ start: String, _ end: String? = nil, _ value: Double, unit: String = "count/min",
                 source: String = "Apple Watch", details: String? = nil, uuid: UUID = UUID()) -> HealthSample {
    HealthSample(uuid: uuid, type: type, startMs: t(start), endMs: t(end ?? start), value: value, unit: unit,
                 sourceName: source, sourceBundleId: "com.apple.health.test", details: details)
}
