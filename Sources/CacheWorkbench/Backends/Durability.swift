import WorkbenchCore
import WorkbenchTraces
/// How durable a disk backend makes each store before `set` returns: one setting for every
/// disk backend (`--durability`), so a latency or write comparison between `sqlite` and
/// `files` compares their designs, not one backend's fsyncs against another's none
/// (issue 21 §7: `sqlite` ran `synchronous=full` while `files` never synced).
///
/// Each level is the same guarantee for every backend, not the same number of syncs:
/// - `none`: nothing is forced to storage. A store survives the app's crash (it is in the
///   OS page cache), not a power loss: `files` renames without fsync, `sqlite` runs
///   `PRAGMA synchronous=OFF` (sqlite.org/pragma.html#pragma_synchronous). The default: a
///   cache's body can be fetched again, so a store lost to a power cut costs a download,
///   and with no syncs the latencies compare the designs without the device.
/// - `consistent`: after a power loss every entry is the old body or the new one, never a
///   torn one, but the latest stores may be lost: `files` fsyncs each body before its
///   rename; `sqlite` runs `synchronous=NORMAL` (in WAL mode the WAL is synced only at
///   checkpoints) and fsyncs each body file in `fsCachedData/` before the row commits.
/// - `full`: a store is on storage when `set` returns: `files` fsyncs the body, renames it,
///   then fsyncs the folder (the rename changes the folder, which the file's fsync does
///   not cover: Linux fsync(2));
///   `sqlite` runs `synchronous=FULL` (the WAL is synced at every commit) and fsyncs each
///   body file and then `fsCachedData/` before the row commits.
///
/// An eviction's unlink is never synced (a lost eviction only brings back a body the index
/// no longer names, which a reopen removes). `foundation-urlcache` writes through
/// swift-corelibs-foundation's own file code, which the workbench cannot reach: its rows
/// say `uncontrolled`. On Apple platforms `fsync` does not flush the drive's cache
/// (`F_FULLFSYNC` does; fsync(2) on macOS), so a `full` sync here costs more than an
/// iPhone's plain fsync would.
public enum Durability: String, CaseIterable, Sendable {
    case none, consistent, full
    /// Not a choice: a backend whose writes the workbench cannot sync (`foundation-urlcache`).
    case uncontrolled

    /// The levels a user may choose, weakest first.
    public static let choices: [Durability] = [.none, .consistent, .full]
    /// Equal for every disk backend unless a run says otherwise.
    public static let standard = Durability.none

    /// `bench list`'s line for the option.
    package static let optionHelp = "none (default, every disk backend: no fsync), consistent (a power loss keeps old or new bodies, never torn ones) or full (each store on storage when set returns)"

    /// Each body fsynced before it is renamed into place or its row commits.
    var syncsBodies: Bool { self == .consistent || self == .full }
    /// The folder fsynced after a new name appears in it.
    var syncsFolder: Bool { self == .full }

    /// The SQLite `PRAGMA synchronous` level that gives this guarantee.
    var sqliteSynchronous: String {
        switch self {
        case .none, .uncontrolled: "off"
        case .consistent: "normal"
        case .full: "full"
        }
    }

    /// The level an explicit `PRAGMA synchronous` amounts to (`--synchronous`).
    static func ofSQLite(synchronous: String) -> Durability {
        switch synchronous {
        case "full": .full
        case "normal": .consistent
        default: .none
        }
    }
}

extension BackendConfig {
    /// The backend's durability: option `durability`, or the level its own older option
    /// (`legacy`: `synchronous` for sqlite, `fsync` for files) amounts to, or the standard
    /// level. Both at once would be two answers to one question: an error.
    func durability(legacy: String, meaning: (String) throws -> Durability) throws -> Durability {
        let chosen = options["durability"]?.lowercased()
        if let chosen, let old = options[legacy] {
            throw WorkbenchError("durability=\(chosen) and \(legacy)=\(old) both set the same thing; give only durability (none, consistent or full)")
        }
        if let old = options[legacy] { return try meaning(old) }
        guard let chosen else { return Durability.standard }
        guard let level = Durability(rawValue: chosen), Durability.choices.contains(level) else {
            throw WorkbenchError("durability must be \(Durability.choices.map(\.rawValue).joined(separator: ", ")), not '\(chosen)'")
        }
        return level
    }
}
