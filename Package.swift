// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "CacheWorkbench",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "bench", targets: ["bench"]),
        .library(name: "CacheWorkbench", targets: ["CacheWorkbench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        // System libraries (scripts/bootstrap installs their -dev packages).
        .systemLibrary(name: "CJemalloc", pkgConfig: "jemalloc", providers: [.apt(["libjemalloc-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
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
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .executableTarget(
            name: "bench",
            dependencies: [
                "CacheWorkbench",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "CacheWorkbenchTests",
            dependencies: ["CacheWorkbench", "bench"]
        ),
    ]
)
