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

private func object(_ key: String, _ size: Int, at time: Double = 0) -> Request { Request(time: time, key: key, size: size) }

/// A tier (`tier:MEM+DISK`, a preset, or `foundation-urlcache`) in `folder`.
private func backend(_ name: String, memory: Int, in folder: String, options: [String: String] = [:]) throws -> any CacheBackend {
    var config = BackendConfig(capacityBytes: memory, options: options, disk: DiskContext(directory: folder, probe: DiskIOProbe(), verify: true))
    config.materialize = true
    return try BackendRegistry.named(name).make(config)
}

private func store(_ cache: any CacheBackend, _ request: Request) throws {
    try cache.set(request, cost: request.size, payload: Payload(byteCount: request.size))
}

private func tiers(_ cache: any CacheBackend) -> TierCounts { cache.details.tiers! }

@Suite("Two-tier caches", .onTestWorkers)
struct TieredCacheTests {
    @Test("a disk hit is promoted into memory (evicting there), or stays on disk with promote=off")
    func promotion() throws {
        for promote in [true, false] {
            let folder = TemporaryFolder()
            let cache = try backend("tier:lru+files", memory: 100, in: folder.path, options: ["promote": promote ? "on" : "off", "disk-capacity": "1000"])
            try store(cache, object("a", 60, at: 1))
            try store(cache, object("b", 60, at: 2))  // memory (100) drops a; the disk keeps both
            #expect(cache.facts.entries == 1 && tiers(cache).diskEntries == 2)
            #expect(try cache.get(object("a", 60, at: 3)))  // from disk
            #expect(try cache.get(object("a", 60, at: 4)))  // memory when promoted, else disk again
            #expect(try cache.get(object("b", 60, at: 5)))  // promotion of a evicted b from memory
            let counts = tiers(cache)
            if promote {
                #expect(counts.diskHits == 2 && counts.memoryHits == 1 && counts.promotions == 2)
            } else {
                #expect(counts.diskHits == 2 && counts.memoryHits == 1 && counts.promotions == 0)
            }
            #expect(counts.diskWrites == 2 && counts.diskWriteBytes == 120)
            try cache.close()
        }
    }

    @Test("clear empties memory and keeps the disk; trim:F keeps the most recent F of the capacity")
    func clearAndTrim() throws {
        let folder = TemporaryFolder()
        let cleared = try backend("tier:lru+files", memory: 100, in: folder.path)
        for (index, key) in ["a", "b", "c", "d"].enumerated() { try store(cleared, object(key, 25, at: Double(index))) }
        #expect(try cleared.didReceiveMemoryWarning() == 100)
        #expect(cleared.facts.accountedBytes == 0 && tiers(cleared).diskEntries == 4)
        #expect(try cleared.get(object("a", 25, at: 10)) && tiers(cleared).diskHits == 1)
        try cleared.close()

        let other = TemporaryFolder()
        let trimmed = try backend("tier:lru+files", memory: 100, in: other.path, options: ["on-warning": "trim:0.5"])
        for (index, key) in ["a", "b", "c", "d"].enumerated() { try store(trimmed, object(key, 25, at: Double(index))) }
        #expect(try trimmed.get(object("a", 25, at: 5)))  // a is now the most recent: order b c d a
        #expect(try trimmed.didReceiveMemoryWarning() == 50)
        #expect(trimmed.facts.accountedBytes == 50)
        for key in ["d", "a"] { #expect(try trimmed.get(object(key, 25, at: 6))) }
        #expect(tiers(trimmed).memoryHits == 3 && tiers(trimmed).diskHits == 0)
        for key in ["b", "c"] { #expect(try trimmed.get(object(key, 25, at: 7))) }
        #expect(tiers(trimmed).diskHits == 2)
        try trimmed.close()
    }

    @Test("write=back: the disk is written only by flush-to-disk, and what memory evicted first is lost")
    func flushToDisk() throws {
        let folder = TemporaryFolder()
        let cache = try backend("tier:lru+files", memory: 100, in: folder.path, options: ["write": "back", "on-warning": "flush-to-disk"])
        try store(cache, object("a", 40, at: 1))
        try store(cache, object("b", 40, at: 2))
        #expect(tiers(cache).diskEntries == 0)
        try store(cache, object("c", 40, at: 3))  // memory drops a, never written
        #expect(try cache.didReceiveMemoryWarning() == 80)
        #expect(tiers(cache).flushed == 2 && tiers(cache).diskEntries == 2 && cache.facts.accountedBytes == 0)
        #expect(try !cache.get(object("a", 40, at: 4)))
        #expect(try cache.get(object("b", 40, at: 5)))
        #expect(try cache.get(object("c", 40, at: 6)))
        #expect(tiers(cache).diskHits == 2)
        try cache.close()
    }

    @Test("session=ephemeral has no disk tier; the memory-entry limit keeps costly entries out of memory")
    func ephemeralAndEntryLimit() throws {
        let folder = TemporaryFolder()
        let ephemeral = try backend("sdwebimage", memory: 100, in: folder.path, options: ["session": "ephemeral"])
        try store(ephemeral, object("a", 60, at: 1))
        try store(ephemeral, object("b", 60, at: 2))
        #expect(try !ephemeral.get(object("a", 60, at: 3)))  // gone from memory; no disk
        #expect(tiers(ephemeral).diskWrites == 0 && ephemeral.settings.contains("disk=none"))
        try ephemeral.close()

        let other = TemporaryFolder()
        let nuke = try backend("nuke", memory: 1000, in: other.path)  // entries above 10% (100) skip memory
        try store(nuke, object("https://x.test/big", 150, at: 1))
        try store(nuke, object("https://x.test/small", 50, at: 2))
        #expect(nuke.facts.accountedBytes == 50 && tiers(nuke).memoryRefused == 1)
        #expect(try nuke.get(object("https://x.test/big", 150, at: 3)))  // disk; its promotion is refused too
        #expect(tiers(nuke).diskHits == 1 && tiers(nuke).promotions == 0 && tiers(nuke).memoryRefused == 2)
        try nuke.close()
    }

    @Test("memory-ttl: an unread entry expires, every read extends it, the sweep removes expired ones")
    func memoryTTL() throws {
        let folder = TemporaryFolder()
        let cache = try backend("kingfisher", memory: 1000, in: folder.path)
        try store(cache, object("a", 10, at: 0))
        try store(cache, object("b", 10, at: 0))
        #expect(try cache.get(object("a", 10, at: 200)))  // memory; now lives to 500
        #expect(try cache.get(object("a", 10, at: 450)))  // memory, extended to 750
        #expect(tiers(cache).memoryHits == 2)
        // The sweep due at 450 (every 120 s from the first store) removed b, unread for 450 s.
        #expect(cache.facts.entries == 1 && tiers(cache).memoryExpired == 1)
        #expect(try cache.get(object("b", 10, at: 470)))  // from disk
        #expect(try cache.get(object("a", 10, at: 1200)))  // expired: disk
        #expect(tiers(cache).diskHits == 2 && tiers(cache).memoryExpired >= 2)
        try cache.close()
    }

    @Test("bad tiers and options are refused with a reason")
    func refusals() throws {
        let folder = TemporaryFolder()
        #expect(throws: WorkbenchError.self) { try BackendRegistry.named("tier:files+lru") }
        #expect(throws: WorkbenchError.self) { try BackendRegistry.named("tier:lru") }
        #expect(throws: WorkbenchError.self) { try BackendRegistry.named("tier:lru+foundation-urlcache") }
        #expect(throws: WorkbenchError.self) { try BackendRegistry.named("tier:lru+sdwebimage") }
        #expect(throws: WorkbenchError.self) { try backend("tier:lru+files", memory: 100, in: folder.path, options: ["on-warning": "trim:1.5"]) }
        #expect(throws: WorkbenchError.self) { try backend("tier:foundation-nscache+files", memory: 100, in: folder.path, options: ["on-warning": "trim:0.5"]) }
        #expect(throws: WorkbenchError.self) { try backend("tier:pfoo-l+files", memory: 100, in: folder.path) }
        #expect(throws: WorkbenchError.self) { try backend("tier:lru+files", memory: 100, in: folder.path, options: ["session": "ephemeral", "write": "back"]) }
        #expect(throws: WorkbenchError.self) { try backend("tier:lru+files", memory: 100, in: folder.path, options: ["disk-capacity": "0"]) }
    }

    @Test("every preset and a tier replay a trace: memory + disk hits are the hits, and runs repeat exactly")
    func presetsOnTheCLI() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", (0..<3000).map { "\($0),https://img.test/\(($0 * 7919) % 400).jpg,\(2000 + ($0 * 31) % 5000)" }.joined(separator: "\n"))
        var figures: [[String]] = []
        for round in 0..<2 {
            let csv = folder.path + "/r\(round).csv"
            let run = try bench(["run", "--trace", trace, "--backend", "tiers,tier:autopurge-o1+files[promote=off]", "--capacity", "100KB",
                                 "--memory-warning", "every:500", "--no-timing", "--csv", csv])
            #expect(run.status == 0, "\(run.err)")
            let rows = try csvRows(csv)
            #expect(rows.count == 6)
            for row in rows {
                let hits = Int(row["hits"]!)!, memory = Int(row["memory_hits"]!)!, disk = Int(row["disk_hits"]!)!
                #expect(memory + disk == hits, "\(row["backend"]!)")
                #expect(Int(row["disk_writes"]!)! > 0 && row["logical_write_bytes"] != "")
            }
            #expect(rows.last!["promotions"] == "0")
            figures.append(rows.map { [$0["hits"]!, $0["memory_hits"]!, $0["disk_hits"]!, $0["promotions"]!, $0["disk_evictions"]!] }.flatMap { $0 })
        }
        #expect(figures[0] == figures[1])
        let bad = try bench(["run", "--trace", trace, "--backend", "tier:lru+files[on-warning=drop]"])
        #expect(bad.status == 2 && bad.err.split(separator: "\n").count == 1 && bad.err.hasPrefix("bench: error:"))
    }
}

extension TieredCacheTests {
    @Test("in --mode http a tier counts lookups that found a body (stale ones too, so at least the hits), and the size rules' assumption is said")
    func httpMode() throws {
        let folder = TemporaryFolder()
        let csv = folder.path + "/h.csv"
        // sdwebimage reads no headers (issue 21 §6): every body found is served, so found = hits = library_hits;
        // the whole tier under the RFC (memory-rules=http) counts stale bodies found too: at least the hits.
        let run = try bench(["run", "--mode", "http", "--backend", "sdwebimage,tier:lru+files[memory-rules=http;disk-rules=http]", "--capacity", "2MB",
                             "--no-timing", "--csv", csv])
        #expect(run.status == 0, "\(run.err)")
        let rows = try csvRows(csv)
        let found = rows.map { Int($0["memory_hits"]!)! + Int($0["disk_hits"]!)! }
        #expect(found[0] == Int(rows[0]["hits"]!)! && rows[0]["library_hits"] == rows[0]["hits"] && found[0] > 0)
        #expect(found[1] >= Int(rows[1]["hits"]!)! && found[1] > 0 && rows[1]["library_hits"] == "0")
        #expect(run.out.contains("tier:lru+files[disk-rules=http;memory-rules=http] at 2MiB: in the HTTP mode the tier counts lookups that found a body"))
        #expect(!run.out.contains("sdwebimage at 2MiB: in the HTTP mode the tier counts lookups"))
        #expect(run.out.contains("sdwebimage at 2MiB: the HTTP mode's too_large is per tier (a response too large for memory is stored on disk only)\n"))
        #expect(run.out.contains("the memory tier's, not the disk tier's"))
    }
}

@Suite("foundation-urlcache", .onTestWorkers)
struct FoundationURLCacheTests {
    @Test("storing a key again, then evicting past it, does not trap (the backend removes before storing)")
    func noDoubleStoreCrash() throws {
        let folder = TemporaryFolder()
        // The facts' repro: memory 1000; A(300) twice, B(300), then C(800) evicts past A.
        let cache = try backend("foundation-urlcache", memory: 1 << 20, in: folder.path, options: ["memory-capacity": "1000"])
        for (key, size) in [("a", 300), ("a", 300), ("b", 300), ("c", 800)] {
            let request = object("https://x.test/\(key)", size)
            try cache.set(request, cost: size, payload: Payload(contentFor: request.keyText, byteCount: size))
        }
        #expect(try cache.get(object("https://x.test/c", 800)))
        #expect(try cache.get(object("https://x.test/a", 300)))
        try cache.close()
    }

    @Test("its host + port + path key serves another query's body (counted); urlcache-key=url does not")
    func keyCollision() throws {
        for keepsQuery in [false, true] {
            let folder = TemporaryFolder()
            let cache = try backend("foundation-urlcache", memory: 1 << 20, in: folder.path, options: ["urlcache-key": keepsQuery ? "url" : "host-port-path"])
            let stored = object("https://x.test/img?w=100", 500)
            try cache.set(stored, cost: 500, payload: Payload(contentFor: stored.keyText, byteCount: 500))
            #expect(try cache.get(stored))
            #expect(try cache.get(object("https://x.test/img?w=200", 500)) == !keepsQuery)
            #expect(try cache.get(object("http://x.test/img?w=100", 500)) == !keepsQuery)
            #expect(cache.details.wrongBodyHits == (keepsQuery ? 0 : 2))
            #expect(cache.facts.entries == 1)
            try cache.close()
        }
    }

    @Test("on the bundled HTTP session its key inflates the hit ratio over a correct key (lru on the whole URL)")
    func inflationOnTheCLI() throws {
        let folder = TemporaryFolder()
        let csv = folder.path + "/u.csv"
        let run = try bench(["run", "--trace", try BundledTrace.path(http: true), "--backend", "foundation-urlcache,lru", "--capacity", "20MB", "--cost", "encoded", "--csv", csv])
        #expect(run.status == 0, "\(run.err)")
        let rows = try csvRows(csv)
        let urlcache = Double(rows[0]["object_hit_ratio"]!)!, correct = Double(rows[1]["object_hit_ratio"]!)!
        #expect(urlcache > correct)
        #expect(Int(rows[0]["wrong_body_hits"]!)! > 0 && rows[1]["wrong_body_hits"] == "")
        #expect(rows[0]["syscall_write_bytes"] == "" && rows[0]["write_amplification"] == "")  // the probe cannot see its writes
        #expect(run.out.contains("returned another URL's body"))
    }
}
