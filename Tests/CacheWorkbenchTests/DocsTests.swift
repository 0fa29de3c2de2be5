import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchReports
@testable import WorkbenchCommands
@testable import WorkbenchCore
@testable import WorkbenchMetrics
@testable import WorkbenchTraces
@testable import WorkbenchHTTP
@testable import WorkbenchBackends
@testable import WorkbenchSimulation
@testable import WorkbenchExperiments

/// The documentation a newcomer reads first: README.md and docs/. Every link in them stays
/// inside the repository and resolves (file, and heading when it has `#…`), and every
/// command of a fenced `sh` block of the README runs, in order, from a clean copy.
@Suite("documentation", .serialized, .onTestWorkers)
struct DocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// README.md and every Markdown page under docs/, as paths relative to the root.
    static func pages() throws -> [String] {
        var pages = ["README.md"]
        let docs = root.appendingPathComponent("docs")
        let walker = FileManager.default.enumerator(atPath: docs.path)
        while let path = walker?.nextObject() as? String {
            if path.hasSuffix(".md") { pages.append("docs/" + path) }
        }
        return pages.sorted()
    }

    @Test("every link of README.md and docs/ resolves inside the repository, anchors included")
    func linksResolve() throws {
        let pages = try Self.pages()
        #expect(pages.count > 10, "the docs pages are missing: \(pages)")
        var problems: [String] = []
        var checked = 0
        for page in pages {
            let text = try String(contentsOf: Self.root.appendingPathComponent(page), encoding: .utf8)
            for link in MarkdownText.links(text) {
                checked += 1
                if let problem = Self.problem(of: link.target, in: page) { problems.append("\(page):\(link.line): \(link.target): \(problem)") }
            }
        }
        print("DocsTests: \(checked) links in \(pages.count) pages checked")
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// Why a link's target does not resolve, or nil when it does.
    static func problem(of target: String, in page: String) -> String? {
        if target.contains("://") || target.hasPrefix("mailto:") { return "points outside the repository (write the address as text)" }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let pageFolder = (page as NSString).deletingLastPathComponent
        let relative = parts[0].isEmpty ? page : ((pageFolder as NSString).appendingPathComponent(parts[0]) as NSString).standardizingPath
        if relative.hasPrefix("..") || relative.hasPrefix("/") { return "points outside the repository" }
        let file = root.appendingPathComponent(relative).path
        guard FileManager.default.fileExists(atPath: file) else { return "no such file" }
        guard parts.count == 2 else { return nil }
        guard relative.hasSuffix(".md"), let text = try? String(contentsOfFile: file, encoding: .utf8) else { return "an anchor into a file that is not Markdown" }
        return MarkdownText.headingSlugs(text).contains(parts[1]) ? nil : "no heading with this anchor in \(relative)"
    }

    @Test("GitHub heading slugs, computed by hand")
    func slugs() {
        #expect(MarkdownText.headingSlugs("# Memory warnings: what they cost\n") == ["memory-warnings-what-they-cost"])
        #expect(MarkdownText.headingSlugs("## Plans, shards and `bench merge`: a sweep\n") == ["plans-shards-and-bench-merge-a-sweep"])
        #expect(MarkdownText.headingSlugs("# A\n# A\n```sh\n# not a heading\n```\n# A\n") == ["a", "a-1", "a-2"])
        #expect(MarkdownText.headingSlugs("### `tier:MEMORY+DISK` and 2Q (x)\n") == ["tiermemorydisk-and-2q-x"])
    }

    @Test("links are found outside code only, with their lines")
    func linkExtraction() {
        let text = "see [a](x.md) and `[b](y.md)`\n```sh\n[c](z.md)\n```\n![d](g/p.png \"title\")\n"
        #expect(MarkdownText.links(text).map(\.target) == ["x.md", "g/p.png"])
        #expect(MarkdownText.links(text).map(\.line) == [1, 5])
        #expect(Self.problem(of: "../shared/DESIGN.md", in: "README.md") == "points outside the repository")
        #expect(Self.problem(of: "https://example.com", in: "README.md") != nil)
        #expect(Self.problem(of: "docs/no-such-page.md", in: "README.md") == "no such file")
    }

    @Test("the commands of the README's sh blocks, split, with the set-up commands left out")
    func commandExtraction() {
        let text = """
            ```sh
            # a comment
            scripts/bootstrap && swift run -c release bench

            scripts/bootstrap --python && swift test
            bench run --trace t.csv \\
                --capacity 1MiB   # trailing comment
            ```
            ```
            bench not-sh
            ```
            """
        let commands = MarkdownText.shellCommands(text)
        #expect(commands == ["scripts/bootstrap && swift run -c release bench", "scripts/bootstrap --python && swift test",
                             "bench run --trace t.csv --capacity 1MiB   # trailing comment"])
        #expect(ReadmeCommand(commands[0]).runnable == "bench")
        #expect(ReadmeCommand(commands[0]).skipped == ["scripts/bootstrap"])
        #expect(ReadmeCommand(commands[1]).runnable == nil)
        #expect(ReadmeCommand(commands[1]).skipped == ["scripts/bootstrap --python", "swift test"])
        #expect(ReadmeCommand(".build/release/bench list").runnable == "bench list")
    }

    @Test("every command of the README's sh blocks exits 0, in order, in a clean copy of the repository")
    func readmeCommandsRun() throws {
        let commands = MarkdownText.shellCommands(try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8))
        #expect(commands.count >= 6, "the README's sh blocks hold \(commands.count) commands")
        guard let copy = try Self.cleanCopy() else { return }
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let executable = try builtBench
        for command in commands.map(ReadmeCommand.init) {
            for setUp in command.skipped {
                print("DocsTests: skipped `\(setUp)`: a set-up command (it installs packages or runs this suite), not run inside the tests")
            }
            guard let runnable = command.runnable else { continue }
            // `bench` is the debug build beside this test binary: no release build inside the tests.
            let script = "bench() { \"\(executable)\" \"$@\"; }\nset -o pipefail\n" + runnable
            let started = Date()
            let result = try runBounded(900, "/bin/bash", ["-c", script], in: copy)
            print("DocsTests: `\(runnable)` exit \(result.status) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
            #expect(result.status == 0, "`\(runnable)` exited \(result.status): \(result.err.suffix(2000))")
            if runnable == "bench" {
                // The main job: the bundled trace, every default backend's row (CLITests.defaults runs one backend).
                #expect(result.out.contains("Traces/default.csv: 50000 requests"), "\(result.out)")
                #expect(["lru", "sqlite", "files", "nscache", "autopurge"].allSatisfy { backend in
                    result.out.split(separator: "\n").contains { $0.hasPrefix(backend + " ") && $0.hasSuffix(" ok") }
                }, "\(result.out)")
                #expect(!result.out.contains("FAILED"), "\(result.out)")
            }
        }
    }

    /// The repository's tracked files (as they are in the working tree) in a new temporary
    /// folder: no build products, no .venv, nothing untracked. Nil, with the reason printed,
    /// when this is not a git checkout.
    static func cleanCopy() throws -> String? {
        let listing = try runBounded(60, "/usr/bin/env", ["git", "-C", root.path, "ls-files", "-z"])
        guard listing.status == 0 else {
            print("DocsTests: skipped the README commands: \(root.path) is not a git checkout (git ls-files: \(listing.err))")
            return nil
        }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("cwb-readme-\(UUID().uuidString)").path
        for path in listing.out.split(separator: "\0").map(String.init) {
            let source = root.appendingPathComponent(path).path
            guard FileManager.default.fileExists(atPath: source) else { continue }  // deleted, not yet committed
            let destination = copy + "/" + path
            try FileManager.default.createDirectory(atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: source, toPath: destination)
        }
        return copy
    }
}

/// The Markdown the docs test reads: links outside code, GitHub's heading anchors, and
/// the commands of fenced `sh` blocks.
enum MarkdownText {
    /// Lines outside fenced code blocks, with their 1-based numbers.
    static func proseLines(_ text: String) -> [(number: Int, text: String)] {
        var inFence = false
        var lines: [(Int, String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if !inFence { lines.append((index + 1, String(line))) }
        }
        return lines
    }

    /// `[text](target)` and `![alt](target "title")` outside code spans and fences.
    static func links(_ text: String) -> [(line: Int, target: String)] {
        var found: [(Int, String)] = []
        for (number, line) in proseLines(text) {
            // Code spans hold examples, not links.
            let prose = line.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
            var rest = Substring(prose)
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                let target = after[..<close].split(separator: " ").first.map(String.init) ?? ""
                found.append((number, target))
                rest = after[close...]
            }
        }
        return found
    }

    /// Each heading's anchor as GitHub makes it: the text without markup, lower-cased,
    /// punctuation other than `-` and `_` removed, spaces as `-`; a repeated anchor gets
    /// `-1`, `-2`, ….
    static func headingSlugs(_ text: String) -> [String] {
        var seen: [String: Int] = [:]
        var slugs: [String] = []
        for (_, line) in proseLines(text) {
            guard line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }
            guard title.first == " " else { continue }
            var slug = ""
            for character in title.trimmingCharacters(in: .whitespaces).lowercased() {
                if character.isLetter || character.isNumber || character == "-" || character == "_" {
                    slug.append(character)
                } else if character == " " {
                    slug.append("-")
                }
            }
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            slugs.append(count == 0 ? slug : "\(slug)-\(count)")
        }
        return slugs
    }

    /// The commands of every ```sh block, in order: comment and blank lines left out,
    /// lines ending in `\` joined to the next.
    static func shellCommands(_ text: String) -> [String] {
        var commands: [String] = []
        var inShell = false
        var pending = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                inShell = !inShell && trimmed == "```sh"
                continue
            }
            guard inShell else { continue }
            if pending.isEmpty && (trimmed.isEmpty || trimmed.hasPrefix("#")) { continue }
            if trimmed.hasSuffix("\\") {
                pending += String(trimmed.dropLast()).trimmingCharacters(in: .whitespaces) + " "
            } else {
                commands.append(pending + trimmed)
                pending = ""
            }
        }
        return commands
    }
}

/// One README command as the docs test runs it: the set-up parts joined by `&&`
/// (`scripts/bootstrap …`, `swift test`) left out, `swift run -c release bench` and
/// `.build/release/bench` as `bench`.
struct ReadmeCommand {
    var runnable: String?
    var skipped: [String] = []

    init(_ command: String) {
        var kept: [String] = []
        for part in command.components(separatedBy: "&&").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if part.hasPrefix("scripts/bootstrap") || part.hasPrefix("swift test") {
                skipped.append(part)
            } else {
                kept.append(part.replacingOccurrences(of: "swift run -c release bench", with: "bench")
                    .replacingOccurrences(of: ".build/release/bench", with: "bench"))
            }
        }
        runnable = kept.isEmpty ? nil : kept.joined(separator: " && ")
    }
}
