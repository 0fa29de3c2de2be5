import ArgumentParser
import CacheWorkbench

/// The trace `stats` and `price` read: a positional file, or `--trace FILE` as `bench run`
/// takes it, so a command line can switch between them unchanged.
struct TraceOperand: ParsableArguments {
    @Argument(help: ArgumentHelp("Trace to read (compressed is fine); or --trace FILE.", valueName: "trace"))
    var positional: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The trace, as `bench run --trace` names it (instead of the positional file).", valueName: "file"))
    var trace: String?

    /// The one trace named; an error when none or two are.
    func path() throws -> String {
        switch (positional, trace) {
        case (let file?, nil), (nil, let file?): return file
        case (let first?, let second?) where first == second: return first
        case (_?, _?): throw WorkbenchError("two traces named (a file and --trace); give one")
        case (nil, nil): throw WorkbenchError("no trace named: give a file (or --trace FILE)")
        }
    }
}
