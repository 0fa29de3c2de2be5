#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Bytes a folder occupies on disk: the allocated blocks (`st_blocks` × 512) of every file
/// under it, which counts page and block rounding and sparse holes as the file system
/// does, unlike the sum of file sizes.
public enum DiskFootprint {
    public static func allocatedBytes(under path: String) -> Int {
        var total = 0
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        total += Int(info.st_blocks) * 512
        guard (info.st_mode & S_IFMT) == S_IFDIR,
              let children = try? FileManager.default.contentsOfDirectory(atPath: path) else { return total }
        for child in children { total += allocatedBytes(under: path + "/" + child) }
        return total
    }
}
