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

/// Issue 21 §6: in `--mode http` each layer of a preset follows its own rules — RFC 9111 only
/// where the layer is a URLCache (AFNetworking's and Nuke's disk), demand-fill within the run
/// for the libraries' own caches (SDWebImage, Kingfisher, PINCache, every memory layer) —
/// and the row says which (`http_rules`); plus every row's ceiling columns and command line.
@Suite("issue 21 §6: HTTP rules per layer", .serialized, .onTestWorkers)
struct HTTPLayersTests {
    /// Two URLs requested twice, 1,000 bytes each, Date stamped at the request:
    ///   t=0  A  Cache-Control: no-store
    ///   t=10 B  Cache-Control: max-age=0, ETag "v1"
    ///   t=20 A  no-store again
    ///   t=30 B  max-age=0, ETag "v1" (the origin's answer to a revalidation: unchanged)
    static func har(in folder: TemporaryFolder) -> String {
        let t0 = 1_767_225_600  // 2026-01-01 00:00:00 UTC
        let entries = [(0, "a", "no-store", ""), (10, "b", "max-age=0", "\"v1\""), (20, "a", "no-store", ""), (30, "b", "max-age=0", "\"v1\"")]
            .map { at, name, control, etag in
                let headers = [("Date", HTTPDate.format(t0 + at)), ("Cache-Control", control)] + (etag.isEmpty ? [] : [("ETag", etag)])
                let fields = headers.map { #"{"name":"\#($0.0)","value":"\#($0.1.replacingOccurrences(of: "\"", with: "\\\""))"}"# }
                return #"{"startedDateTime":"2026-01-01T00:00:\#(String(format: "%02d", at)).000Z","request":{"method":"GET","url":"https://x.test/\#(name).jpg","headers":[]},"#
                    + #""response":{"status":200,"headers":[\#(fields.joined(separator: ","))],"content":{"size":1000,"mimeType":"image/jpeg"},"bodySize":1000}}"#
            }
        return folder.file("layers.har", #"{"log":{"version":"1.2","creator":{"name":"test","version":"1"},"entries":[\#(entries.joined(separator: ","))]}}"#)
    }

    /// `bench run --mode http` of the HAR on `backends` at `capacity` → rows by backend label.
    static func run(_ backends: String, capacity: String, in folder: TemporaryFolder) throws -> (rows: [String: [String: String]], out: String) {
        let csv = folder.path + "/\(UUID().uuidString).csv"
        let result = try bench(["run", "--mode", "http", "--trace", har(in: folder), "--backend", backends, "--capacity", capacity,
                                "--no-timing", "--csv", csv])
        #expect(result.status == 0, "\(result.err)")
        let table = try ResultsTable.parse(try String(contentsOfFile: csv, encoding: .utf8), path: csv, columns: RunResult.columnNames)
        var rows: [String: [String: String]] = [:]
        for row in table.rows.map({ Dictionary(uniqueKeysWithValues: zip(table.header, $0)) }) { rows[row["backend"]!] = row }
        return (rows, result.out)
    }

    static func counts(_ row: [String: String]?, _ columns: [String]) -> [String] { columns.map { row?[$0] ?? "missing" } }

    static let columns = ["hits", "library_hits", "fresh_hits", "not_modified", "revalidations", "origin_fetches", "origin_requests",
                          "not_stored", "memory_hits", "disk_hits"]

    @Test("memory 1 MB: every library's memory layer serves the second request of a no-store and a max-age=0 response (hand-computed)")
    func memoryServes() throws {
        let folder = TemporaryFolder()
        let (rows, out) = try Self.run("sdwebimage,kingfisher,afnetworking,nuke,pincache", capacity: "1MB", in: folder)
        // Every preset: A and B miss (2 fetches), are stored in memory whatever the headers say; the
        // second A and B are memory hits, headers unread: hits 2 = library_hits 2, memory_hits 2.
        // sdwebimage, kingfisher, pincache store on their own disk too (files): nothing refused.
        for name in ["sdwebimage", "kingfisher", "pincache"] {
            #expect(Self.counts(rows[name], Self.columns) == ["2", "2", "0", "0", "0", "2", "2", "0", "2", "0"], "\(name)")
            #expect(rows[name]?["http_rules"] == "memory:none;disk:none")
        }
        // afnetworking, nuke: the disk layer is a URLCache: A's no-store response is not stored there
        // (not_stored 1: the second A never reached it), B's is.
        for name in ["afnetworking", "nuke"] {
            #expect(Self.counts(rows[name], Self.columns) == ["2", "2", "0", "0", "0", "2", "2", "1", "2", "0"], "\(name)")
            #expect(rows[name]?["http_rules"] == "memory:none;disk:rfc9111")
        }
        #expect(out.contains(": HTTP rules by layer, memory:none;disk:rfc9111: 2 hits served by a layer that reads no headers (library_hits)"))
    }

    @Test("memory 500 bytes (too small for a 1,000-byte body): the disk layer alone — files serve both, the URLCache refuses no-store and revalidates max-age=0")
    func diskDecides() throws {
        let folder = TemporaryFolder()
        let (rows, _) = try Self.run("sdwebimage,kingfisher,afnetworking,lru", capacity: "500", in: folder)
        // sdwebimage, kingfisher: memory refuses every body (memory_refused), the files keep them:
        // A, B fetched (2); second A, B disk hits, served headers unread: hits 2, disk_hits 2.
        for name in ["sdwebimage", "kingfisher"] {
            #expect(Self.counts(rows[name], Self.columns) == ["2", "2", "0", "0", "0", "2", "2", "0", "0", "2"], "\(name)")
        }
        // afnetworking: its URLCache (150 MB) does the RFC's work.
        //   A fetched, no-store: not stored (1). B fetched, stored (max-age=0 is an explicit lifetime).
        //   A again: memory miss, disk miss, fetched, not stored (2).
        //   B again: memory miss, disk hit, age 20 s > 0: stale, revalidated with ETag "v1", the origin's
        //   answer carries "v1": 304, served (hits 1 = not_modified 1). Fetches 3, origin requests 3 + 1 = 4.
        //   The disk found B once (disk_hits 1); memory never held anything.
        #expect(Self.counts(rows["afnetworking"], Self.columns) == ["1", "0", "0", "1", "1", "3", "4", "2", "0", "1"])
        // A plain memory backend is one HTTP cache (whole:rfc9111), too small for either body: 4 fetches, no hit.
        #expect(rows["lru"]?["http_rules"] == "whole:rfc9111")
        #expect(rows["lru"]?["hits"] == "0" && rows["lru"]?["library_hits"] == "0" && rows["lru"]?["origin_fetches"] == "4")
    }

    @Test("memory-rules=http puts the whole tier under the RFC (today's model before §6): the second no-store request misses")
    func wholeTier() throws {
        let folder = TemporaryFolder()
        let (rows, _) = try Self.run("sdwebimage[memory-rules=http;disk-rules=http]", capacity: "1MB", in: folder)
        let row = try #require(rows["sdwebimage"])
        // A: not stored anywhere (no-store), fetched twice; B: stored, stale on its second request, revalidated: 304.
        #expect(Self.counts(row, ["hits", "library_hits", "not_modified", "origin_fetches", "not_stored"]) == ["1", "0", "1", "3", "2"])
        #expect(row["http_rules"] == "whole:rfc9111")
    }

    @Test("layer rules: defaults by disk kind, the options, and the combinations that are refused")
    func rules() throws {
        let folder = TemporaryFolder()
        func layers(_ name: String, _ options: [String: String] = [:]) throws -> HTTPLayers {
            let config = BackendConfig(capacityBytes: 1000, options: options, disk: DiskContext(directory: folder.path + "/\(UUID().uuidString)", probe: DiskIOProbe(), verify: false))
            let backend = try BackendRegistry.named(name).make(config)
            defer { try? backend.close() }
            return try #require(backend as? TieredCache).httpLayers
        }
        #expect(try layers("afnetworking") == HTTPLayers(memory: .none, disk: .http))
        #expect(try layers("nuke") == HTTPLayers(memory: .none, disk: .http))
        #expect(try layers("sdwebimage") == HTTPLayers(memory: .none, disk: HTTPLayers.Rules.none))
        #expect(try layers("tier:lru+sqlite") == HTTPLayers(memory: .none, disk: .http))
        #expect(try layers("nuke", ["disk-rules": "none"]) == HTTPLayers(memory: .none, disk: HTTPLayers.Rules.none))  // Nuke with DataCache
        #expect(try layers("kingfisher", ["session": "ephemeral"]) == HTTPLayers(memory: .none, disk: nil))
        #expect(try layers("tier:lru+sqlite", ["write": "back", "on-warning": "flush-to-disk"]).disk == HTTPLayers.Rules.none)
        #expect(throws: WorkbenchError.self) { try layers("sdwebimage", ["memory-rules": "http"]) }
        #expect(throws: WorkbenchError.self) { try layers("afnetworking", ["disk-rules": "rfc"]) }
        #expect(throws: WorkbenchError.self) { try layers("tier:lru+sqlite", ["write": "back", "disk-rules": "http", "on-warning": "flush-to-disk"]) }
        #expect(HTTPLayers(memory: .none, disk: .http).description(profile: "apple") == "memory:none;disk:apple")
    }
}

/// Issue 21 §4 (B, C): every row carries the trace's unique objects, the replay's compulsory
/// misses and the command line it was run with.
@Suite("rows carry their ceiling and command", .serialized, .onTestWorkers)
struct RowFactsTests {
    @Test("unique_objects and compulsory_misses, with and without a warm-up (hand-computed)")
    func ceilingColumns() throws {
        let folder = TemporaryFolder()
        // a b a c b a d: 4 unique objects. Without warm-up the 4 first requests are compulsory.
        // --warmup 2 replays a, b first: of the 5 counted (a c b a d), c and d are first requests: 2.
        let trace = folder.file("t.csv", "time,key,size\n" + ["a", "b", "a", "c", "b", "a", "d"].enumerated().map { "\($0),\($1),10" }.joined(separator: "\n") + "\n")
        for (warmup, requests, compulsory) in [(nil, "7", "4"), ("2", "5", "2")] as [(String?, String, String)] {
            let csv = folder.path + "/r\(warmup ?? "0").csv"
            let result = try bench(["run", "--trace", trace, "--backend", "lru,fifo", "--capacity", "20,1KiB", "--no-timing", "--csv", csv] + (warmup.map { ["--warmup", $0] } ?? []))
            #expect(result.status == 0, "\(result.err)")
            let rows = try csvRows(csv)
            #expect(rows.count == 4)
            for row in rows {
                #expect(row["requests"] == requests && row["unique_objects"] == "4" && row["compulsory_misses"] == compulsory, "\(row)")
            }
        }
    }

    @Test("a sweep's rows (the Mattson points included) carry the same columns and the sweep's command")
    func sweepRows() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", "time,key,size\n" + ["a", "b", "a", "c", "b", "a", "d"].enumerated().map { "\($0),\($1),10" }.joined(separator: "\n") + "\n")
        let csv = folder.path + "/s.csv"
        let arguments = ["sweep", "--trace", trace, "--backend", "lru,fifo", "--capacity", "10..40", "--points", "2", "--no-timing", "--csv", csv]
        let result = try bench(arguments)
        #expect(result.status == 0, "\(result.err)")
        let text = try String(contentsOfFile: csv, encoding: .utf8)
        let table = try ResultsTable.parse(text, path: csv, columns: RunResult.columnNames)
        let rows = table.rows.map { Dictionary(uniqueKeysWithValues: zip(table.header, $0)) }
        #expect(rows.count == 4 && rows.contains { $0["method"] == "mattson" })
        for row in rows {
            #expect(row["unique_objects"] == "4" && row["compulsory_misses"] == "4")
            #expect(row["command"] == "bench " + arguments.joined(separator: " "))
        }
    }

    @Test("the command column is the command line as a shell reads it back")
    func commandColumn() throws {
        #expect(ShellQuoting.line(["bench", "run", "--trace", "my trace's.csv", "--capacity", "10%", "--backend", "nscache[eviction=lru]", ""])
            == #"bench run --trace 'my trace'\''s.csv' --capacity 10% --backend 'nscache[eviction=lru]' ''"#)
        let folder = TemporaryFolder()
        let trace = folder.file("a b.csv", "time,key,size\n0,a,10\n1,a,10\n")
        let csv = folder.path + "/r.csv"
        let result = try bench(["run", "--trace", trace, "--backend", "lru,fifo", "--capacity", "1KiB", "--no-timing", "--csv", csv])
        #expect(result.status == 0, "\(result.err)")
        let table = try ResultsTable.parse(try String(contentsOfFile: csv, encoding: .utf8), path: csv, columns: RunResult.columnNames)
        let commands = Set(table.rows.map { $0[table.header.firstIndex(of: "command")!] })
        #expect(commands == ["bench run --trace '\(trace)' --backend lru,fifo --capacity 1KiB --no-timing --csv \(csv)"])
    }
}

extension HTTPLayersTests {
    @Test("with downloads in flight (--coalesce) every request is answered exactly once, by a layer or the origin, and hits add up by kind")
    func downloadsAddUp() throws {
        let folder = TemporaryFolder()
        let csv = folder.path + "/c.csv"
        let result = try bench(["run", "--mode", "http", "--backend", "afnetworking,sdwebimage,nuke,lru", "--capacity", "2MB", "--no-timing", "--coalesce", "--csv", csv])
        #expect(result.status == 0, "\(result.err)")
        let rows = try csvRows(csv)
        #expect(rows.count == 4)
        for row in rows {
            let n = { (column: String) in Int(row[column] ?? "") ?? -1 }
            // The bundled session has no stale-while-revalidate, so no background revalidation: each request is
            // one hit (a library's, fresh, stale or 304), one full fetch, or one join of a download in flight.
            #expect(n("background_revalidations") == 0 && n("offline_failures") == 0)
            #expect(n("hits") == n("library_hits") + n("fresh_hits") + n("stale_served") + n("not_modified"), "\(row["backend"]!)")
            #expect(n("hits") + n("origin_fetches") + n("coalesced_requests") == n("requests"), "\(row["backend"]!)")
            #expect(n("coalesced_requests") > 0)
        }
        // Only the URLCache layers revalidate; the libraries' own caches never do.
        #expect(rows.first { $0["backend"] == "sdwebimage" }?["revalidations"] == "0")
        #expect(rows.first { $0["backend"] == "afnetworking" }.map { Int($0["not_modified"]!)! > 0 } == true)
    }
}
