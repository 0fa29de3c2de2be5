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

/// Issue 43 §3: the image libraries' own behaviour that changes the answer — SDWebImage's
/// weak memory cache, downsampling to the display size, bytes-per-row padding. Every
/// expected value is hand arithmetic in the comment beside it.
@Suite("The libraries' own behaviour: weak cache, downsampling, row padding", .onTestWorkers)
struct LibraryBehaviourTests {
    private static func preset(_ name: String, memory: Int, in folder: String, options: [String: String] = [:]) throws -> any CacheBackend {
        var config = BackendConfig(capacityBytes: memory, options: options, disk: DiskContext(directory: folder, probe: DiskIOProbe(), verify: true))
        config.materialize = true
        return try BackendRegistry.named(name).make(config)
    }

    /// A get, and a set on a miss, as the replayer does.
    private static func request(_ cache: any CacheBackend, _ key: String, at time: Double) throws -> Bool {
        let request = Request(time: time, key: key, size: 10)
        if try cache.get(request) { return true }
        try cache.set(request, cost: 10, payload: Payload(byteCount: 10))
        return false
    }

    /// on-screen=2: a, b, c stored (the screen shows b, c), a warning clears memory. c is on
    /// screen: found in the weak map, a memory hit, put back. a and b left the screen (a
    /// scrolled off before the warning, b when a came back): disk hits. Without the weak
    /// cache all three are disk hits.
    @Test("after a warning, an on-screen image is found again and an off-screen one is not")
    func weakCacheAfterWarning() throws {
        for weak in [true, false] {
            let folder = TemporaryFolder()
            let options = weak ? ["weak-cache": "on", "on-screen": "2"] : [:]
            let cache = try Self.preset("sdwebimage", memory: 1_000, in: folder.path, options: options)
            for (time, key) in ["a", "b", "c"].enumerated() { #expect(try !Self.request(cache, key, at: Double(time))) }
            #expect(try cache.didReceiveMemoryWarning() == 30)
            #expect(try Self.request(cache, "c", at: 3))
            #expect(try Self.request(cache, "a", at: 4))
            #expect(try Self.request(cache, "b", at: 5))
            let counts = try #require(cache.details.tiers)
            if weak {
                #expect(counts.memoryHits == 1 && counts.weakHits == 1 && counts.diskHits == 2 && counts.promotions == 2)
                #expect(counts.weakCacheOnScreen == 2)
                #expect(cache.settings.contains(";weak-cache=on;on-screen=2"))
            } else {
                #expect(counts.memoryHits == 0 && counts.weakHits == 0 && counts.diskHits == 3)
                #expect(counts.weakCacheOnScreen == nil && !cache.settings.contains("weak-cache"))
            }
            #expect(cache.facts.entries == 3)  // c put back (or promoted), a and b promoted
            try cache.close()
        }
    }

    /// An explicit removal clears the weak map (SDMemoryCache.removeObjectForKey); an eviction
    /// does not: memory of 10 bytes holds one image, b evicts a, and a, still on screen,
    /// comes back from the weak map — until it is removed.
    @Test("an eviction leaves the weak map, a removal clears it")
    func weakCacheEvictionAndRemoval() throws {
        let folder = TemporaryFolder()
        let cache = try Self.preset("sdwebimage", memory: 10, in: folder.path, options: ["weak-cache": "on", "on-screen": "5"])
        #expect(try !Self.request(cache, "a", at: 0))
        #expect(try !Self.request(cache, "b", at: 1))  // memory (10 B) drops a
        #expect(try Self.request(cache, "a", at: 2))   // weak map: memory hit, put back (drops b)
        #expect(cache.details.tiers!.weakHits == 1 && cache.details.tiers!.diskHits == 0)
        try cache.remove(Request(time: 3, key: "a", size: 10))
        #expect(try !Self.request(cache, "a", at: 4))  // gone everywhere: a miss, stored again
        #expect(cache.details.tiers!.weakHits == 1)
        try cache.close()
    }

    @Test("weak-cache and on-screen refuse bad values, one line each")
    func weakCacheOptions() throws {
        let folder = TemporaryFolder()
        for (options, message) in [
            (["weak-cache": "maybe"], "weak-cache must be on or off, not 'maybe'"),
            (["weak-cache": "on", "on-screen": "0"], "on-screen must be a whole number of images from 1 to 10000, not '0'"),
            (["on-screen": "4"], "on-screen applies to weak-cache=on (the images a view still holds)"),
        ] {
            #expect(throws: WorkbenchError(message)) { try Self.preset("sdwebimage", memory: 100, in: folder.path, options: options) }
        }
    }

    /// a, b, c then a warning at t=3 (`at:3`), then c, a, b; 10-byte objects in 1000 bytes.
    /// Without warnings requests 3–5 are memory hits (3). Warned, weak cache on-screen=2: c
    /// is found in the weak map (1 memory hit), a and b come from disk (2): hits lost 0,
    /// memory hits lost 3 − 1 = 2, disk hits gained 2. Weak cache off: 3 and 3.
    @Test("the warning cost counterfactual stays exact with the weak cache, and halves here")
    func warningCostWithWeakCache() throws {
        let keys = ["a", "b", "c", "c", "a", "b"]
        let trace = InMemoryTrace(label: "weak", requests: keys.enumerated().map { Request(time: Double($0), key: $1, size: 10) })
        var options = ReplayOptions()
        options.memoryWarnings = try MemoryWarningSchedule(parsing: "at:3")
        options.warningWindow = 3
        let plan = RunPlan(
            trace: trace, backends: try BackendRegistry.list(parsing: "sdwebimage[weak-cache=on;on-screen=2],sdwebimage"),
            capacities: [.bytes(1_000)], options: options)
        let results = try plan.execute(environment: RunEnvironment.current())
        let (weak, plain) = (results[0], results[1])
        for result in results { #expect(!result.failed && result.tally.hits == 3, "\(result.tally.failure ?? "")") }
        let weakCost = try #require(weak.warningCost), plainCost = try #require(plain.warningCost)
        #expect(weakCost.hitsLost == 0 && weakCost.memoryHitsLost == 2 && weakCost.diskHitsGained == 2 && weakCost.counterfactualHits == 3)
        #expect(plainCost.hitsLost == 0 && plainCost.memoryHitsLost == 3 && plainCost.diskHitsGained == 3)
        #expect(weak.tally.tiers?.weakHits == 1 && plain.tally.tiers?.weakHits == 0)
        let column = RunResult.columnNames.firstIndex(of: "warning_memory_hits_lost")!
        #expect(weak.cells[column] == .int(2) && plain.cells[column] == .int(3))
        let notes = TableReport.notes(results)
        #expect(notes.contains("sdwebimage[on-screen=2;weak-cache=on] at 1000B: SDWebImage's weak memory cache (weak-cache=on, shouldUseWeakMemoryCache) found 1 image again that its memory had lost to a warning or an eviction, counted as memory hits and put back; the rule: the 2 most recently looked-up distinct images are on screen, held by a view (on-screen=2, an assumption)"), "\(notes)")
        #expect(!notes.contains { $0.hasPrefix("sdwebimage at") && $0.contains("weak memory cache") })
    }

    /// Bytes per row: width × 4 rounded up to 64 bytes (CoreGraphics) or left alone.
    @Test("row padding: width 33 → 132 bytes → 192; 16 → 64; 17 → 68 → 128; packed stays width × 4")
    func rowPadding() {
        let padded = DecodedBitmap(rowAlignment: 64)
        #expect(padded.bytesPerRow(width: 33) == 192)
        #expect(padded.bytesPerRow(width: 16) == 64)
        #expect(padded.bytesPerRow(width: 17) == 128)
        #expect(padded.bytesPerRow(width: 300) == 1_216)  // 1200 → 19 × 64
        #expect(DecodedBitmap.packed.bytesPerRow(width: 33) == 132)
        #expect(padded.bytesPerRow(width: Int.max / 2) == nil)  // overflow refused, not trapped
        let (cost, downsampled, wasPadded) = padded.cost(width: 33, height: 10, display: nil)
        #expect(cost == 1_920 && !downsampled && wasPadded)
        #expect(padded.cost(width: 16, height: 10, display: nil).padded == false)
    }

    /// A 1200 × 800 image in a 100 × 100 pt view at 3× (a 300 × 300 px box):
    /// - Kingfisher: longest side max(300, 300) = 300 → 300 × (800 × 300 / 1200 = 200);
    ///   300 × 200 × 4 = 240,000 (no padding).
    /// - SDWebImage: 1.5 > 1, max pixel size max(300, 300 / 1.5) = 300 → 300 × 200; rows
    ///   1,200 → 1,216; × 200 = 243,200.
    /// - Nuke: aspect fill, scale max(300/1200, 300/800) = 0.375 → 450 × 300; rows 1,800 →
    ///   1,856; × 300 = 556,800.
    /// A 1000 × 333 image in 50 × 50 pt at 2× (100 × 100 px):
    /// - Kingfisher: 100 × round(33.3) = 100 × 33 → 13,200.
    /// - SDWebImage: ratio 3.003 > 1, max pixel size 100 → 100 × 33; rows 400 → 448 → 14,784.
    /// - Nuke: scale max(0.1, 100/333) → round(300.3) × round(100) = 300 × 100; rows 1,200 →
    ///   1,216 → 121,600.
    /// A 200 × 100 image in the 300 px box is never enlarged: 200 × 100 for all three.
    @Test("downsampled costs follow each library's rule and rounding, never upscaling")
    func downsampledCosts() throws {
        let sd = try #require(TierPreset.named("sdwebimage")).bitmap
        let kf = try #require(TierPreset.named("kingfisher")).bitmap
        let nuke = try #require(TierPreset.named("nuke")).bitmap
        let af = try #require(TierPreset.named("afnetworking")).bitmap
        let box = try DisplaySize(parsing: "100x100@3"), small = try DisplaySize(parsing: "50x50@2")
        #expect(kf.dimensions(width: 1200, height: 800, display: box) == (300, 200))
        #expect(kf.cost(width: 1200, height: 800, display: box).cost == 240_000)
        #expect(sd.dimensions(width: 1200, height: 800, display: box) == (300, 200))
        #expect(sd.cost(width: 1200, height: 800, display: box).cost == 243_200)
        #expect(nuke.dimensions(width: 1200, height: 800, display: box) == (450, 300))
        #expect(nuke.cost(width: 1200, height: 800, display: box).cost == 556_800)
        #expect(af.cost(width: 1200, height: 800, display: box) == (3_840_000, false, false))
        #expect(kf.cost(width: 1000, height: 333, display: small).cost == 13_200)
        #expect(sd.cost(width: 1000, height: 333, display: small).cost == 14_784)
        #expect(nuke.dimensions(width: 1000, height: 333, display: small) == (300, 100))
        #expect(nuke.cost(width: 1000, height: 333, display: small).cost == 121_600)
        // Portrait 500 × 1000 in a 100 × 300 px box (SDWebImage: 0.5 > 1/3, max(100, 100 / 0.5) = 200 → 100 × 200).
        #expect(sd.dimensions(width: 500, height: 1000, display: DisplaySize(width: 100, height: 300, scale: 1)) == (100, 200))
        for bitmap in [kf, sd, nuke] {
            #expect(bitmap.dimensions(width: 200, height: 100, display: box) == (200, 100))
            #expect(bitmap.cost(width: 200, height: 100, display: box).downsampled == false)
        }
    }

    /// --display recorded: each request's own view size. A 1200 × 800 image the recording shows
    /// in 100 × 100 pt at 3× costs Kingfisher 300 × 200 × 4 = 240,000; one without a display
    /// size is full size, 3,840,000, and counted; a recorded cost is the app's, left alone.
    @Test("--display recorded takes each request's display size from the recording")
    func recordedDisplay() {
        let pricing = BitmapPricing(bitmap: TierPreset.named("kingfisher")!.bitmap, display: .recorded)
        func price(_ recorded: RecordedImage) -> (Int, BitmapPricing.Effect) {
            let request = Request(time: 0, id: 1, size: 50_000, width: 1200, height: 800, recorded: recorded)
            let priced = ReplayOptions.price(request, ignoreObjectSize: false, pricesPixels: true, rules: PixelCostRules(), bitmap: pricing)
            return (priced.cost, priced.bitmap)
        }
        let shown = price(RecordedImage(source: .network, displayWidth: 100, displayHeight: 100, scale: 3))
        #expect(shown.0 == 240_000 && shown.1.downsampled && !shown.1.noDisplay)
        let unknown = price(RecordedImage(source: .network))
        #expect(unknown.0 == 3_840_000 && !unknown.1.downsampled && unknown.1.noDisplay)
        let charged = price(RecordedImage(source: .network, decodedCost: 1_000, displayWidth: 100, displayHeight: 100, scale: 3))
        #expect(charged.0 == 1_000 && charged.1 == .none)
    }

    @Test("--display parses WxH@scale or recorded, and refuses the rest")
    func displayParsing() throws {
        #expect(try DisplayOption(parsing: "120x90@3") == .fixed(DisplaySize(width: 120, height: 90, scale: 3)))
        #expect(try DisplayOption(parsing: "375x200.5@2").description == "375x200.5@2")
        #expect(try DisplayOption(parsing: "recorded") == .recorded)
        for bad in ["120x90", "120x90@", "x90@3", "120x90@0", "-1x2@2", "120x90@3@3", "nanx1@1", "1x1@11"] {
            #expect(throws: WorkbenchError.self) { try DisplayOption(parsing: bad) }
        }
    }

    @Test("bench run --display: a bad size, recorded on a trace that is no recording, or with --cost encoded: exit 2, one line")
    func displayRefusals() throws {
        for (extra, message) in [
            (["--display", "120x90"], "bench: error: --display takes WxH@scale, the view's size in points and the screen's scale (e.g. 120x90@3), or recorded, not '120x90'"),
            (["--display", "recorded"], "bench: error: --display recorded takes each request's display size from an app recording, and Traces/default.csv is not one; give a size, e.g. --display 120x90@3"),
            (["--display", "120x90@3", "--cost", "encoded"], "bench: error: --display shapes decoded bitmaps: it applies to --cost pixels (or auto), not encoded"),
        ] {
            let result = try bench(["run", "--backend", "kingfisher", "--no-timing"] + extra)
            #expect(result.status == 2 && result.err == message + "\n", "\(result.err)")
        }
    }

    /// Two requests with dimensions (1200 × 800, 200 × 100) at --display 100x100@3, priced in
    /// pixels: kingfisher 240,000 + 80,000; sdwebimage 243,200 + (800 → 832) × 100 = 326,400;
    /// nuke 556,800 + 83,200 = 640,000; afnetworking 3,840,000 + 80,000 (no downsampling).
    @Test("a downsampled run charges each preset its library's bitmap and says so in the notes")
    func downsampledRun() throws {
        let trace = InMemoryTrace(label: "shown", requests: [
            Request(time: 0, key: "big", size: 50_000, width: 1200, height: 800),
            Request(time: 1, key: "small", size: 5_000, width: 200, height: 100),
        ])
        var options = ReplayOptions()
        options.display = try DisplayOption(parsing: "100x100@3")
        var plan = RunPlan(trace: trace, backends: try BackendRegistry.list(parsing: "kingfisher,sdwebimage,nuke,afnetworking"), capacities: [.bytes(100 << 20)], options: options)
        plan.costModel = .pixels
        let results = try plan.execute(environment: RunEnvironment.current())
        let held = results.map(\.tally.finalFacts.accountedBytes)
        #expect(held == [320_000, 326_400, 640_000, 3_920_000])
        #expect(results.map(\.tally.bitmap.downsampled) == [1, 1, 1, 0])
        #expect(results.map(\.tally.bitmap.padded) == [0, 2, 2, 0])
        let notes = TableReport.notes(results)
        #expect(notes.contains { $0.hasPrefix("kingfisher at 100MiB: --display 100x100@3: 1 of 2 priced requests charged the downsampled bitmap") }, "\(notes)")
        #expect(notes.contains { $0.hasPrefix("sdwebimage at 100MiB: 2 of 2 priced requests charged with their rows padded to 64 bytes") }, "\(notes)")
        #expect(notes.contains("--display applies to the presets whose library downsamples when configured (kingfisher, sdwebimage, nuke): afnetworking charged full-size bitmaps"), "\(notes)")
    }
}
