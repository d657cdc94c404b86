import Benchmark

let benchmarks: @Sendable () -> Void = {
    // Filled in by the issue that owns this area.
}
