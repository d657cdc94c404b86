// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "stepsync",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "stepsync", targets: ["stepsync"]),
        .library(name: "StepSyncCore", targets: ["StepSyncCore"]),
        .library(name: "StepSyncStore", targets: ["StepSyncStore"]),
        .library(name: "StepSyncStorage", targets: ["StepSyncStorage"]),
        .library(name: "StepSyncSink", targets: ["StepSyncSink"]),
        .library(name: "StepSyncEngine", targets: ["StepSyncEngine"]),
        .library(name: "StepSyncImport", targets: ["StepSyncImport"]),
        .library(name: "StepSyncCLI", targets: ["StepSyncCLI"]),
        .library(name: "StepSyncPostgres", targets: ["StepSyncPostgres"]),
        // For Benchmarks/ (a package of its own): the real-PostgreSQL harness and the in-process sink helpers.
        .library(name: "StepSyncTestSupport", targets: ["StepSyncTestSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        // Imported directly by the sink, the engine and the tests (they come with hummingbird and AHC anyway).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // Up to the next minor: the binary COPY passes its format through `copyFrom`'s column names, which relies on
        // how 1.33 builds the statement (`PostgresSampleStorage.binaryCopyColumns`).
        .package(url: "https://github.com/vapor/postgres-nio.git", .upToNextMinor(from: "1.33.2")),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        // TLS: the sink's HTTPS (HummingbirdTLS) and the engine's trust roots (--cacert).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // The sink's `GET /metrics`: swift-metrics' API, swift-prometheus' registry and text format.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // One-file executable: everything else lives in libraries the tests can call.
        .executableTarget(name: "stepsync", dependencies: ["StepSyncCLI", "StepSyncSQLiteSetup"]),

        // The system's SQLite (the one GRDB links), for the one process-wide setting the executable makes before its
        // first open: no allocation statistics, so SQLite's malloc takes no global mutex (Planning/import.md).
        .systemLibrary(name: "StepSyncSQLiteSetup", path: "Sources/StepSyncSQLiteSetup"),

        // Pure logic: models, layering, wire format, retry policy, generator. No I/O, no adapters.
        // SHA-1 for derived uuids from swift-crypto (already built for StepSyncPostgres): Planning/import.md.
        .target(name: "StepSyncCore", dependencies: ["StepSyncZlib", .product(name: "Crypto", package: "swift-crypto")]),

        // The system's zlib (zlib1g-dev), for its CRC-32 (``CRC32``).
        .systemLibrary(name: "StepSyncZlib", path: "Sources/StepSyncZlib"),

        // The sample store (health.sqlite) and the sync-interval ledger, through GRDB.
        .target(name: "StepSyncStore", dependencies: [
            "StepSyncCore",
            .product(name: "GRDB", package: "GRDB.swift"),
            // The SQLite C API, for the bulk inserter's bindings (SampleInserter).
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ]),

        // The sink's storage port: the `SampleStorage` protocol and its values, which the JSONL storage (in the sink)
        // and the PostgreSQL one implement — neither Hummingbird nor the sink.
        .target(name: "StepSyncStorage", dependencies: [
            "StepSyncCore",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),

        // The bundled JSONL sink server (Hummingbird 2).
        .target(name: "StepSyncSink", dependencies: [
            "StepSyncCore",
            "StepSyncStorage",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "CompressNIO", package: "compress-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ], resources: [
            // Compiled into the binary as byte arrays (`PackageResources`), so `stepsync` stays one file: the
            // dashboard page (`GET /`) and the OpenAPI document (`GET /openapi.json`), served byte for byte.
            .embedInCode("Resources/dashboard.html"),
            .embedInCode("Resources/openapi.json"),
        ]),

        // The sink's storage on PostgreSQL (PostgresNIO): many clients, per-client tokens, exactly once by a unique
        // constraint, several sinks on one database.
        .target(name: "StepSyncPostgres", dependencies: [
            "StepSyncCore",
            "StepSyncStorage",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),

        // The sync engine: intervals → raw samples → HTTP (AsyncHTTPClient).
        .target(name: "StepSyncEngine", dependencies: [
            "StepSyncCore",
            "StepSyncStore",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "CompressNIO", package: "compress-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),

        // Apple Health export.zip / export.xml importer (streaming).
        .target(name: "StepSyncImport", dependencies: [
            "StepSyncCore",
            "StepSyncStore",
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
        ]),

        // The command-line interface: one file per subcommand.
        .target(name: "StepSyncCLI", dependencies: [
            "StepSyncCore",
            "StepSyncStore",
            "StepSyncSink",
            "StepSyncEngine",
            "StepSyncImport",
            "StepSyncPostgres",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),

        // A brute-force reference of the daily step totals rule and seeded random cases, for the core, store and
        // end-to-end tests.
        .target(name: "DailyReference", dependencies: ["StepSyncCore"], path: "Tests/DailyReference"),
        // The committed fuzz inputs (`Fuzz/`) and a seeded mutator, for the core's and the importer's replay tests.
        .target(name: "FuzzReplaySupport", dependencies: ["StepSyncCore"], path: "Tests/FuzzReplaySupport"),
        .testTarget(name: "StepSyncCoreTests", dependencies: [
            "StepSyncCore", "StepSyncTestSupport", "DailyReference", "FuzzReplaySupport",
        ]),
        .testTarget(name: "StepSyncStoreTests", dependencies: [
            "StepSyncCore", "StepSyncStore", "StepSyncTestSupport", "DailyReference",
        ]),
        .testTarget(name: "StepSyncSinkTests", dependencies: [
            "StepSyncCore", "StepSyncSink", "StepSyncPostgres", "StepSyncTestSupport", "DailyReference",
            "StepSyncImport", // GPXRoute reads the sink's GPX back; HealthImporter imports a route export
            "StepSyncStore",
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "CompressNIO", package: "compress-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        // Shared by the engine and end-to-end tests: the real sink in process, a fault-injecting front (a small
        // Hummingbird app forwarding with AHC), a store fixture.
        .target(name: "StepSyncTestSupport", dependencies: [
            "StepSyncCore", "StepSyncStore", "StepSyncSink",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ], path: "Tests/StepSyncTestSupport"),
        .testTarget(name: "StepSyncEngineTests", dependencies: [
            "StepSyncCore", "StepSyncStore", "StepSyncEngine", "StepSyncSink", "StepSyncTestSupport",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Against a real PostgreSQL server the tests start (`PostgresHarness`).
        .testTarget(name: "StepSyncPostgresTests", dependencies: [
            "StepSyncCore", "StepSyncStore", "StepSyncSink", "StepSyncPostgres", "StepSyncEngine", "StepSyncCLI",
            "StepSyncTestSupport", "DailyReference",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // Fixtures/: excerpts of real exports and DTDs, each naming its public source.
        .testTarget(name: "StepSyncImportTests", dependencies: [
            "StepSyncCore", "StepSyncStore", "StepSyncImport", "StepSyncTestSupport", "FuzzReplaySupport",
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
        ], resources: [.copy("Fixtures")]),
        .testTarget(name: "EndToEndTests", dependencies: [
            "StepSyncCore", "StepSyncStore", "StepSyncSink", "StepSyncEngine", "StepSyncCLI", "StepSyncTestSupport",
            "StepSyncImport", "DailyReference",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
    ]
)
