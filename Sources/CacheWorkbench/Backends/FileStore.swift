import WorkbenchCore
import WorkbenchTraces
import Foundation

/// A file-per-entry disk cache as SDWebImage, Kingfisher and Nuke keep one: each body is a
/// file named by the hex SHA-256 of its key (Kingfisher's digest; never the key itself, so
/// a key such as `../../etc/x` cannot leave the folder), written atomically (temporary
/// file + rename), synced as `durability` says (`Durability`: none by default; `fsync=on`
/// is the older spelling of `consistent`). Sizes and access times are kept in memory, so no
/// operation lists the folder. Over capacity, an LRU sweep removes the least recently
/// read until the total is at most `sweep-target` of capacity (0.5 as SDWebImage and
/// Kingfisher; Nuke uses 0.7). Entries older than `max-age` seconds of trace time count
/// as misses and go. A read does not write (SDWebImage's default expiry is by
/// modification date; Kingfisher touches the file, which this model does not).
///
/// The folder is claimed first (`CacheFolder`: new, empty or marked by the workbench, and
/// locked), so no file the workbench did not make is ever read, written or removed.
/// `close()` writes `.manifest` (one line per entry) so a later run can reopen the folder
/// warm; every manifest line is validated (sizes within the body limit, times finite, a
/// regular file of that size present), and without a manifest a reopened folder starts
/// empty. Only files of the store's own name shapes (digests, their `.tmp`) are ever
/// removed, and only regular files with one name: a reopen that finds anything else at
/// such a name fails with its path and removes nothing. A store makes room before it
/// writes, and a reopened folder over capacity is swept at once, so a run after a full
/// disk at a smaller capacity recovers.
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
    /// `max-age-from=access`: an entry's age counts from its last read (Kingfisher extends
    /// an entry's expiry on each read), not from its write.
    public let ageFromAccess: Bool
    /// How durable each store is before `set` returns (`Durability`).
    public let durability: Durability
    private let directory: String
    private let folder: CacheFolder
    private let files: CountingFiles
    private let verify: Bool
    /// Hits whose body `verify` checked (BackendDetails.verifiedHits).
    private var verifiedHits = 0
    private var index = DiskEntryIndex()
    private var readBuffer: [UInt8] = []
    private var evictions = 0

    public init(_ config: BackendConfig) throws {
        let disk = try config.diskContext(for: Self.name)
        capacity = config.capacityBytes
        sweepTarget = try config.fraction("sweep-target", default: 0.5)
        durability = try config.durability(legacy: "fsync") { _ in try config.flag("fsync", default: false) ? .consistent : .none }
        if let text = config.options["max-age"] {
            guard let seconds = Double(text), seconds > 0 else {
                throw WorkbenchError("max-age must be a number of seconds above 0, not '\(text)'")
            }
            maxAge = seconds
        } else {
            maxAge = nil
        }
        ageFromAccess = try config.choice("max-age-from", ["write", "access"]) == "access"
        directory = disk.directory
        verify = disk.verify
        files = CountingFiles(backend: Self.name, probe: disk.probe)
        folder = try CacheFolder.claim(directory, backend: Self.name)
        try reopen()
    }

    public var settings: String {
        "sweep-target=\(sweepTarget);durability=\(durability.rawValue);max-age=\(maxAge.map { String($0) } ?? "none")"
            + (ageFromAccess ? ";max-age-from=access" : "")
    }

    public var facts: BackendFacts { BackendFacts(entries: index.count, accountedBytes: index.totalBytes, evictions: evictions) }

    public var details: BackendDetails {
        var details = BackendDetails()
        details.durability = durability
        details.verifiedHits = verify ? verifiedHits : nil
        return details
    }

    static func fileName(for key: String) -> String {
        SHA256Digest.hex(key)
    }

    private func path(_ fileName: String) -> String { directory + "/" + fileName }

    public func get(_ request: Request) throws -> Bool {
        let key = request.keyText
        guard let entry = index.lookup(key) else { return false }
        if let maxAge, request.time - (ageFromAccess ? entry.lastAccess : entry.stored) > maxAge {
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
            verifiedHits += 1
        }
        index.touch(key, at: request.time)
        return true
    }

    public func set(_ request: Request, cost: Int, payload: Payload?) throws {
        let key = request.keyText
        let body = try payload ?? Payload(contentFor: key, byteCount: cost)
        let fileName = Self.fileName(for: key)
        // Make room before writing (a full disk then frees space first): over capacity with
        // the new body, sweep the least recently read down to the target.
        index.remove(key)  // a replaced body: its file is renamed over below
        if index.totalBytes + body.byteCount > capacity { try sweep(making: body.byteCount) }
        try files.writeAtomically(path(fileName), body.bytes, fsync: durability.syncsBodies, syncFolder: durability.syncsFolder)
        index.upsert(.init(key: key, size: body.byteCount, stored: request.time, lastAccess: request.time, rowID: 0, fileName: fileName))
    }

    /// Removes the least recently read entries until the store plus `incoming` bytes is
    /// within `sweep-target` of capacity.
    private func sweep(making incoming: Int) throws {
        let target = Int((Double(capacity) * sweepTarget).rounded(.down))
        while let oldest = index.oldest, index.totalBytes + incoming > target {
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
        defer { folder.release() }
        var text = ""
        for entry in index.fromOldest {
            text += "\(entry.size)\t\(entry.stored)\t\(entry.lastAccess)\t\(HexText.encode(entry.key.utf8))\n"
        }
        try Data(text.utf8).withUnsafeBytes { try files.writeAtomically(path(Self.manifestName), $0, fsync: durability.syncsBodies, syncFolder: durability.syncsFolder, kind: .other) }
    }

    /// Checks every file of the store's own name shapes first: anything but a regular file
    /// with one name (a FIFO, link, folder, device, hard link) fails the run with its path,
    /// before anything is read or removed, so the folder stays as it was (a removal met
    /// halfway would already have taken the manifest, and the next run would start cold
    /// and delete valid bodies). Then loads `.manifest` if present, validating every line;
    /// entries whose file is missing (or not of the stated size) are dropped; own-shaped
    /// files that no entry names are removed (a crash between a write and the manifest);
    /// other names are left alone. Over capacity (a smaller one than last time), it sweeps
    /// at once. Complexity: O(entries), one lstat each.
    private func reopen() throws {
        let own = try folder.names().filter(Self.isOwnName)
        for file in own { try files.requireRegularFileOrNothing(path(file)) }
        let manifestPath = path(Self.manifestName)
        var bytes: [UInt8] = []
        let known = try files.read(manifestPath, into: &bytes, limit: SizeLimits.largestDiskBody)
        var named: Set<String> = []
        if known {
            for (number, line) in bytes.split(separator: UInt8(ascii: "\n")).enumerated() {
                let entry = try Self.manifestEntry(line, at: "\(manifestPath):\(number + 1)")
                guard files.regularFileSize(path(entry.fileName!)) == entry.size else { continue }
                guard index.totalBytes <= SizeLimits.largestCapacity else {
                    throw DiskError(backend: Self.name, path: manifestPath, reason: "the entries add up to more than the largest capacity")
                }
                index.upsert(entry)
                named.insert(entry.fileName!)
            }
        }
        for file in own where !named.contains(file) { try files.remove(path(file)) }
        if index.totalBytes > capacity { try sweep(making: 0) }
    }

    /// The names the store makes: digests, `.manifest`, and their `.tmp`.
    static func isOwnName(_ file: String) -> Bool {
        let stem = file.hasSuffix(".tmp") ? String(file.dropLast(4)) : file
        return CacheFileName.isDigest(stem) || stem == manifestName
    }

    /// One manifest line: size, stored time, last access, hex key, each checked.
    static func manifestEntry(_ line: ArraySlice<UInt8>, at place: String) throws -> DiskEntryIndex.Entry {
        let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
        func bad(_ reason: String) -> DiskError { DiskError(backend: name, path: place, reason: "manifest: \(reason)") }
        guard fields.count == 4 else { throw bad("expected 4 tab-separated fields, found \(fields.count)") }
        let text = fields.map { String(decoding: $0, as: UTF8.self) }
        guard let size = Int(text[0]), size >= 0, size <= SizeLimits.largestDiskBody else {
            throw bad("size \(ErrorText.quote(text[0])) is not a whole number from 0 to \(SizeLimits.largestDiskBody)")
        }
        guard let stored = Double(text[1]), stored.isFinite, let access = Double(text[2]), access.isFinite else {
            throw bad("times must be finite numbers")
        }
        guard let keyBytes = HexText.decode(Substring(text[3])), !keyBytes.isEmpty,
              let key = String(validating: keyBytes, as: UTF8.self) else {
            throw bad("the key is not hex-encoded UTF-8 text")
        }
        return .init(key: key, size: size, stored: stored, lastAccess: access, rowID: 0, fileName: fileName(for: key))
    }
}
