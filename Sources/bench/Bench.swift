import ArgumentParser
import CacheWorkbench

@main
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Replay request traces against cache backends and compare hit ratio, latency, memory and disk writes.",
        discussion: """
            With no subcommand, `bench` runs `bench run`: the bundled default trace against every \
            backend at 100 MB (AFAutoPurgingImageCache's memory budget), printed as a table.
            """,
        subcommands: [RunCommand.self, GenCommand.self, ConvertCommand.self, StatsCommand.self, ExperimentCommand.self, ListCommand.self],
        defaultSubcommand: RunCommand.self)
}

/// Input and environment problems end the command with one line on stderr and status 2.
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as ExitCode {
        throw error
    } catch let error as TraceError {
        fail(error.description)
    } catch let error as WorkbenchError {
        fail(error.description)
    } catch {
        fail(String(describing: error))
    }
}

private func fail(_ message: String) -> Never {
    var standardError = StandardError()
    print("bench: error: \(message)", to: &standardError)
    Bench.exit(withError: ExitCode(2))
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileDescriptorOutput.write(string, to: 2)
    }
}
