// swift-tools-version: 6.1
// A stand-in for an iOS app, recorded with CacheTraceRecorder: `image-server` serves real
// PNG and JPEG images on 127.0.0.1; `recording-app` fetches them through a URLSession with
// the network recorder, keeps them in its own small LRU memory cache and records every
// lookup (docs/recorder.md). It links only the recorder product of the workbench (two levels
// up): its build compiles no SQLite, jemalloc or crypto.
import PackageDescription

let package = Package(
    name: "RecordingApp",
    platforms: [.macOS(.v15), .iOS(.v16)],
    dependencies: [
        .package(name: "CacheWorkbench", path: "../.."),
    ],
    targets: [
        .executableTarget(name: "image-server"),
        .executableTarget(
            name: "recording-app",
            dependencies: [.product(name: "CacheTraceRecorder", package: "CacheWorkbench")]
        ),
    ]
)
