import WorkbenchCore
import WorkbenchMetrics
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

    private let output: OutputFile
    private let shape: Shape

    /// `path` nil or "-" writes to standard output (see `OutputFile` for the rules).
    public init(path: String?, shape: Shape) throws {
        self.shape = shape
        output = try OutputFile(path)
        switch shape {
        case .native(let withOp): try output.write(withOp ? "time,key,size,width,height,op\n" : "time,key,size,width,height\n")
        case .plain: break
        }
    }

    public var isStandardOutput: Bool { output.isStandardOutput }

    public func write(_ request: Request) throws {
        var row = Self.time(request.time) + "," + CSVReport.quote(request.keyText) + "," + String(request.size)
        switch shape {
        case .native(let withOp):
            row += request.hasDimensions ? ",\(request.width),\(request.height)" : ",,"
            if withOp { row += "," + request.operation.name }
        case .plain: break
        }
        try output.write(row + "\n")
    }

    public func finish() throws { try output.commit() }
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
