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

#if canImport(Glibc)
import Glibc
#endif

/// The trace facts cache's folder is pruned of what no command can use again, and nothing
/// else: in-process, on hand-made facts (the figures need only be possible).
@Suite("trace facts cache pruning", .onTestWorkers)
struct TraceFactsCacheTests {
    /// Possible facts for the file at `path` as it is now: `digit` makes the digest.
    static func facts(_ path: String, digit: Character, computed: Double = 1_795_000_000) throws -> TraceFacts {
        var summary = TraceSummary()
        summary.requests = 10
        summary.uniqueKeys = 2
        summary.workingSetBytes = 300
        summary.largestSize = 200
        let identity = try #require(TraceFileIdentity.of(path: path))
        return TraceFacts(identity: identity, sha256: String(repeating: digit, count: 64), summary: summary, computed: computed)
    }

    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    static func names(_ folder: String) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
    }

    @Test("a store removes entries whose file changed or is gone, damaged ones and other versions; other names, links and their targets stay")
    func prunesWhatCannotBeUsed() throws {
        let folder = TemporaryFolder()
        let cache = TraceFactsCache(folder: folder.path + "/xdg/cacheworkbench/trace-facts")
        for name in ["a", "b", "c", "gone"] { try Self.write("trace \(name)\n", to: folder.path + "/" + name) }
        let a = try Self.facts(folder.path + "/a", digit: "a")
        let b = try Self.facts(folder.path + "/b", digit: "b")
        let gone = try Self.facts(folder.path + "/gone", digit: "e")
        for facts in [a, b, gone] { #expect(cache.store(facts, reading: "r") == nil) }
        let stored = Self.names(cache.folder)
        #expect(stored.count == 3)
        let loadedB = cache.load(b.identity, reading: "r")
        #expect(loadedB == b)

        // a rewritten (another size and ctime), gone removed: their entries can never be found again.
        try Self.write("trace a, longer now\n", to: folder.path + "/a")
        try FileManager.default.removeItem(atPath: folder.path + "/gone")
        // A damaged entry, one of another version, and names the cache never gives.
        let hex = { (digit: Character) in String(repeating: digit, count: 64) + ".json" }
        try Self.write("{not json", to: cache.folder + "/" + hex("1"))
        let encoder = JSONEncoder()
        var older = TraceFactsEntry(b, reading: "other")
        older.version = 0
        try encoder.encode(older).write(to: URL(fileURLWithPath: cache.folder + "/" + hex("2")))
        try Self.write("mine", to: cache.folder + "/notes.txt")
        try Self.write("half", to: cache.folder + "/.x.json.partial-Ab12Cd")
        // A link named as an entry, to a damaged "entry" outside: neither it nor its target is touched.
        try Self.write("{not json", to: folder.path + "/outside.json")
        #expect(symlink(folder.path + "/outside.json", cache.folder + "/" + hex("3")) == 0)

        let c = try Self.facts(folder.path + "/c", digit: "c")
        #expect(cache.store(c, reading: "r") == nil)
        let left = Self.names(cache.folder)
        let expected = stored.subtracting(left)
        #expect(expected.count == 2, "a's and gone's entries removed: \(left.sorted())")
        #expect(!left.contains(hex("1")) && !left.contains(hex("2")))
        #expect(left.isSuperset(of: ["notes.txt", ".x.json.partial-Ab12Cd", hex("3")]))
        #expect(left.count == 5, "b's entry, c's entry and the three names the cache did not make: \(left.sorted())")
        let outside = try String(contentsOfFile: folder.path + "/outside.json", encoding: .utf8)
        #expect(outside == "{not json")
        let stillB = cache.load(b.identity, reading: "r")
        let newC = cache.load(c.identity, reading: "r")
        #expect(stillB == b && newC == c)
    }

    @Test("beyond the limit the entries computed first go; the one just written stays")
    func keepsTheNewest() throws {
        let folder = TemporaryFolder()
        let cache = TraceFactsCache(folder: folder.path + "/xdg/cacheworkbench/trace-facts")
        var all: [TraceFacts] = []
        for (index, digit) in ["1", "2", "3", "4", "5"].enumerated() {
            try Self.write("trace \(digit)\n", to: folder.path + "/" + digit)
            // Computed times out of write order: the prune orders by them, not by the file system.
            let facts = try Self.facts(folder.path + "/" + digit, digit: Character(digit), computed: 1_795_000_000 + Double([3, 1, 4, 5, 2][index]))
            #expect(cache.store(facts, reading: "r") == nil)
            all.append(facts)
        }
        #expect(Self.names(cache.folder).count == 5)
        // Keep 3: the first stored ("1", computed third) is the one just written, and stays;
        // of the other four, those computed first ("2" at +1, "5" at +2) go.
        let kept = String(cache.entryPath(all[0].identity, reading: "r").split(separator: "/").last ?? "")
        #expect(TraceFactsCache.entryNames(in: cache.folder).contains(kept))
        cache.prune(keeping: kept, limit: 3)
        let loaded = all.map { cache.load($0.identity, reading: "r") != nil }
        #expect(loaded == [true, false, true, true, false])
    }
}
