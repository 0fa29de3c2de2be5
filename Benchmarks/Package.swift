// swift-tools-version: 6.1
// The workbench's benchmark suite (ordo-one/benchmark), a package of its own so that the
// README's two commands never build it. Run from this folder:
//   swift package benchmark                      # run and print
//   swift package benchmark baseline check main  # fail on a regression against the stored baseline
import Foundation
import PackageDescription

// A path dependency is named after its folder, whatever a clone calls it.
let workbench = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "CacheWorkbenchBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Minimal replay loops per policy family and a minimal exact LRU curve: the machine's
        // practical limit (issue 23).
        .target(name: "CMinimalPrefetch", path: "Sources/CMinimalPrefetch"),
        .target(name: "MinimalLoops", dependencies: ["CMinimalPrefetch"], path: "Sources/MinimalLoops"),
        // The same loops over an oracleGeneral file, for callgrind and side-by-side timings.
        .executableTarget(name: "minimal-loop", dependencies: ["MinimalLoops"], path: "Sources/minimal-loop"),
        .executableTarget(
            name: "Workbench",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "CacheWorkbench", package: workbench),
                "MinimalLoops",
            ],
            path: "Benchmarks/Workbench",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
