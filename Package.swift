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
        .target(
            name: "CacheWorkbench",
            dependencies: [
                "CJemalloc",
                "CJemallocConfig",
                "CPrefetch",
                "CDiskIO",
                "CSQLite",
                "CCrypto",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "HeapModule", package: "swift-collections"),
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
            dependencies: ["CacheWorkbench", "bench"]
        ),
    ]
)
