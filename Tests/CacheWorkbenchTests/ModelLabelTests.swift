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

/// Issue 21 §8: what each model is, wherever it is shown.
@Suite("Model labels: nscache is a model, foundation-nscache is Linux's", .serialized, .onTestWorkers)
struct ModelLabelTests {
    @Test("model_of by backend name, tiers and presets included")
    func families() {
        let expected: [(String, ModelFamily)] = [
            ("nscache", .ios), ("autopurge", .ios), ("sqlite", .ios), ("files", .ios), ("sdwebimage", .ios), ("nuke", .ios),
            ("tier:nscache+files", .ios), ("foundation-nscache", .linuxCorelibs), ("foundation-urlcache", .linuxCorelibs),
            ("tier:foundation-nscache+sqlite", .linuxCorelibs), ("lru", .policy), ("s3fifo", .policy), ("belady", .policy), ("pfoo-l", .policy),
        ]
        for (name, family) in expected { #expect(ModelFamily.of(backend: name) == family, "\(name)") }
        // Every registered backend has a family; only the corelibs ones are Linux's.
        let linux = BackendRegistry.all.filter { ModelFamily.of(backend: $0.name) == .linuxCorelibs }.map(\.name)
        #expect(Set(linux) == ["foundation-nscache", "foundation-urlcache"])
    }

    /// The line of `bench list` that starts with the backend's name.
    private static func listLine(_ list: String, _ name: String) -> String? {
        list.split(separator: "\n").map(String.init).first { $0.hasPrefix("  \(name) ") }
    }

    @Test("bench list: nscache is an LRU model with hard limits, Apple's limits are hints; foundation-nscache is Linux's")
    func listText() throws {
        let result = try bench(["list"])
        #expect(result.status == 0)
        let nscache = try #require(Self.listLine(result.out, "nscache"))
        #expect(nscache.contains("a model of NSCache, not Apple's: an LRU with hard cost and count limits"))
        #expect(nscache.contains("Apple's NSCache treats both limits as hints and documents no eviction order"))
        let foundation = try #require(Self.listLine(result.out, "foundation-nscache"))
        #expect(foundation.contains("the Linux swift-corelibs-foundation NSCache"))
        #expect(foundation.contains("never an iOS candidate"))
        // The durability option is listed for both disk backends.
        #expect(result.out.components(separatedBy: "--durability: none (default, every disk backend").count - 1 == 2)
    }

    @Test("bench run: model_of in the CSV and a note per NSCache kind under the table")
    func runLabels() throws {
        let folder = TemporaryFolder()
        let tracePath = folder.file("t.csv", "time,key,size\n0,A,4\n1,B,4\n2,A,4\n")
        let csv = folder.path + "/r.csv"
        let result = try bench(["run", "--trace", tracePath, "--backend", "nscache,foundation-nscache,lru", "--capacity", "1MiB", "--no-timing", "--csv", csv])
        #expect(result.status == 0, "\(result.err)")
        let rows = try csvRows(csv)
        #expect(rows.map { $0["model_of"] } == ["ios", "linux-corelibs", "policy"])
        #expect(rows.map { $0["durability"] } == ["", "", ""])
        #expect(result.out.contains("note: nscache (alone or as a tier's memory: sdwebimage, kingfisher) is a model, not Apple's NSCache: an LRU with hard cost and count limits"))
        #expect(result.out.contains("note: foundation-nscache is the Linux swift-corelibs-foundation NSCache"))
        #expect(!result.out.contains("durability"))  // no disk row: nothing said about it

        // Without either NSCache, neither note.
        let plain = try bench(["run", "--trace", tracePath, "--backend", "lru,autopurge", "--capacity", "1MiB", "--no-timing"])
        #expect(!plain.out.contains("NSCache"))
    }
}
