import WorkbenchCore
import WorkbenchTraces
import Foundation

/// A blob store shaped like NSURLCache's `Cache.db` (DESIGN.md), through the SQLite C API:
/// `cfurl_cache_response` (one row per key, `time_stamp`), `cfurl_cache_blob_data` (the
/// serialized response and request — modeled as fixed-size blobs of 320 bytes and the key
/// plus 64 bytes) and `cfurl_cache_receiver_data` (the body inline, or with `isDataOnFS` the
/// name of a file in `fsCachedData/`). Bodies at or above `inline-limit` (4 KiB, as
/// observed for NSURLCache; YYCache uses 20 KB; `inf` keeps all inline) go to files.
///
/// Each store is one transaction of its three rows (and any evictions), as an app's cache
/// writes one response at a time; `batch` N groups N stores per transaction. Over the byte
/// capacity (bodies), the oldest `time_stamp` goes first (NSURLCache), or with
/// `sqlite-evict lru` the least recently read (a hit then updates `time_stamp`, a write).
/// Options `journal-mode` (wal default, as Cache.db; delete), `durability` (`Durability`:
/// none by default, as every disk backend — `PRAGMA synchronous=OFF`; consistent = NORMAL
/// plus each body file fsynced before its row commits; full = FULL plus the body file and
/// `fsCachedData/` fsynced; the older `synchronous` option sets the PRAGMA and the level
/// it amounts to — full is SQLite's default, what an app that sets nothing gets),
/// `page-size` (4096) and `mmap-size` (0: reads copy through read calls).
///
/// Safety: the folder is claimed first (`CacheFolder`: new, empty or marked, and locked);
/// body files get random UUID names (as Cache.db's) and are created exclusively, never
/// through a link; every name read back from `Cache.db` must be a plain UUID name inside
/// `fsCachedData/` before it is opened or removed, or the run fails. `Cache.db` and its
/// side files must be regular files (or absent) before SQLite opens them, so a FIFO there
/// fails the run instead of hanging it. Keys are bound and read as their exact bytes (a
/// NUL inside a key is part of it). A store makes room before it writes, and a reopened
/// store over capacity evicts at once. A reopen removes the body files no row names
/// (written before a crash, never committed) and counts them (`orphans_removed`).
///
/// Complexity: get one indexed SELECT (+ one file read, + one UPDATE under lru); set three
/// INSERTs (+ one file write), plus three DELETEs (+ one unlink) per eviction; a reopen
/// O(rows + files in fsCachedData/).
public final class URLCacheStore: CacheBackend {
    public static let needsKeyNames = true
    public static let holdsPayloads = false
    public static let storesBytes = true
    static let name = "sqlite"

    public let capacity: Int
    public let inlineLimit: Int?
    public let evictLRU: Bool
    public let journalMode: String
    /// How durable each store is before `set` returns (`Durability`), and the PRAGMA
    /// synchronous level that gives it (or the one `synchronous` named).
    public let durability: Durability
    public let synchronous: String
    public let batch: Int
    /// PRAGMA page_size for a new database (SQLite's default 4096), and PRAGMA mmap_size
    /// (0 = reads go through read calls, SQLite's default).
    public let pageSize: Int
    public let mmapSize: Int
    private let directory: String
    private let folder: CacheFolder
    private let dataDirectory: String
    private let verify: Bool
    /// Hits whose body `verify` checked (BackendDetails.verifiedHits).
    private var verifiedHits = 0
    private let files: CountingFiles
    private let database: SQLiteDatabase
    private var index = DiskEntryIndex()
    private var readBuffer: [UInt8] = []
    private var pendingStores = 0
    private var evictions = 0
    private var closed = false
    /// Body files a reopen found in `fsCachedData/` that no row named, and removed.
    private var orphanedBodiesRemoved = 0
    /// Entries of `fsCachedData/` not of the store's own shape, left alone.
    private var foreignDataEntries = 0

    private let lookup: SQLiteDatabase.Statement
    private let insertResponse: SQLiteDatabase.Statement
    private let insertBlobData: SQLiteDatabase.Statement
    private let insertReceiverData: SQLiteDatabase.Statement
    private let touchResponse: SQLiteDatabase.Statement
    private let deleteRows: [SQLiteDatabase.Statement]

    /// The serialized response stands in at its typical size; its bytes don't matter.
    static let responseObject = [UInt8](repeating: 0xA5, count: 320)

    static let schema = """
        CREATE TABLE IF NOT EXISTS cfurl_cache_schema_version(schema_version INTEGER);
        CREATE TABLE IF NOT EXISTS cfurl_cache_response(entry_ID INTEGER PRIMARY KEY AUTOINCREMENT UNIQUE, version INTEGER, \
        hash_value INTEGER, storage_policy INTEGER, request_key TEXT UNIQUE, time_stamp NOT NULL DEFAULT CURRENT_TIMESTAMP, partition TEXT);
        CREATE TABLE IF NOT EXISTS cfurl_cache_blob_data(entry_ID INTEGER PRIMARY KEY, response_object BLOB, request_object BLOB, \
        proto_props BLOB, user_info BLOB);
        CREATE TABLE IF NOT EXISTS cfurl_cache_receiver_data(entry_ID INTEGER PRIMARY KEY, isDataOnFS INTEGER, receiver_data BLOB);
        CREATE INDEX IF NOT EXISTS request_key_index ON cfurl_cache_response(request_key);
        CREATE INDEX IF NOT EXISTS time_stamp_index ON cfurl_cache_response(time_stamp);
        """

    public init(_ config: BackendConfig) throws {
        let disk = try config.diskContext(for: Self.name)
        capacity = config.capacityBytes
        switch config.options["inline-limit"]?.lowercased() {
        case nil: inlineLimit = 4096
        case "inf": inlineLimit = nil
        case let text?:
            guard let bytes = Capacity.bytes(parsing: text) else {
                throw WorkbenchError("inline-limit must be a size such as 4KiB, 20KB or 4096, or inf, not '\(text)'")
            }
            inlineLimit = bytes
        }
        evictLRU = try config.choice("sqlite-evict", ["oldest", "lru"]) == "lru"
        journalMode = try config.choice("journal-mode", ["wal", "delete"])
        let synchronousChoices = ["full", "normal", "off"]
        durability = try config.durability(legacy: "synchronous") { _ in
            Durability.ofSQLite(synchronous: try config.choice("synchronous", synchronousChoices))
        }
        synchronous = try config.options["synchronous"] == nil ? durability.sqliteSynchronous : config.choice("synchronous", synchronousChoices)
        batch = try config.integer("batch", default: 1, range: 1...Int(Int32.max))
        pageSize = try config.integer("page-size", default: 4096, range: 512...65536)
        guard pageSize & (pageSize - 1) == 0 else { throw WorkbenchError("page-size must be a power of two from 512 to 65536, not \(pageSize)") }
        mmapSize = try config.integer("mmap-size", default: 0, range: 0...Int(Int32.max))
        directory = disk.directory
        dataDirectory = disk.directory + "/fsCachedData"
        verify = disk.verify
        files = CountingFiles(backend: Self.name, probe: disk.probe)
        folder = try CacheFolder.claim(directory, backend: Self.name)
        try files.makeSubfolder(dataDirectory)
        // SQLite opens these itself (and reads a FIFO there forever): only regular files.
        let databasePath = directory + "/Cache.db"
        for suffix in ["", "-wal", "-shm", "-journal"] { try files.requireRegularFileOrNothing(databasePath + suffix) }
        let database = try SQLiteDatabase(path: databasePath, backend: Self.name, probe: disk.probe)
        self.database = database
        try database.execute("PRAGMA page_size=\(pageSize)")  // takes effect on a new database only
        try database.execute("PRAGMA mmap_size=\(mmapSize)")
        // Synchronous first: switching a new database to WAL writes its header, which
        // SQLite's default (FULL) would sync whatever the run's durability.
        try database.execute("PRAGMA synchronous=\(synchronous.uppercased())")
        try database.execute("PRAGMA journal_mode=\(journalMode.uppercased())")
        try database.execute(Self.schema)
        lookup = try database.prepare("""
            SELECT r.entry_ID, d.isDataOnFS, d.receiver_data FROM cfurl_cache_response r \
            JOIN cfurl_cache_receiver_data d ON d.entry_ID = r.entry_ID WHERE r.request_key = ?1
            """)
        insertResponse = try database.prepare("""
            INSERT INTO cfurl_cache_response(version, hash_value, storage_policy, request_key, time_stamp, partition) \
            VALUES (0, ?1, 0, ?2, ?3, NULL)
            """)
        insertBlobData = try database.prepare("INSERT INTO cfurl_cache_blob_data(entry_ID, response_object, request_object) VALUES (?1, ?2, ?3)")
        insertReceiverData = try database.prepare("INSERT INTO cfurl_cache_receiver_data(entry_ID, isDataOnFS, receiver_data) VALUES (?1, ?2, ?3)")
        touchResponse = try database.prepare("UPDATE cfurl_cache_response SET time_stamp = ?2 WHERE entry_ID = ?1")
        deleteRows = try ["cfurl_cache_response", "cfurl_cache_blob_data", "cfurl_cache_receiver_data"].map {
            try database.prepare("DELETE FROM \($0) WHERE entry_ID = ?1")
        }
        try reopen()
        try removeOrphanedBodies()
    }

    public var settings: String {
        "inline-limit=\(inlineLimit.map(String.init) ?? "inf");sqlite-evict=\(evictLRU ? "lru" : "oldest");journal-mode=\(journalMode);durability=\(durability.rawValue);synchronous=\(synchronous);batch=\(batch);page-size=\(pageSize);mmap-size=\(mmapSize)"
    }

    public var facts: BackendFacts { BackendFacts(entries: index.count, accountedBytes: index.totalBytes, evictions: evictions) }

    public var details: BackendDetails {
        var details = BackendDetails()
        details.orphansRemoved = orphanedBodiesRemoved
        details.durability = durability
        details.verifiedHits = verify ? verifiedHits : nil
        details.remark(foreignDataEntries, "entries of fsCachedData/ were not body files of the store's shape (a regular file with a UUID name) and were left alone; they are in disk_footprint_bytes")
        return details
    }

    public func get(_ request: Request) throws -> Bool {
        let key = request.keyText
        lookup.bind(1, key)
        defer { lookup.reset() }
        guard try lookup.step() else { return false }
        let rowID = lookup.int(0)
        if lookup.int(1) != 0 {
            let filePath = try bodyPath(lookup.text(2), row: rowID)
            guard try files.read(filePath, into: &readBuffer) else {
                throw DiskError(backend: Self.name, path: filePath, reason: "the row for '\(key)' names a body file that is missing")
            }
            if verify { try readBuffer.withUnsafeBytes { try check($0, key: key, path: filePath) } }
        } else {
            let body = lookup.blob(2)
            if verify { try check(body, key: key, path: database.path) }
        }
        if evictLRU {
            lookup.reset()
            try transaction {
                touchResponse.bind(1, rowID)
                touchResponse.bind(2, request.time)
                try touchResponse.run()
            }
            index.touch(key, at: request.time)
        }
        return true
    }

    private func check(_ body: UnsafeRawBufferPointer, key: String, path: String) throws {
        guard let entry = index.lookup(key), entry.size == body.count, PayloadContent.matches(body, key: key) else {
            throw DiskError(backend: Self.name, path: path, reason: "verify: the body read back is not the one stored for '\(key)'")
        }
        verifiedHits += 1
    }

    public func set(_ request: Request, cost: Int, payload: Payload?) throws {
        let key = request.keyText
        let body = try payload ?? Payload(contentFor: key, byteCount: cost)
        try transaction {
            if let old = index.lookup(key) { try delete(old) }
            // Make room first (a full disk then frees space before the write).
            while index.totalBytes + body.byteCount > capacity, let oldest = index.oldest {
                try delete(oldest)
                evictions += 1
            }
            var fileName: String?
            if let inlineLimit, body.byteCount >= inlineLimit {
                let name = UUID().uuidString  // random, as Cache.db's: never a name an earlier run used
                let bodyPath = dataDirectory + "/" + name
                try files.writeNew(bodyPath, body.bytes, fsync: durability.syncsBodies)
                // The row about to commit names this file: under full, its name is on
                // storage before the commit is.
                if durability.syncsFolder { try files.syncFolder(containing: bodyPath) }
                fileName = name
            }
            insertResponse.bind(1, Int64(PayloadContent.seed(key: key, size: 0) & 0x7fff_ffff))
            insertResponse.bind(2, key)
            insertResponse.bind(3, request.time)
            try insertResponse.run()
            let rowID = database.lastInsertRowID
            var requestObject = Array(key.utf8)
            requestObject += repeatElement(0, count: 64)
            insertBlobData.bind(1, rowID)
            try Self.responseObject.withUnsafeBytes { response in
                try requestObject.withUnsafeBytes { request in
                    insertBlobData.bind(2, blob: response)
                    insertBlobData.bind(3, blob: request)
                    try insertBlobData.run()
                }
            }
            insertReceiverData.bind(1, rowID)
            insertReceiverData.bind(2, Int64(fileName == nil ? 0 : 1))
            if let fileName { insertReceiverData.bind(3, fileName) } else { insertReceiverData.bind(3, blob: body.bytes) }
            try insertReceiverData.run()
            index.upsert(.init(key: key, size: body.byteCount, stored: request.time, lastAccess: request.time, rowID: rowID, fileName: fileName))
        }
    }

    /// Runs `body` inside a transaction: its own, or the open batch's (committed every
    /// `batch` stores).
    private func transaction(_ body: () throws -> Void) throws {
        if pendingStores == 0 { try database.execute("BEGIN") }
        do {
            try body()
        } catch {
            try? database.execute("ROLLBACK")
            pendingStores = 0
            throw error
        }
        pendingStores += 1
        if pendingStores >= batch { try commit() }
    }

    private func commit() throws {
        guard pendingStores > 0 else { return }
        pendingStores = 0
        try database.execute("COMMIT")
    }

    /// The path of a body file named in `Cache.db`, once the name is checked: a plain UUID
    /// name (no `/`, no `..`), so it can only be inside `fsCachedData/`.
    private func bodyPath(_ name: String, row: Int64) throws -> String {
        guard CacheFileName.isUUID(name) else {
            throw DiskError(backend: Self.name, path: database.path, reason: "row \(row) names the body file \(ErrorText.quote(name)), which is not a UUID file name in fsCachedData/; the workbench will not open or remove it")
        }
        return dataDirectory + "/" + name
    }

    private func delete(_ entry: DiskEntryIndex.Entry) throws {
        for statement in deleteRows {
            statement.bind(1, entry.rowID)
            try statement.run()
        }
        if let fileName = entry.fileName { try files.remove(try bodyPath(fileName, row: entry.rowID)) }
        index.remove(entry.key)
    }

    public func remove(_ request: Request) throws {
        guard let entry = index.lookup(request.keyText) else { return }
        try transaction { try delete(entry) }
    }

    /// NSURLCache's disk store keeps its entries on a memory warning.
    public func didReceiveMemoryWarning() -> Int { 0 }

    public func close() throws {
        guard !closed else { return }
        closed = true
        defer { folder.release() }
        try commit()
        database.close()
    }

    /// Rebuilds the in-memory index from an existing Cache.db (a warm start). Every body
    /// file name is checked before use (a bad one fails the run); rows whose body file is
    /// gone are deleted; over capacity (a smaller one than last time), the oldest go at once.
    private func reopen() throws {
        let rows = try database.prepare("""
            SELECT r.entry_ID, r.request_key, r.time_stamp, d.isDataOnFS, d.receiver_data, length(d.receiver_data) \
            FROM cfurl_cache_response r JOIN cfurl_cache_receiver_data d ON d.entry_ID = r.entry_ID ORDER BY r.time_stamp, r.entry_ID
            """)
        var orphans: [Int64] = []
        do {
            defer { rows.reset() }
            while try rows.step() {
                let rowID = rows.int(0)
                var size = Int(rows.int(5))
                var fileName: String?
                if rows.int(3) != 0 {
                    let name = rows.text(4)
                    guard let onDisk = files.regularFileSize(try bodyPath(name, row: rowID)), onDisk <= SizeLimits.largestDiskBody else {
                        orphans.append(rowID)
                        continue
                    }
                    size = onDisk
                    fileName = name
                }
                let time = rows.double(2)
                guard time.isFinite else { throw DiskError(backend: Self.name, path: database.path, reason: "row \(rowID) has a time_stamp that is not a number") }
                index.upsert(.init(key: rows.text(1), size: size, stored: time, lastAccess: time, rowID: rowID, fileName: fileName))
            }
        }
        guard !orphans.isEmpty || index.totalBytes > capacity else { return }
        try database.execute("BEGIN")
        for rowID in orphans {
            for statement in deleteRows {
                statement.bind(1, rowID)
                try statement.run()
            }
        }
        while index.totalBytes > capacity, let oldest = index.oldest {
            try delete(oldest)
            evictions += 1
        }
        try database.execute("COMMIT")
    }

    /// Removes the body files no row names: written before a crash (or a rolled-back
    /// transaction) and never committed, they would stay forever and count in the
    /// footprint. Only regular files with a UUID name are removed (never through a link);
    /// anything else in `fsCachedData/` is left alone and counted.
    /// Complexity: O(files in fsCachedData/ + entries), one lstat per file.
    private func removeOrphanedBodies() throws {
        let named = Set(index.fromOldest.compactMap(\.fileName))
        for name in try CacheFolder.names(in: dataDirectory, backend: Self.name) where !named.contains(name) {
            let filePath = dataDirectory + "/" + name
            guard CacheFileName.isUUID(name), files.regularFileSize(filePath) != nil else {
                foreignDataEntries += 1
                continue
            }
            try files.remove(filePath)
            orphanedBodiesRemoved += 1
        }
    }
}
