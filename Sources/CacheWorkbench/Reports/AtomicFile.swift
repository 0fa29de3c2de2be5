import Foundation

/// Writes a whole file or nothing: a temporary file in the same folder, then a rename,
/// so a failed or interrupted run never leaves a half-written result where a complete
/// one is expected.
public enum AtomicFile {
    public static func write(_ text: String, to path: String) throws {
        try write(Data(text.utf8), to: path)
    }

    public static func write(_ bytes: [UInt8], to path: String) throws {
        try write(Data(bytes), to: path)
    }

    static func write(_ data: Data, to path: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw WorkbenchError("cannot write \(path): \(reason(error))")
        }
    }

    /// Fails early (before a long run) when `path` could not be written at the end.
    public static func checkWritable(_ path: String) throws {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw WorkbenchError("cannot write \(path): folder \(folder) does not exist")
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw WorkbenchError("cannot write \(path): it is a folder")
        }
        guard FileManager.default.isWritableFile(atPath: folder) else {
            throw WorkbenchError("cannot write \(path): folder \(folder) is not writable")
        }
    }

    static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
           let posix = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(cString: strerror(posix.rawValue))
        }
        return nsError.localizedDescription
    }
}
