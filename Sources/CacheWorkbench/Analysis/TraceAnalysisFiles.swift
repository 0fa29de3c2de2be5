import Foundation

/// Writes `bench analyze --csv DIR`: the folder is made when missing; each table is one
/// file written whole (OutputFile's rules).
extension TraceAnalysis {
    public func writeCSV(folder: String, trace: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw WorkbenchError("--csv \(folder): not a folder") }
        } else if mkdir(folder, 0o755) != 0 {
            throw WorkbenchError("--csv \(folder): cannot make the folder: \(String(cString: strerror(errno)))")
        }
        for file in csvFiles(trace: trace) {
            try OutputFile.write(file.text, to: (folder as NSString).appendingPathComponent(file.name))
        }
    }
}
