import WorkbenchCore
import WorkbenchTraces
import CDiskIO
import CSQLite
import Synchronization

/// A thin layer over the SQLite C API for the `sqlite` backend: one connection opened
/// through the counting VFS, prepared statements, and every failure as a `DiskError`
/// naming the backend, the database path and SQLite's message.
final class SQLiteDatabase {
    let path: String
    let backend: String
    private(set) var handle: OpaquePointer?
    private let vfsName: String
    /// Each connection gets its own counting VFS (its own counters): unique names.
    private static let vfsCounter = Atomic<Int>(0)

    init(path: String, backend: String, probe: DiskIOProbe) throws {
        self.path = path
        self.backend = backend
        vfsName = "cwb-counting-\(Self.vfsCounter.add(1, ordering: .relaxed).newValue)"
        var rc = cwb_counting_vfs_register(vfsName, probe.counters)
        guard rc == SQLITE_OK else { throw DiskError(backend: backend, path: path, reason: "cannot register the counting VFS (SQLite code \(rc))") }
        rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, vfsName)
        guard rc == SQLITE_OK else {
            let failure = error("cannot open", rc)
            close()
            throw failure
        }
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { close() }

    /// Finalizes every statement still prepared (so the close is real now: the WAL is
    /// checkpointed and removed before the footprint is measured), then closes.
    func close() {
        if let handle {
            while let statement = sqlite3_next_stmt(handle, nil) { sqlite3_finalize(statement) }
            sqlite3_close_v2(handle)
            self.handle = nil
        }
        cwb_counting_vfs_unregister(vfsName)
    }

    func error(_ what: String, _ code: Int32) -> DiskError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        return DiskError(backend: backend, path: path, reason: "\(what): \(message) (SQLite code \(code))")
    }

    func execute(_ sql: String) throws {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(String(sql.prefix(40)), rc) }
    }

    func prepare(_ sql: String) throws -> Statement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error("prepare \(sql.prefix(40))", rc) }
        return Statement(statement, database: self)
    }

    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// A prepared statement; `run` binds, steps and resets.
    final class Statement {
        let pointer: OpaquePointer
        let database: SQLiteDatabase

        init(_ pointer: OpaquePointer, database: SQLiteDatabase) {
            self.pointer = pointer
            self.database = database
        }

        deinit {
            if database.handle != nil { sqlite3_finalize(pointer) }  // else `close` did
        }

        func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(pointer, index, value) }
        func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(pointer, index, value) }
        /// Binds the text's exact UTF-8 bytes (a NUL inside is kept, not an end).
        func bind(_ index: Int32, _ text: String) {
            var text = text
            text.withUTF8 { bytes in
                _ = sqlite3_bind_text64(
                    pointer, index, UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self),
                    sqlite3_uint64(bytes.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self), UInt8(SQLITE_UTF8))
            }
        }
        /// Binds bytes without copying; they must stay valid until the statement is reset.
        func bind(_ index: Int32, blob: UnsafeRawBufferPointer) {
            sqlite3_bind_blob64(pointer, index, blob.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(blob.count), nil)
        }
        func bindNull(_ index: Int32) { sqlite3_bind_null(pointer, index) }

        /// Steps once: true when a row is ready (read it with the column accessors).
        func step() throws -> Bool {
            let rc = sqlite3_step(pointer)
            if rc == SQLITE_ROW { return true }
            if rc == SQLITE_DONE { return false }
            let failure = database.error("step", rc)
            sqlite3_reset(pointer)
            throw failure
        }

        func reset() {
            sqlite3_reset(pointer)
            sqlite3_clear_bindings(pointer)
        }

        /// Steps to completion and resets (statements that return no rows).
        func run() throws {
            defer { reset() }
            while try step() {}
        }

        func int(_ column: Int32) -> Int64 { sqlite3_column_int64(pointer, column) }
        func double(_ column: Int32) -> Double { sqlite3_column_double(pointer, column) }
        /// The column's text, all its bytes (a NUL inside is kept).
        func text(_ column: Int32) -> String {
            guard let bytes = sqlite3_column_text(pointer, column) else { return "" }
            let count = Int(sqlite3_column_bytes(pointer, column))
            return String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
        }
        /// The column's bytes, valid until the next step or reset.
        func blob(_ column: Int32) -> UnsafeRawBufferPointer {
            let start = sqlite3_column_blob(pointer, column)
            return UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(pointer, column)))
        }
    }

}
