// swift-tools-version: 6.1
// The benchmarks are a package of their own (as in Hummingbird's repository), so that `swift build` and
// `swift test` of stepsync never build package-benchmark. Run them from this folder:
//   swift package --disable-sandbox benchmark            (all)
//   swift package --disable-sandbox benchmark --target StoreBenchmarks
import PackageDescription

let benchmarkDependencies: [Target.Dependency] = [
    .product(name: "Benchmark", package: "benchmark"),
    .product(name: "StepSyncCore", package: "stepsync"),
    .product(name: "StepSyncStore", package: "stepsync"),
    .product(name: "StepSyncSink", package: "stepsync"),
    .product(name: "StepSyncEngine", package: "stepsync"),
    .product(name: "StepSyncImport", package: "stepsync"),
]

let package = Package(
    name: "stepsync-benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "stepsync", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: ["StoreBenchmarks", "LayeringBenchmarks", "SinkBenchmarks", "SyncBenchmarks", "ImportBenchmarks"].map {
        .executableTarget(
            name: $0,
            dependencies: benchmarkDependencies,
            path: "Benchmarks/\($0)",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    }
)
