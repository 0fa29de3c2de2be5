// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "CacheWorkbench",
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .executable(name: "bench", targets: ["bench"]),
        .library(name: "CacheWorkbench", targets: ["CacheWorkbench"]),
        // The whole command line as a library: a cache author's own executable runs it with
        // their backends registered (`BenchCommandLine.main(extraBackends:)`, Examples/CustomBackend).
        .library(name: "BenchCLI", targets: ["BenchCLI"]),
        // What an app links to record its image lookups, URLSession traffic and lifecycle
        // events (docs/recorder.md). Foundation alone: an app pulls in nothing else.
        .library(name: "CacheTraceRecorder", targets: ["CacheTraceRecorder"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // `swift package generate-documentation` (docs/api.md); used only when asked.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // System libraries (scripts/bootstrap installs their -dev packages).
        .systemLibrary(name: "CJemalloc", pkgConfig: "jemalloc", providers: [.apt(["libjemalloc-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // SHA-256 (trace checksum, plan identities, `files` entry names): the system's libcrypto
        // instead of swift-crypto's BoringSSL copy, which cost the clean build minutes.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // jemalloc options compiled into every binary that links the library.
        .target(name: "CJemallocConfig"),
        // A cache-line prefetch hint for the memory backends' hot paths.
        .target(name: "CPrefetch"),
        // Disk I/O counters and the counting SQLite VFS shim.
        .target(name: "CDiskIO", dependencies: ["CSQLite"]),
        // The library, one module per stage (docs/design.md, "Modules"): each may import only
        // the modules listed, so the compiler checks the data flow. Folders under
        // Sources/CacheWorkbench/ are the modules' sources.
        // Request, capacities, costs, errors, the output-file rules: what every stage speaks.
        .target(name: "WorkbenchCore", dependencies: ["CCrypto"], path: "Sources/CacheWorkbench/Core"),
        // Clocks, latency histograms, the memory and process probes.
        .target(
            name: "WorkbenchMetrics",
            dependencies: ["CJemalloc", "CJemallocConfig", .product(name: "Histogram", package: "hdrhistogram-swift")],
            path: "Sources/CacheWorkbench/Metrics"
        ),
        // The trace readers, writers and generators: a reader can't see a backend.
        .target(
            name: "WorkbenchTraces",
            dependencies: ["WorkbenchCore", "WorkbenchMetrics"],
            path: "Sources/CacheWorkbench/Traces"
        ),
        // HTTP freshness, profiles, request policies and the http-check.
        .target(
            name: "WorkbenchHTTP",
            dependencies: ["WorkbenchCore", "WorkbenchTraces", "WorkbenchMetrics"],
            path: "Sources/CacheWorkbench/HTTP"
        ),
        // The payload backends and the CacheBackend protocol: no Metrics (a backend never
        // measures itself; its I/O counters are its own, DiskIOProbe), no replay loop.
        .target(
            name: "WorkbenchBackends",
            dependencies: ["WorkbenchCore", "WorkbenchTraces", "CPrefetch", "CDiskIO", "CSQLite"],
            path: "Sources/CacheWorkbench/Backends"
        ),
        // The replay loop, the policy simulators, the admission filters, their id index and
        // intrusive lists, the curves: one module, so the loop is specialized for every
        // simulator and inlined across files as before the split.
        .target(
            name: "WorkbenchSimulation",
            dependencies: [
                "WorkbenchCore", "WorkbenchMetrics", "WorkbenchTraces", "WorkbenchHTTP", "WorkbenchBackends", "CPrefetch",
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            path: "Sources/CacheWorkbench",
            // The other stages' folders are other modules' sources, not files this one forgot.
            exclude: [
                "Core", "Metrics", "Traces", "HTTP", "Backends", "Reports", "Commands", "Experiments", "CacheWorkbench.swift",
                "CacheWorkbench.docc",
            ],
            sources: ["Admission", "Prefetch", "Policies", "Replay", "Analysis"]
        ),
        // Tables, CSV and JSON rows, notes, journals, charts: what a finished row becomes. Above
        // the simulation (it formats `RunResult`), below the commands that write through it, so a
        // change here recompiles neither the replay loop nor the simulators.
        .target(
            name: "WorkbenchReports",
            dependencies: [
                "WorkbenchCore", "WorkbenchMetrics", "WorkbenchTraces", "WorkbenchHTTP", "WorkbenchBackends",
                "WorkbenchSimulation",
            ],
            path: "Sources/CacheWorkbench/Reports"
        ),
        // What `bench run`, `sweep`, `mrc` and `analyze` do, start to end: options checked, the
        // trace's facts taken, the replays run (fanned out or not), rows streamed and reported.
        .target(
            name: "WorkbenchCommands",
            dependencies: [
                "WorkbenchCore", "WorkbenchMetrics", "WorkbenchTraces", "WorkbenchHTTP", "WorkbenchBackends",
                "WorkbenchSimulation", "WorkbenchReports",
            ],
            path: "Sources/CacheWorkbench/Commands"
        ),
        // The packaged experiments (similar keys, purge, blob size).
        .target(
            name: "WorkbenchExperiments",
            dependencies: [
                "WorkbenchCore", "WorkbenchMetrics", "WorkbenchTraces", "WorkbenchHTTP", "WorkbenchBackends",
                "WorkbenchSimulation", "WorkbenchReports", .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "Sources/CacheWorkbench/Experiments"
        ),
        // `import CacheWorkbench`: every stage's public API (Sources/CacheWorkbench/CacheWorkbench.swift).
        .target(
            name: "CacheWorkbench",
            dependencies: [
                "WorkbenchCore", "WorkbenchMetrics", "WorkbenchTraces", "WorkbenchHTTP", "WorkbenchBackends",
                "WorkbenchSimulation", "WorkbenchReports", "WorkbenchCommands", "WorkbenchExperiments",
            ],
            exclude: [
                "Core", "Metrics", "Traces", "HTTP", "Backends", "Admission", "Prefetch", "Policies", "Replay", "Analysis", "Reports", "Commands",
                "Experiments",
            ]
        ),
        // The commands (Sources/bench: parsing and printing only, no logic).
        .target(
            name: "BenchCLI",
            dependencies: [
                "CacheWorkbench",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/bench"
        ),
        // The `bench` executable: BenchCLI with the built-in backends.
        .executableTarget(name: "bench", dependencies: ["BenchCLI"], path: "Sources/BenchMain"),
        // The recorder: no dependency at all (Foundation only), so an iOS app can link it.
        .target(name: "CacheTraceRecorder"),
        .testTarget(name: "CacheTraceRecorderTests", dependencies: ["CacheTraceRecorder"]),
        .testTarget(
            name: "CacheWorkbenchTests",
            dependencies: [
                "CacheWorkbench", "WorkbenchCore", "WorkbenchMetrics", "WorkbenchTraces", "WorkbenchHTTP",
                "WorkbenchBackends", "WorkbenchSimulation", "WorkbenchReports", "WorkbenchCommands", "WorkbenchExperiments", "bench",
            ]
        ),
    ]
)
