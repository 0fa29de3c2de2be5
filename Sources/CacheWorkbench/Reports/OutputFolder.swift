import WorkbenchSimulation
import WorkbenchCore
import WorkbenchMetrics
import WorkbenchTraces
import WorkbenchHTTP
import WorkbenchBackends
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The rule for every command that writes files into a folder the user named (`bench
/// analyze --csv DIR`, `bench plot --out DIR`, and `bench sweep --plan P --shard I/N`'s
/// default results file beside the plan, a name the workbench chose): the folder is made when missing; the
/// workbench writes only the names it owns there, each a new name or a regular file
/// (replaced whole, `OutputFile`); a FIFO, device, socket, folder or symbolic link at one of
/// those names is refused — by `check`, before any work, and again by `entry` just before
/// the write — since writing a FIFO with no reader blocks forever and the others are not
/// files the workbench made. (A file the user names alone, `--csv FILE`, may be a FIFO or
/// device and is written in place: that stream was asked for.)
public enum OutputFolder {
    /// Before any work: `folder` is a folder, or a new name in an existing writable folder,
    /// and each of `names` in it is absent or a regular file. O(names).
    public static func check(_ folder: String, option: String, names: some Sequence<String>) throws {
        guard !folder.isEmpty, !OutputFile.standardOutputNames.contains(folder) else {
            throw WorkbenchError("\(option) \(folder.isEmpty ? "''" : folder): names a folder for several files; standard output cannot hold them")
        }
        var info = stat()
        if stat(folder, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw WorkbenchError("\(option) \(folder): exists and is not a folder") }
            guard access(folder, W_OK | X_OK) == 0 else { throw WorkbenchError("\(option) \(folder): the folder is not writable") }
            for name in names { _ = try entry(name, in: folder) }
        } else {
            let parent = OutputFile.folderOf(folder.hasSuffix("/") && folder.count > 1 ? String(folder.dropLast()) : folder)
            guard stat(parent, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw WorkbenchError("\(option) \(folder): folder \(parent) does not exist")
            }
        }
    }

    /// Makes `folder` when missing (mode 0755); an existing non-folder is refused.
    public static func make(_ folder: String, option: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw WorkbenchError("\(option) \(folder): exists and is not a folder") }
        } else if mkdir(folder, 0o755) != 0 {
            throw WorkbenchError("\(option) \(folder): cannot make the folder: \(String(cString: strerror(errno)))")
        }
    }

    /// `folder/name`, when it is absent or a regular file (see the type's rule).
    public static func entry(_ name: String, in folder: String) throws -> String {
        let path = (folder.hasSuffix("/") ? folder : folder + "/") + name
        try checkEntry(path)
        return path
    }

    /// Refuses `path`, a name the workbench chose (not the user), unless it is absent or a
    /// regular file.
    public static func checkEntry(_ path: String) throws {
        if try OutputFile.kind(of: path) == .special {
            throw WorkbenchError("\(path): not a regular file (a FIFO, device or socket); files are never written over one in an output folder")
        }
    }
}
