import WorkbenchCore
import WorkbenchTraces
import Foundation

/// Folders a `--cache-dir` may not be, checked before anything is made: `--cache-dir /` made
/// `/files`. The path is resolved first (its links and `..`, as far as it exists), so
/// `/tmp/../etc` and a link to `/` are caught too.
///
/// - The root and the top-level folders of the Filesystem Hierarchy Standard (and
///   `/var/tmp`, `/snap`): their entries belong to the system or to other users, so a
///   backend folder made there is litter in a shared place (`/tmp` itself included: name
///   a folder in it).
/// - Anywhere under `/bin`, `/boot`, `/dev`, `/etc`, `/lib*`, `/proc`, `/sbin`,
///   `/sys` and `/usr`: the installed system, device nodes and kernel pseudo-file systems,
///   never a place for a cache's files.
/// - The user's home folder itself (`$HOME`) and `/home`: name a folder in it.
///
/// Complexity: O(components) (one `realpath` of the deepest existing ancestor).
package enum SystemFolders {
    /// Refused as the cache folder's parent itself.
    static let themselves: Set<String> = [
        "/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/media", "/mnt", "/opt",
        "/proc", "/root", "/run", "/sbin", "/snap", "/srv", "/sys", "/tmp", "/usr", "/var", "/var/tmp",
    ]

    /// Refused with everything under them.
    static let trees = ["/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/sbin", "/sys", "/usr"]

    /// Why `path` (resolved to `resolved`) may not hold cache folders, nil when it may.
    package static func refusal(_ path: String, home: String? = ProcessInfo.processInfo.environment["HOME"]) -> String? {
        let resolved = resolve(path)
        let said = resolved == path ? "" : " (\(ErrorText.quote(resolved, limit: 4096)) once its links and '..' are resolved)"
        if themselves.contains(resolved) {
            return "names\(said) \(resolved == "/" ? "the file-system root" : "the system folder \(resolved)"), where a backend's folder (\(resolved == "/" ? "" : resolved)/files, …) would be made among the system's own; name a folder of your own, such as /tmp/cwb-cache"
        }
        if let tree = trees.first(where: { resolved.hasPrefix($0 + "/") }) {
            return "is\(said) inside \(tree), a system folder (installed system, devices or a kernel file system), never a place for a cache's files; name a folder of your own"
        }
        if let home, !home.isEmpty, resolved == resolve(home), resolved != "/" {
            return "names\(said) your home folder itself, where a backend's folder (\(resolved)/files, …) would be made among your own files; name a new folder in it, such as \(resolved)/cwb-cache"
        }
        return nil
    }

    /// `path` absolute, its `.` and `..` folded and the links of its existing part resolved
    /// (`realpath` of the deepest existing ancestor, the rest appended).
    static func resolve(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var parts: [Substring] = []
        for part in absolute.split(separator: "/") {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        // Deepest existing ancestor first.
        var rest: [Substring] = []
        while true {
            let head = "/" + parts.joined(separator: "/")
            if let real = realpath(head, nil) {
                defer { free(real) }
                let base = String(cString: real)
                let joined = rest.reversed().joined(separator: "/")
                if joined.isEmpty { return base }
                return (base == "/" ? "" : base) + "/" + joined
            }
            guard let last = parts.popLast() else { return "/" + rest.reversed().joined(separator: "/") }
            rest.append(last)
        }
    }
}
