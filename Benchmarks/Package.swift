// swift-tools-version: 6.1
// The benchmarks are a package of their own (as in Hummingbird's repository), so that `swift build` and
// `swift test` of stepsync never build package-benchmark. Run them from this folder:
//   swift package --disable-sandbox benchmark            (all)
//   swift package --disable-sandbox benchmark --target StoreBenchmarks
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its folder, so the root package's identity is whatever the checkout is
// called (`stepsync`, `main`, a worktree's name): read it from this file's location.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let benchmarkDependencies: [Target.Dependency] = [
    .product(name: "Benchmark", package: "benchmark"),
    .product(name: "StepSyncCore", package: root),
    .product(name: "StepSyncStore", package: root),
    .product(name: "StepSyncSink", package: root),
    .product(name: "StepSyncEngine", package: root),
    .product(name: "StepSyncImport", package: root),
    .product(name: "ZIPFoundation", package: "ZIPFoundation"),  // ImportBenchmarks writes its export.zip
    "Issue14Support",  // the figures issue14.sh gathers into issue 14's table
]

let package = Package(
    name: "stepsync-benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(name: "Issue14Support", path: "Sources/Issue14Support"),
    ] + ["StoreBenchmarks", "LayeringBenchmarks", "SinkBenchmarks", "SyncBenchmarks", "ImportBenchmarks",
         "IncrementalBenchmarks", "DailyBenchmarks"].map {
        .executableTarget(
            name: $0,
            dependencies: benchmarkDependencies,
            path: "Benchmarks/\($0)",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    } + [
        // `stepsync demo --types steps` in process, for its peak memory (issue 14's last row).
        .executableTarget(
            name: "DemoBenchmarks",
            dependencies: benchmarkDependencies + [.product(name: "StepSyncCLI", package: root)],
            path: "Benchmarks/DemoBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Starts a PostgreSQL server of its own (StepSyncTestSupport's harness; the server binaries must be installed).
        .executableTarget(
            name: "PostgresBenchmarks",
            dependencies: benchmarkDependencies + [
                .product(name: "StepSyncPostgres", package: root),
                .product(name: "StepSyncTestSupport", package: root),
            ],
            path: "Benchmarks/PostgresBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
