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

/// Issue 24 §6: a cache author's own backend runs under the full command line, without a fork.
@Suite("Your own backend", .serialized, .onTestWorkers)
struct CustomBackendTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("a bad or taken name registers nothing and says why")
    func registrationRules() throws {
        let mine = BackendKind(name: "zz-registration-probe", summary: "test") { LRUCache(capacity: $0.capacityBytes) }
        let taken = BackendKind(name: "lru", summary: "a second lru") { LRUCache(capacity: $0.capacityBytes) }
        #expect(throws: WorkbenchError.self) { try BackendRegistry.register([mine, taken]) }
        #expect(!BackendRegistry.all.contains { $0.name == "zz-registration-probe" })  // all or nothing
        for bad in ["Upper", "with space", "1digit", "", "tier:x", "policies", "a/b"] {
            let kind = BackendKind(name: bad, summary: "bad") { LRUCache(capacity: $0.capacityBytes) }
            #expect(throws: WorkbenchError.self, "\(bad)") { try BackendRegistry.register([kind]) }
        }
        #expect(BackendRegistry.all.count == Set(BackendRegistry.all.map(\.name)).count)
    }

    @Test("Examples/CustomBackend builds against the workbench by path and runs its FIFO beside lru: the same hits as the built-in fifo")
    func examplePackage() throws {
        let example = Self.root.appendingPathComponent("Examples/CustomBackend").path
        let build = try runBounded(1800, "/usr/bin/env", ["swift", "build", "--package-path", example])
        #expect(build.status == 0, "\(build.out.suffix(2000))\(build.err.suffix(2000))")
        guard build.status == 0 else { return }
        let folder = TemporaryFolder()
        // Two keys of 600 bytes and one of 500 at a 1200-byte capacity: FIFO and LRU differ.
        // a b a c a b: FIFO hits a (2nd); c evicts a (oldest) → a misses, evicts b → b misses.
        // LRU hits a (2nd); c evicts b → a hits, b misses.
        let trace = folder.file("t.csv", "time,key,size\n1,a,600\n2,b,500\n3,a,600\n4,c,600\n5,a,600\n6,b,500\n")
        let run = try runBounded(
            120, example + "/.build/debug/mybench",
            ["run", "--trace", trace, "--backend", "mycache,fifo,lru", "--capacity", "1200,64MiB", "--no-timing", "--csv", folder.path + "/r.csv"])
        #expect(run.status == 0, "\(run.err)")
        let rows = try RunOutputTests.rows(folder.path + "/r.csv")
        let hits = Dictionary(uniqueKeysWithValues: rows.map { ("\($0["backend"]!)@\($0["capacity_bytes"]!)", $0["hits"]!) })
        #expect(hits == ["mycache@1200": "1", "fifo@1200": "1", "lru@1200": "2", "mycache@67108864": "3", "fifo@67108864": "3", "lru@67108864": "3"], "\(hits)")
        // Registered like a built-in one: listed, and a misspelling gets a suggestion.
        let list = try runBounded(60, example + "/.build/debug/mybench", ["list"])
        #expect(list.out.contains("mycache") && list.out.contains("Examples/CustomBackend"))
        let typo = try runBounded(60, example + "/.build/debug/mybench", ["run", "--backend", "mycach"])
        #expect(typo.status == 2 && typo.err.hasPrefix("bench: error: unknown backend 'mycach' (did you mean 'mycache'?)"), "\(typo.err)")
    }
}
