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

/// Issue 41 ("Trust, third round"): Foundation's URLCache on a full disk (§1.2), bidi
/// controls in `bench report`'s page (§4.2), messages that say what happened (§6: the
/// admission option as written, pricing options under --cost encoded, docs that point at
/// no `../shared`), and the CSV header pinned to a literal (§7).

/// A small tmpfs mounted at `path` for the life of the value (root only): a real full disk,
/// as the issue's tester had. Unmounted (lazily, so a busy mount cannot hang) when dropped.
final class SmallDisk {
    let path: String

    init?(at path: String, bytes: Int) {
        self.path = path
        guard (try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)) != nil,
              let mounted = try? runBounded(10, "/bin/mount", ["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", path]),
              mounted.status == 0 else { return nil }
    }

    deinit { _ = try? runBounded(10, "/bin/umount", ["-l", path]) }

    /// Whether a tmpfs can be mounted here (root, and a kernel and sandbox that allow it).
    static let available: Bool = {
        let folder = TemporaryFolder()
        return SmallDisk(at: folder.path + "/probe", bytes: 64 << 10) != nil
    }()
}

/// The bidi controls of UAX #9 (embeddings, overrides, isolates, marks).
private let bidiControls: Set<UInt32> = Set([0x061C, 0x200E, 0x200F] + Array(0x202A...0x202E) + Array(0x2066...0x2069))

@Suite("Trust3Messages: foundation-urlcache on a full disk", .serialized, .onTestWorkers)
struct Trust3MessagesURLCacheTests {
    /// 100 keys of 20,000 bytes, each asked twice: 2 MB of bodies, four times a 512 KiB disk.
    static let trace: String = {
        var text = "time,key,size\n"
        for round in 0..<2 { for key in 0..<100 { text += "\(round * 100 + key),https://img.example/\(key).jpg,20000\n" } }
        return text
    }()

    @Test("41 §1.2: on a full disk the row fails, naming the lost store and the free space; with room it is ok",
          .enabled(if: SmallDisk.available, "needs root and tmpfs mounts (mount -t tmpfs) to make a full disk"))
    func fullDiskFailsTheRow() throws {
        let folder = TemporaryFolder()
        let tracePath = folder.file("t.csv", Self.trace)
        let disk = try #require(SmallDisk(at: folder.path + "/disk", bytes: 512 << 10))
        let full = try bench(["run", "--trace", tracePath, "--backend", "foundation-urlcache", "--capacity", "8MiB", "--no-timing",
                              "--cache-dir", disk.path + "/c", "--csv", folder.path + "/full.csv"])
        // A failed row is exit 1, as files and sqlite give on the same disk.
        #expect(full.status == 1, "\(full.out)\(full.err)")
        let row = try #require(try csvRows(folder.path + "/full.csv").first)
        #expect(row["status"] == "failed", "\(row)")
        let error = row["error"] ?? ""
        #expect(error.contains("URLCache kept no file for 'https://img.example/"), "\(error)")
        #expect(error.contains("Foundation swallows its write errors") && error.contains("free on its file system"), "\(error)")
        // With room (the test's own folder), the same run is ok: 100 hits of 200, every body on disk.
        let roomy = try bench(["run", "--trace", tracePath, "--backend", "foundation-urlcache", "--capacity", "8MiB", "--no-timing",
                               "--csv", folder.path + "/roomy.csv"])
        #expect(roomy.status == 0, "\(roomy.err)")
        let ok = try #require(try csvRows(folder.path + "/roomy.csv").first)
        #expect(ok["status"] == "ok" && ok["hits"] == "100" && ok["evictions"] == "0", "\(ok)")
    }

    @Test("41 §1.2: a URL too long for a file name is a memory-only store, counted and said, not a lost one")
    func longURLIsMemoryOnly() throws {
        let folder = TemporaryFolder()
        // 300 bytes of path: a 428-byte identifier, past the 255 bytes of a file name.
        let url = "https://img.example/" + String(repeating: "a", count: 300) + ".jpg"
        let tracePath = folder.file("long.csv", "time,key,size\n0,\(url),2000\n1,\(url),2000\n")
        let result = try bench(["run", "--trace", tracePath, "--backend", "foundation-urlcache", "--capacity", "8MiB", "--no-timing", "--csv", folder.path + "/o.csv"])
        #expect(result.status == 0, "\(result.err)")
        let row = try #require(try csvRows(folder.path + "/o.csv").first)
        #expect(row["status"] == "ok" && row["hits"] == "1", "\(row)")
        #expect(row["backend_remarks"]?.contains("1 stores had a URLCache file name longer than the 255 bytes a file name may have") == true, "\(row["backend_remarks"] ?? "")")
        #expect(URLCacheStoreCheck.fileNameBytes(identifier: "YWJj", now: Date(timeIntervalSinceReferenceDate: 817_000_000)) == 9 + 1 + 4 + 1 + 23)
    }

    @Test("41 §1.2: the check itself: a missing file, a short file, a body too near the capacity to judge")
    func storeCheck() throws {
        let folder = TemporaryFolder()
        let store = URLCacheStoreCheck.Store(key: "https://a.example/x", identifier: "YWJj", bodyBytes: 1000, diskCapacity: 1 << 20)
        let missing = try #require(URLCacheStoreCheck.lost(store, names: ["1.ZGVm.storedcachedurlresponse"], directory: folder.path, backend: "foundation-urlcache"))
        #expect(missing.reason.hasPrefix("URLCache kept no file for 'https://a.example/x' (a 1000B body, within its disk capacity of 1MiB)"), "\(missing)")
        // Present and at least the body: kept.
        folder.bytes("7.YWJj.storedcachedurlresponse", [UInt8](repeating: 1, count: 1200))
        #expect(URLCacheStoreCheck.lost(store, names: ["7.YWJj.storedcachedurlresponse"], directory: folder.path, backend: "foundation-urlcache") == nil)
        // Shorter than the body it was handed: lost too.
        folder.bytes("8.YWJj.storedcachedurlresponse", [UInt8](repeating: 1, count: 10))
        let short = try #require(URLCacheStoreCheck.lost(store, names: ["8.YWJj.storedcachedurlresponse"], directory: folder.path, backend: "foundation-urlcache"))
        #expect(short.reason.hasPrefix("URLCache's file for 'https://a.example/x' holds 10B, less than the 1000B body"), "\(short)")
        // Within 16 KiB + 4 × the key of the capacity Foundation may leave it out on purpose.
        var near = store
        near.diskCapacity = 1000 + 16 * 1024 + 4 * 19
        #expect(URLCacheStoreCheck.lost(near, names: [], directory: folder.path, backend: "foundation-urlcache") == nil)
        near.diskCapacity += 1
        #expect(URLCacheStoreCheck.lost(near, names: [], directory: folder.path, backend: "foundation-urlcache") != nil)
    }
}

@Suite("Trust3Messages: bench report and bidi controls", .serialized, .onTestWorkers)
struct Trust3MessagesReportTests {
    @Test("41 §4.2: U+202E and the other bidi controls in trace and backend cells never reach the page raw")
    func bidiControlsEscaped() throws {
        try Trust2ReportTests.requirePython()
        let folder = TemporaryFolder()
        // A trace named with a right-to-left override, as the issue's CSV had.
        let tracePath = folder.file("evil\u{202E}lmth.csv", "time,key,size\n0,a,10\n1,b,10\n2,a,10\n3,c,10\n4,a,10\n")
        let csv = folder.path + "/r.csv"
        let made = try Trust2ReportTests.bench(["run", "--trace", tracePath, "--backend", "lru,fifo", "--capacity", "20,30", "--no-timing", "--csv", csv])
        try #require(made.status == 0, "\(made.err)")
        // And a backend cell with every other control (the label the reading names rows by).
        var text = try String(contentsOfFile: csv, encoding: .utf8)
        let others = "\u{202A}\u{202B}\u{202C}\u{202D}\u{2066}\u{2067}\u{2068}\u{2069}\u{200E}\u{200F}\u{061C}"
        text = text.replacingOccurrences(of: ",fifo,", with: ",fi\(others)fo,")
        try text.write(toFile: csv, atomically: false, encoding: .utf8)
        let page = folder.path + "/r.html"
        let report = try Trust2ReportTests.bench(["report", csv, "--out", page])
        #expect(report.status == 0, "\(report.err)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let raw = html.unicodeScalars.filter { bidiControls.contains($0.value) }
        #expect(raw.isEmpty, "raw bidi controls in the page: \(raw.map { String($0.value, radix: 16) })")
        // Shown as their codes, as the terminal table shows them, in the title and the table.
        #expect(html.contains("<title>Cache workbench report: evil\\u{202e}lmth.csv</title>"))
        #expect(html.contains("fi\\u{202a}\\u{202b}\\u{202c}\\u{202d}\\u{2066}\\u{2067}\\u{2068}\\u{2069}\\u{200e}\\u{200f}\\u{61c}fo"))
    }
}

@Suite("Trust3Messages: messages that say what happened", .serialized, .onTestWorkers)
struct Trust3MessagesTextTests {
    static let trace = "time,key,size\n0,a,10\n1,b,10\n2,a,10\n"

    @Test("41 §6: an admission error names the option as written, lru[admission=prob:0], not a --admission flag", arguments: [
        ("lru[admission=prob:0]", "backend 'lru[admission=prob:0]': P must be a number above 0 and at most 1"),
        ("s3fifo[admission=size:-5]", "backend 's3fifo[admission=size:-5]': N must be a whole number of bytes above 0"),
        ("fifo[admission=nope]", "backend 'fifo[admission=nope]': unknown admission 'nope'"),
        ("lirs[admission=tinylfu:2]", "backend 'lirs[admission=tinylfu:2]': TinyLFU compares the candidate with the policy's next victim, which lirs cannot give"),
    ])
    func admissionAsWritten(backend: String, message: String) throws {
        let folder = TemporaryFolder()
        let result = try bench(["run", "--trace", folder.file("t.csv", Self.trace), "--backend", backend, "--capacity", "20", "--no-timing"])
        #expect(result.status == 2)
        #expect(result.err.hasPrefix("bench: error: " + message), "\(result.err)")
        #expect(!result.err.contains("--admission") && result.err.split(separator: "\n").count == 1, "\(result.err)")
    }

    @Test("41 §6: --decoded-ratio, --url-units and --infer-dimensions under --cost encoded are refused, naming both", arguments: [
        (["--decoded-ratio", "4"], "--decoded-ratio prices objects by pixels, which --cost encoded does not do"),
        (["--infer-dimensions", "off"], "--infer-dimensions prices objects by pixels, which --cost encoded does not do"),
        (["--url-units", "points", "--device", "iphone-13"], "--url-units prices objects by pixels, which --cost encoded does not do"),
        (["--decoded-ratio", "4", "--infer-dimensions", "url"], "--infer-dimensions and --decoded-ratio price objects by pixels, which --cost encoded does not do"),
    ])
    func pricingUnderEncodedCost(options: [String], message: String) throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", Self.trace)
        for command in ["run", "sweep"] {
            let capacity = command == "run" ? ["--capacity", "20"] : ["--capacity", "10..20", "--points", "2"]
            let result = try bench([command, "--trace", trace, "--backend", "lru", "--no-timing", "--cost", "encoded"] + capacity + options)
            #expect(result.status == 2, "\(command): \(result.err)")
            #expect(result.err.hasPrefix("bench: error: " + message), "\(command): \(result.err)")
            #expect(result.err.split(separator: "\n").count == 1 && result.out.isEmpty, "\(command): \(result.out)\(result.err)")
        }
        // Under pixel or auto cost the same options are taken.
        let taken = try bench(["run", "--trace", trace, "--backend", "lru", "--no-timing", "--capacity", "20", "--cost", "pixels"] + options)
        #expect(taken.status == 0, "\(taken.err)")
    }

    @Test("41 §6: --cost encoded alone, and --infer-dimensions unset, still run")
    func encodedCostAlone() throws {
        let folder = TemporaryFolder()
        let result = try bench(["run", "--trace", folder.file("t.csv", Self.trace), "--backend", "lru", "--capacity", "20", "--no-timing", "--cost", "encoded"])
        #expect(result.status == 0 && result.out.contains("hit ratio"), "\(result.err)")
    }

    @Test("41 §6: no doc page points at ../shared (a user's clone has none)")
    func docsNameNoSharedFolder() throws {
        let root = SourceCheckout.root.path
        var pages = ["README.md", "Traces/README.md", "scripts/adversarial.d/README.md"].map { root + "/" + $0 }
        for folder in ["docs", "Benchmarks", "Examples", "notebooks", "Sources"] {
            let enumerator = FileManager.default.enumerator(atPath: root + "/" + folder)
            while let name = enumerator?.nextObject() as? String {
                if name.hasSuffix(".md") { pages.append(root + "/" + folder + "/" + name) }
            }
        }
        #expect(pages.count >= 43, "doc pages found: \(pages.count)")
        for page in pages {
            let lines = try String(contentsOfFile: page, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where line.contains("../shared") || line.contains("HTTP-CACHING-FACTS.md") {
                Issue.record("\(page):\(number + 1): \(line.prefix(120))")
            }
        }
    }
}

/// The results CSV's header as `bench run` wrote it at issue 41 (literal: a test comparing
/// it with `RunResult.columnNames` passes whatever the list becomes). Columns are added at
/// the end, never renamed; a deliberate addition updates this line.
let resultsHeader = """
run_id,trace,trace_requests,mode,backend,backend_options,cost_model,capacity_bytes,requests,hits,misses,\
object_hit_ratio,byte_hit_ratio,get_p50_ns,get_p99_ns,get_p999_ns,get_max_ns,set_p50_ns,set_p99_ns,set_p999_ns,\
throughput_rps,wall_s,accounted_peak_bytes,allocated_peak_bytes,rss_peak_bytes,memory_overhead_ratio,memory_warnings,\
evictions,logical_write_bytes,syscall_write_bytes,page_write_bytes,fsyncs,write_amplification,disk_footprint_bytes,\
git_rev,swift_version,allocator,status,error,trace_sha256,capacity_spec,working_set_bytes,dropped_zero_size,too_large,\
skipped_rows,get_p90_ns,set_p90_ns,set_max_ns,timing,preloaded,clock_overhead_ns,final_entries,final_accounted_bytes,\
seed,trace_load_s,materialized,memory_warning_schedule,warning_released_bytes,hit_ratio_before_warnings,\
hit_ratio_after_warnings,space_amplification,db_write_bytes,journal_write_bytes,wal_write_bytes,data_write_bytes,\
other_write_bytes,write_calls,cache_dir,verify,get_hit_p50_ns,get_hit_p90_ns,get_hit_p99_ns,get_hit_p999_ns,\
get_hit_max_ns,get_hits_timed,get_miss_p50_ns,get_miss_p90_ns,get_miss_p99_ns,get_miss_p999_ns,get_miss_max_ns,\
get_misses_timed,pixel_rules,cost_from_dimensions,cost_from_url,cost_from_ratio,cost_from_encoded,ignore_obj_size,\
warmup_requests,variant,repeats,get_p50_ns_min,get_p50_ns_max,get_p90_ns_min,get_p90_ns_max,get_p99_ns_min,\
get_p99_ns_max,get_p999_ns_min,get_p999_ns_max,get_max_ns_min,get_max_ns_max,get_hit_p50_ns_min,get_hit_p50_ns_max,\
get_hit_p90_ns_min,get_hit_p90_ns_max,get_hit_p99_ns_min,get_hit_p99_ns_max,get_hit_p999_ns_min,get_hit_p999_ns_max,\
get_hit_max_ns_min,get_hit_max_ns_max,get_miss_p50_ns_min,get_miss_p50_ns_max,get_miss_p90_ns_min,get_miss_p90_ns_max,\
get_miss_p99_ns_min,get_miss_p99_ns_max,get_miss_p999_ns_min,get_miss_p999_ns_max,get_miss_max_ns_min,\
get_miss_max_ns_max,set_p50_ns_min,set_p50_ns_max,set_p90_ns_min,set_p90_ns_max,set_p99_ns_min,set_p99_ns_max,\
set_p999_ns_min,set_p999_ns_max,set_max_ns_min,set_max_ns_max,throughput_rps_min,throughput_rps_max,wall_s_min,\
wall_s_max,method,http_settings,fresh_hits,stale_served,revalidations,not_modified,origin_fetches,origin_requests,\
origin_bytes,offline_failures,not_stored,not_stored_reasons,invalidations,background_revalidations,heuristic_lifetimes,\
validated_by_size,wrong_body_hits,sizes_from_earlier_response,vary_mismatches,coalesced_requests,origin_fetches_saved,\
downloads,queue_wait_p50_ms,queue_wait_p99_ms,queue_wait_max_ms,memory_hits,disk_hits,memory_hit_ratio,disk_hit_ratio,\
promotions,disk_writes,flushed_to_disk,memory_expired,memory_refused,disk_evictions,disk_entries,disk_bytes,\
backend_remarks,sweep_point,orphans_removed,plan_id,warning_hits_lost,warning_hits_lost_per_warning,\
warning_memory_hits_lost,warning_disk_hits_gained,warning_recovery_requests,warning_recovery_max_requests,\
warnings_unrecovered,warning_window,sample_every,disk_refused,durability,model_of,device,capacity_rule,http_rules,\
library_hits,unique_objects,compulsory_misses,command,points_at_once,gets,sets,deletes,admitted,rejected,hit_bytes,\
miss_bytes,app_hit_ratio,app_compared,app_agreeing,background_events,cost_from_recorded,cost_from_estimate,prefetches,prefetch_hits,wasted_prefetches,prefetches_unused,har_runs,runs,\
run_hit_ratio_mean,run_hit_ratio_min,run_hit_ratio_max,run_hit_ratios,run_byte_hit_ratio_mean,run_byte_hit_ratio_min,\
run_byte_hit_ratio_max,run_byte_hit_ratios,outcome_bits
"""
