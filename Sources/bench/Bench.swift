import ArgumentParser
import CacheWorkbench

/// The `bench` command line, for an executable of one's own: registers `extraBackends` beside
/// the built-in ones, then parses the process's arguments and runs the command, as `bench`
/// does (Sources/BenchMain). A backend registered here is selected by name like any other
/// (`--backend mycache,lru`), runs under every command and option, and is in `bench list`.
/// A name already taken, or one that is not lower-case letters, digits and `-`, ends the
/// process with `bench: error: …` and status 2. See docs/custom-backend.md.
public enum BenchCommandLine {
    public static func main(extraBackends: [BackendKind] = []) {
        do {
            try BackendRegistry.register(extraBackends)
        } catch {
            fail(String(describing: error))
        }
        Interruption.install()
        Bench.main()
    }
}

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Replay request traces against cache backends and compare hit ratio, latency, memory and disk writes.",
        discussion: """
            With no subcommand, `bench` runs `bench run`: the bundled default trace against lru \
            and every modeled iOS cache at 100 MB (AFAutoPurgingImageCache's memory budget), \
            printed as a table. `--backend all` adds the policy simulators.
            """,
        // ArgumentParser prints this static text for --version; `main` answers `bench
        // --version` itself first, with the revision read when asked (not on every run).
        version: WorkbenchVersion.number,
        subcommands: [RunCommand.self, SweepCommand.self, MergeCommand.self, MRCCommand.self, PlotCommand.self, ReportCommand.self, GenCommand.self, ConvertCommand.self, StatsCommand.self, AnalyzeCommand.self, PriceCommand.self, HTTPCheckCommand.self, ExperimentCommand.self, ListCommand.self],
        defaultSubcommand: RunCommand.self)

    /// ArgumentParser's own error output is several lines and exit 64; the README promises
    /// one line `bench: error: …` and exit 2 for every bad option, so its errors are
    /// rewritten here. Help and version still print as usual.
    static func main() {
        if Array(CommandLine.arguments.dropFirst()) == ["--version"] {
            print(WorkbenchVersion.text())
            return
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let code as ExitCode {
            exit(withError: code)
        } catch let interrupted as Interrupted {
            // Stopped at a safe point: what is unfinished is removed, what was kept is said.
            FileDescriptorOutput.write("bench: \(ErrorText.escapingControls(Interruption.finish(interrupted)))\n", to: 2)
            exit(withError: ExitCode(interrupted.exitStatus))
        } catch {
            let status = exitCode(for: error)
            if status == .success {
                exit(withError: error)  // --help, --version: printed by ArgumentParser
            }
            let message = Self.message(for: error)
                .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                .filter { !$0.hasPrefix("Usage:") && !$0.hasPrefix("See '") && !$0.hasPrefix("Help:") }
                .joined(separator: "; ")
            fail(message.isEmpty ? "bad arguments; see `bench --help`" : message)
        }
    }
}

/// Input and environment problems end the command with one line on stderr and status 2.
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as ExitCode {
        throw error
    } catch let error as Interrupted {
        throw error  // Bench.main says what was kept and exits 130/143
    } catch let error as TraceError {
        fail(error.description)
    } catch let error as WorkbenchError {
        fail(error.description)
    } catch {
        fail(String(describing: error))
    }
}

/// One line on stderr (control bytes escaped, so input text cannot drive the terminal),
/// then exit 2.
func fail(_ message: String) -> Never {
    var standardError = StandardError()
    print("bench: error: \(ErrorText.escapingControls(message))", to: &standardError)
    Bench.exit(withError: ExitCode(2))
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileDescriptorOutput.write(string, to: 2)
    }
}
