#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes requests as the native CSV format (`time,key,size,width,height[,op]` with a
/// header) or the plain `timestamp,key,size` shape without one. A file appears whole or
/// not at all: rows go to a temporary file that is renamed at `finish()`.
public final class CSVTraceWriter {
    public enum Shape: Sendable { case native(withOp: Bool), plain }

    private let path: String?
    private let temporaryPath: String?
    private let file: UnsafeMutablePointer<FILE>
    private let shape: Shape
    private var finished = false

    /// `path` nil or "-" writes to standard output.
    public init(path: String?, shape: Shape) throws {
        self.shape = shape
        if let path, path != "-" {
            let temporary = path + ".partial-\(getpid())"
            guard let file = fopen(temporary, "w") else {
                throw WorkbenchError("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            self.path = path
            self.temporaryPath = temporary
            self.file = file
        } else {
            self.path = nil
            self.temporaryPath = nil
            guard let file = fdopen(STDOUT_FILENO, "w") else {
                throw WorkbenchError("cannot write to standard output")
            }
            self.file = file
        }
        switch shape {
        case .native(let withOp): put(withOp ? "time,key,size,width,height,op\n" : "time,key,size,width,height\n")
        case .plain: break
        }
    }

    deinit {
        // Not finished: a failure happened; leave nothing behind.
        if !finished, let temporaryPath {
            fclose(file)
            unlink(temporaryPath)
        }
    }

    public func write(_ request: Request) {
        var row = Self.time(request.time) + "," + CSVReport.escape(request.keyText) + "," + String(request.size)
        switch shape {
        case .native(let withOp):
            row += request.hasDimensions ? ",\(request.width),\(request.height)" : ",,"
            if withOp { row += "," + request.operation.name }
        case .plain: break
        }
        put(row + "\n")
    }

    public func finish() throws {
        finished = true
        guard let path, let temporaryPath else {
            fflush(file)
            return
        }
        let failed = ferror(file) != 0
        if fclose(file) != 0 || failed {
            unlink(temporaryPath)
            throw WorkbenchError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        if rename(temporaryPath, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw WorkbenchError("cannot write \(path): \(reason)")
        }
    }

    private func put(_ text: String) {
        var text = text
        text.withUTF8 { _ = fwrite($0.baseAddress, 1, $0.count, file) }
    }

    /// Whole microseconds print as fixed decimals (no exponent); anything else in full.
    static func time(_ seconds: Double) -> String {
        let micros = (seconds * 1e6).rounded()
        guard micros >= 0, micros < 9e15, micros / 1e6 == seconds else { return String(seconds) }
        let whole = Int(micros) / 1_000_000
        var fraction = String(Int(micros) % 1_000_000)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? String(whole) : "\(whole).\(fraction)"
    }
}
