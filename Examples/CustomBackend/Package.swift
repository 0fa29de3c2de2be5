// swift-tools-version: 6.1
// A cache of one's own, benchmarked with the workbench's full command line: no fork, no
// edit of the workbench. Depends on the workbench by path (this repository, two levels up).
import PackageDescription

let package = Package(
    name: "CustomBackend",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "CacheWorkbench", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "mybench",
            dependencies: [
                .product(name: "BenchCLI", package: "CacheWorkbench"),
                .product(name: "CacheWorkbench", package: "CacheWorkbench"),
            ]
        ),
    ]
)
