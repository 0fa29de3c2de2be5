import Crypto
import Foundation

/// A file-per-entry disk cache as SDWebImage, Kingfisher and Nuke keep one: each body is a
/// file named by the hex SHA-256 of its key (Kingfisher's digest; never the key itself, so
/// a key such as `../../etc/x` cannot leave the folder), written atomically (temporary
/// file + rename), optionally fsynced. Sizes and access times are kept in memory, so no
/// operation lists the folder. Over capacity, an LRU sweep removes the least recently
/// read until the total is at most `sweep-target` of capacity (0.5 as SDWebImage and
/// Kingfisher; Nuke uses 0.7). Entries older than `max-age` seconds of trace time count
/// as misses and go. A read does not write (SDWebImage's default expiry is by
/// modification date; Kingfisher touches the file, which this model does not).
///
/// `close()` writes `.manifest` (one line per entry) so a later run can reopen the folder
/// warm; without it a reopened folder starts empty and its stray files are removed.
///
/// Complexity: get O(1) + one file read; set O(1) + one file write, plus one unlink per
/// evicted entry.
public final class FileStore: CacheBackend {
    public static let needsKeyNames = true
    public static let holdsPayloads = false
    public static let storesBytes = true
    static let name = "files"
    static let manifestName = ".manifest"

    public let capacity: Int
    public let sweepTarget: Double
    public let maxAge: Double?
    public let fsync: Bool
    private let directory: String
    private let files: CountingFiles
    private let verify: Bool
    private var index = DiskEntryIndex()
    private var readBuffer: [UInt8] = []
    private var evictions = 0

    public init(_ config: BackendConfig) throws {
        let disk = try config.diskContext(for: Self.name)
        capacity = config.capacityBytes
        sweepTarget = try config.fraction("sweep-target", default: 0.5)
        fsync = try config.flag("fsync", default: false)
        if let text = config.options["max-age"] {
            guard let seconds = Double(text), seconds > 0 else {
                throw WorkbenchError("max-age must be a number of seconds above 0, not '\(text)'")
            }
            maxAge = seconds
        } else {
            maxAge = nil
        }
        directory = disk.directory
        verify = disk.verify
        files = CountingFiles(backend: Self.name, probe: disk.probe)
        try files.makeDirectory(directory)
        try reopen()
    }

    public var settings: String {
        "sweep-target=\(sweepTarget);fsync=\(fsync ? "on" : "off");max-age=\(maxAge.map { String($0) } ?? "none")"
    }

    public var facts: BackendFacts { BackendFacts(entries: index.count, accountedBytes: index.totalBytes, evictions: evictions) }

    static func fileName(for key: String) -> String {
        var key = key
        return key.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)).withUnsafeBytes { HexText.encode($0) } }
    }

    private func path(_ fileName: String) -> String { directory + "/" + fileName }

    public func get(_ request: Request) throws -> Bool {
        let key = request.keyText
        guard let entry = index.lookup(key) else { return false }
        if let maxAge, request.time - entry.stored > maxAge {
            try drop(entry)
            return false
        }
        let filePath = path(entry.fileName!)
        guard try files.read(filePath, into: &readBuffer) else {
            index.remove(key)  // removed behind our back: a miss
            return false
        }
        if verify {
            let intact = readBuffer.count == entry.size && readBuffer.withUnsafeBytes { PayloadContent.matches($0, key: key) }
            guard intact else { throw DiskError(backend: Self.name, path: filePath, reason: "verify: the body read back is not the one stored for '\(key)'") }
        }
        index.touch(key, at: request.time)
        return true
    }

    public func set(_ request: Request, cost: Int, payload: Payload?) throws {
        let key = request.keyText
        let body = payload ?? Payload(contentFor: key, byteCount: cost)
        let fileName = Self.fileName(for: key)
        try files.writeAtomically(path(fileName), body.bytes, fsync: fsync)
        index.upsert(.init(key: key, size: body.byteCount, stored: request.time, lastAccess: request.time, rowID: 0, fileName: fileName))
        guard index.totalBytes > capacity else { return }
        let target = Int(Double(capacity) * sweepTarget)
        while index.totalBytes > target, let oldest = index.oldest {
            try drop(oldest)
            evictions += 1
        }
    }

    private func drop(_ entry: DiskEntryIndex.Entry) throws {
        try files.remove(path(entry.fileName!))
        index.remove(entry.key)
    }

    public func remove(_ request: Request) throws {
        if let entry = index.lookup(request.keyText) { try drop(entry) }
    }

    /// Disk caches keep their files on a memory warning.
    public func didReceiveMemoryWarning() -> Int { 0 }

    public func close() throws {
        var text = ""
        for entry in index.fromOldest {
            text += "\(entry.size)\t\(entry.stored)\t\(entry.lastAccess)\t\(HexText.encode(entry.key.utf8))\n"
        }
        try Data(text.utf8).withUnsafeBytes { try files.writeAtomically(path(Self.manifestName), $0, fsync: fsync, kind: .other) }
    }

    /// Loads `.manifest` if present; entries whose file is gone are dropped, and files no
    /// entry names are removed (a crash between a write and the manifest).
    private func reopen() throws {
        let manifestPath = path(Self.manifestName)
        var bytes: [UInt8] = []
        let known = try files.read(manifestPath, into: &bytes)
        var named: Set<String> = []
        if known {
            for (number, line) in String(decoding: bytes, as: UTF8.self).split(separator: "\n").enumerated() {
                let fields = line.split(separator: "\t")
                guard fields.count == 4, let size = Int(fields[0]), let stored = Double(fields[1]),
                      let access = Double(fields[2]), let key = HexText.decode(fields[3]).map({ String(decoding: $0, as: UTF8.self) }) else {
                    throw DiskError(backend: Self.name, path: "\(manifestPath):\(number + 1)", reason: "malformed manifest line")
                }
                let fileName = Self.fileName(for: key)
                guard files.exists(path(fileName)) else { continue }
                index.upsert(.init(key: key, size: size, stored: stored, lastAccess: access, rowID: 0, fileName: fileName))
                named.insert(fileName)
            }
        }
        let present = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for file in present where file != Self.manifestName && !named.contains(file) { try files.remove(path(file)) }
    }
}
