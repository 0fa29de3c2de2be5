import WorkbenchReports
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import WorkbenchSimulation
import Foundation

/// SQLite blobs against one file per blob, by blob size: for each size, write `count`
/// blobs, then read `reads` of them at random (seeded), through the real `sqlite` backend
/// (all bodies inline) and the `files` backend, each in a fresh temporary folder. The
/// outside reference is SQLite's "Internal Versus External BLOBs" study: the database is
/// faster for small blobs and the files above roughly 50–100 KB at 4 KiB pages.
///
/// Both stores run at one `Durability`: `none` by default (no fsync at all), so writes
/// compare the stores rather than the device; `sync` runs both at `full` (each store on
/// storage when it returns).
public struct BlobSizeExperiment {
    public struct Row: Sendable {
        public var backend: String
        public var blobBytes: Int
        public var blobs: Int
        public var reads: Int
        public var writeMicroseconds: Double
        public var readMicroseconds: Double
        public var writeAmplification: Double
        public var footprintBytes: Int
        public var spaceAmplification: Double
        public var fsyncs: Int
    }

    public static let defaultSizes = [1, 4, 10, 20, 50, 100, 1024].map { $0 * 1024 }
    public static let backends = ["sqlite", "files"]

    public var sizes: [Int]
    /// Blobs written per size, at most `maxBytes` worth (so the 1 MiB point stays affordable).
    public var count: Int
    public var maxBytes: Int
    public var reads: Int
    public var sync: Bool
    public var seed: UInt64
    /// sqlite's page size and mmap size (0 = no memory map).
    public var pageSize = 4096
    public var mmapSize = 0

    public init(sizes: [Int] = defaultSizes, count: Int = 2_000, maxBytes: Int = 256 << 20, reads: Int = 4_000, sync: Bool = false, seed: UInt64 = 1) {
        self.sizes = sizes
        self.count = count
        self.maxBytes = maxBytes
        self.reads = reads
        self.sync = sync
        self.seed = seed
    }

    /// The experiment with its sizes written as text (`1KiB,4KiB`, `256MiB`, `1GiB`).
    public init(sizes: String, count: Int, maxBytes: String, reads: Int, sync: Bool, seed: UInt64, pageSize: Int, mmapSize: String) throws {
        func size(_ text: String, _ option: String) throws -> Int {
            guard let bytes = Capacity.bytes(parsing: text) else { throw WorkbenchError("\(option) takes sizes such as 4KiB or 1GiB, not '\(text)'") }
            return bytes
        }
        let blobSizes = try sizes.split(separator: ",").map { try size(String($0), "--sizes") }
        guard !blobSizes.isEmpty, !blobSizes.contains(0) else { throw WorkbenchError("--sizes takes sizes above 0, such as 1KiB,4KiB") }
        guard let largest = blobSizes.max(), largest <= SizeLimits.largestDiskBody else {
            throw WorkbenchError("--sizes: a blob is at most 1GiB (the largest body the disk backends write)")
        }
        let budget = try size(maxBytes, "--max-bytes")
        guard budget >= largest else { throw WorkbenchError("--max-bytes (\(maxBytes)) must be at least the largest blob size (\(ByteCount.format(largest)))") }
        guard (1...10_000_000).contains(count) else { throw WorkbenchError("--count must be from 1 to 10000000, not \(count)") }
        guard (1...100_000_000).contains(reads) else { throw WorkbenchError("--reads must be from 1 to 100000000, not \(reads)") }
        guard (512...65536).contains(pageSize), pageSize & (pageSize - 1) == 0 else { throw WorkbenchError("--page-size must be a power of two from 512 to 65536, not \(pageSize)") }
        self.init(sizes: blobSizes, count: count, maxBytes: try size(maxBytes, "--max-bytes"), reads: reads, sync: sync, seed: seed)
        self.pageSize = pageSize
        self.mmapSize = try size(mmapSize, "--mmap-size")
    }

    public func run(progress: (String) -> Void = { _ in }) throws -> [Row] {
        var rows: [Row] = []
        for size in sizes {
            let blobs = max(1, min(count, maxBytes / size))
            let requests = (0..<blobs).map { Request(time: Double($0), key: "https://cdn.example/blob/\(size)/\($0)", size: size) }
            for name in Self.backends {
                progress("\(name): \(ByteCount.format(size)) × \(blobs)")
                rows.append(try measure(name, size: size, requests: requests))
            }
        }
        return rows
    }

    private func measure(_ name: String, size: Int, requests: [Request]) throws -> Row {
        let disk = DiskRunOptions()
        let folder = try disk.folder(for: name)
        defer { disk.release(folder) }
        let probe = DiskIOProbe()
        let durability = (sync ? Durability.full : Durability.none).rawValue
        let options = name == "sqlite"
            ? ["inline-limit": "inf", "durability": durability, "page-size": String(pageSize), "mmap-size": String(mmapSize)]
            : ["durability": durability]
        let backend = try BackendRegistry.named(name).make(BackendConfig(
            capacityBytes: Int.max / 2, seed: seed, options: options, disk: DiskContext(directory: folder.path, probe: probe)))
        let payloads = try requests.map { try Payload(contentFor: $0.keyText, byteCount: $0.size) }
        var started = MonotonicClock.now()
        for (request, payload) in zip(requests, payloads) { try backend.set(request, cost: request.size, payload: payload) }
        let writeNanoseconds = MonotonicClock.now() - started
        var random = SeededRandom(seed: seed)
        let order = (0..<reads).map { _ in requests[Int(random.next() % UInt64(requests.count))] }
        started = MonotonicClock.now()
        for request in order where try !backend.get(request) {
            throw WorkbenchError("blob-size: \(name) lost '\(request.keyText)'")
        }
        let readNanoseconds = MonotonicClock.now() - started
        try backend.close()
        let logical = size * requests.count
        let footprint = DiskFootprint.allocatedBytes(under: folder.path)
        return Row(
            backend: name, blobBytes: size, blobs: requests.count, reads: reads,
            writeMicroseconds: Double(writeNanoseconds) / 1e3 / Double(requests.count),
            readMicroseconds: Double(readNanoseconds) / 1e3 / Double(reads),
            writeAmplification: Double(probe.totals.totalWriteBytes) / Double(logical),
            footprintBytes: footprint, spaceAmplification: Double(footprint) / Double(logical), fsyncs: probe.totals.totalSyncs)
    }

    /// The smallest size from which files read clearly faster than SQLite (by at least 10%,
    /// more than run-to-run noise) at every size measured above it too, or nil.
    public static func readCrossover(_ rows: [Row]) -> Int? {
        let sizes = Array(Set(rows.map(\.blobBytes))).sorted()
        func filesFaster(_ size: Int) -> Bool? {
            guard let sqlite = rows.first(where: { $0.backend == "sqlite" && $0.blobBytes == size }),
                  let files = rows.first(where: { $0.backend == "files" && $0.blobBytes == size }) else { return nil }
            return files.readMicroseconds < 0.9 * sqlite.readMicroseconds
        }
        var crossover: Int?
        for size in sizes {
            if filesFaster(size) == true { crossover = crossover ?? size } else { crossover = nil }
        }
        return crossover
    }

    public static func table(_ rows: [Row]) -> String {
        var text = "backend  blob       blobs  write µs   read µs  write amp  on disk      space amp  fsyncs\n"
        for row in rows {
            let cells = [
                row.backend.padding(7), ByteCount.format(row.blobBytes).padding(9, left: true), String(row.blobs).padding(6, left: true),
                String(format2: row.writeMicroseconds).padding(9, left: true), String(format2: row.readMicroseconds).padding(9, left: true),
                (String(format2: row.writeAmplification) + "×").padding(10, left: true), ByteCount.format(row.footprintBytes).padding(12, left: true),
                (String(format2: row.spaceAmplification) + "×").padding(10, left: true), String(row.fsyncs).padding(7, left: true),
            ]
            text += cells.joined(separator: "  ") + "\n"
        }
        if let crossover = readCrossover(rows) {
            text += "\nreads: files at least 10% faster from \(ByteCount.format(crossover)) up\n"
        } else {
            text += "\nreads: files never at least 10% faster than SQLite at every larger size\n"
        }
        return text
    }

    public static func csv(_ rows: [Row], environment: RunEnvironment) -> String {
        var text = "backend,blob_bytes,blobs,reads,write_us,read_us,write_amplification,disk_footprint_bytes,space_amplification,fsyncs,git_rev,swift_version\n"
        for row in rows {
            text += "\(CSVReport.escape(row.backend)),\(row.blobBytes),\(row.blobs),\(row.reads),\(row.writeMicroseconds),\(row.readMicroseconds),"
            text += "\(row.writeAmplification),\(row.footprintBytes),\(row.spaceAmplification),\(row.fsyncs),"
            text += "\(CSVReport.escape(environment.gitRevision)),\(CSVReport.escape(environment.swiftVersion))\n"
        }
        return text
    }
}
