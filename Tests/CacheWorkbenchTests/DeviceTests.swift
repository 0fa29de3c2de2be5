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

/// A HAR entry with a content type and an encoded size (no body, so no dimensions).
private func entry(_ second: Int, _ url: String, mime: String, size: Int) -> String {
    #"{"startedDateTime":"2024-05-01T10:00:0\#(second).000Z","request":{"method":"GET","url":"\#(url)","headers":[]},"response":{"status":200,"headers":[],"content":{"size":\#(size),"mimeType":"\#(mime)"},"bodySize":\#(size)}}"#
}

/// Five images of five kinds: a JPEG, a PNG, a GIF by content type; a WebP known only by its
/// URL (the content type says nothing); one of no known type.
private func imagesHAR() -> String {
    let entries = [
        entry(0, "https://cdn.example/a.jpg", mime: "image/jpeg", size: 1000),
        entry(1, "https://cdn.example/b", mime: "image/png; charset=binary", size: 2000),
        entry(2, "https://cdn.example/c.gif", mime: "image/gif", size: 500),
        entry(3, "https://cdn.example/d.webp?v=2", mime: "application/octet-stream", size: 300),
        entry(4, "https://cdn.example/e", mime: "text/plain", size: 100),
    ]
    return #"{"log":{"version":"1.2","creator":{"name":"test","version":"1"},"entries":[\#(entries.joined(separator: ","))]}}"#
}

/// A demand-fill trace of two keys, each asked twice (sizes small enough for any capacity).
private let smallCSV = "time,key,size\n0,a,1000\n1,b,2000\n2,a,1000\n3,b,2000\n"

private let gib = 1 << 30

@Suite("Device in the loop (issue 21 §5)", .onTestWorkers)
struct DeviceTests {
    @Test("ram:P% resolves against the device's RAM: 15% and 0.5% of 4 GiB, a list, a sweep range")
    func ramShares() throws {
        let phone = try DeviceClass.named("iPhone-13")
        #expect(phone.ramBytes == 4 * gib && phone.scale == 3)
        // 4294967296 × 0.15 = 644245094.4 → 644245094; × 0.005 = 21474836.48 → 21474836.
        let list = try Capacity.list(parsing: "ram:15%,ram:0.5%,64MiB", device: phone)
        #expect(list.map { $0.resolve(workingSetBytes: 0) } == [644_245_094, 21_474_836, 64 << 20])
        #expect(list[0].description == "ram:15%" && !list[0].needsWorkingSet)
        #expect(list[0].deviceRule == "ram:15% of iphone-13's RAM 4GiB (4294967296 bytes) = 644245094 bytes")
        #expect(list[2].deviceRule == nil)
        // Log-spaced 1%..4% in 3 points: 1%, 2%, 4% of 4 GiB = 42949672.96, 85899345.92, 171798691.84.
        let range = try CapacitySweep.capacities(parsing: "ram:1%..ram:4%", points: 3, spacing: .log, device: phone)
        #expect(range.map { $0.resolve(workingSetBytes: 0) } == [42_949_673, 85_899_346, 171_798_692])
        // A range's point between two decimals is named in full in its note, so its bytes can be
        // checked: 10^-1.5 % = 3.1622776601683795% of 4 GiB = 135818791.3 → 135818791.
        let uneven = try CapacitySweep.capacities(parsing: "ram:1%..ram:10%", points: 3, spacing: .log, device: phone)
        #expect(uneven[1].deviceRule == "ram:3.1622776601683795% of iphone-13's RAM 4GiB (4294967296 bytes) = 135818791 bytes")
        #expect(uneven[1].description == "ram:3.16%")
        // 100% of 16 GiB is the largest.
        #expect(try Capacity(parsing: "ram:100%", device: DeviceClass.named("ipad-pro-m4-1tb")).resolve(workingSetBytes: 0) == 16 * gib)
    }

    @Test("bench run --device --capacity ram:15%: the row's capacity and the note's bytes are the hand-computed ones")
    func ramShareRun() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", smallCSV)
        let result = try bench(["run", "--trace", trace, "--backend", "lru", "--device", "iphone-11", "--capacity", "ram:15%,1MiB",
                                "--no-timing", "--csv", folder.path + "/r.csv"])
        #expect(result.status == 0, "\(result.err)")
        let rows = try csvRows(folder.path + "/r.csv")
        #expect(rows.map { $0["capacity_bytes"] } == ["644245094", "1048576"])
        // The device, and how the capacity was found (none for 1MiB), right after model_of.
        let header = try String(contentsOfFile: folder.path + "/r.csv", encoding: .utf8).split(separator: "\n")[0]
        #expect(header.contains(",model_of,device,capacity_rule,"))
        #expect(rows.map { $0["device"] } == ["iphone-11", "iphone-11"])
        #expect(rows.map { $0["capacity_rule"] } == ["ram:15% of iphone-11's RAM 4GiB (4294967296 bytes) = 644245094 bytes", ""])
        #expect(result.out.contains("note: ram:15% of iphone-11's RAM 4GiB (4294967296 bytes) = 644245094 bytes — row lru"), "\(result.out)")
    }

    @Test("Each preset's own memory limit on a device, from its library's rule (hand-computed)")
    func presetLimits() throws {
        let pro = try DeviceClass.named("iphone-15-pro")  // 8 GiB
        let phone = try DeviceClass.named("iphone-13")  // 4 GiB
        func limit(_ preset: String, _ device: DeviceClass) throws -> Int { try #require(TierPreset.named(preset)).memoryLimit(device).bytes }
        // Kingfisher: physicalMemory / 4.
        #expect(try limit("kingfisher", pro) == 2_147_483_648 && limit("kingfisher", phone) == 1_073_741_824)
        // Nuke: Int(RAM × 0.15), at most 805306368 (768 MB): 8 GiB → 1288490188 → capped; 4 GiB → 644245094.
        #expect(try limit("nuke", pro) == 805_306_368 && limit("nuke", phone) == 644_245_094)
        // SDWebImage and PINCache: no limit of their own, so the whole RAM.
        #expect(try limit("sdwebimage", pro) == 8 * gib && limit("pincache", phone) == 4 * gib)
        // AFNetworking: a fixed 100 MiB.
        #expect(try limit("afnetworking", pro) == 104_857_600)
        #expect(TierPreset.all.allSatisfy { TierPreset.named($0.name) != nil })
    }

    @Test("bench run --device without --capacity: presets at their limits, other backends at the default; with --capacity or without --device unchanged")
    func presetLimitsRun() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", smallCSV)
        func capacities(_ extra: [String]) throws -> [String: String] {
            let csv = folder.path + "/r\(extra.count).csv"
            let result = try bench(["run", "--trace", trace, "--backend", "kingfisher,nuke,sdwebimage,pincache,afnetworking,lru", "--no-timing", "--csv", csv] + extra)
            #expect(result.status == 0, "\(result.err)")
            return Dictionary(uniqueKeysWithValues: try csvRows(csv).map { ($0["backend"]!, $0["capacity_bytes"]!) })
        }
        #expect(try capacities(["--device", "iphone-15-pro"]) == [
            "kingfisher": "2147483648", "nuke": "805306368", "sdwebimage": "8589934592", "pincache": "8589934592",
            "afnetworking": "104857600", "lru": "104857600",
        ])
        let unchanged = try capacities([])
        #expect(Set(unchanged.values) == ["104857600"] && unchanged.count == 6)
        let given = try capacities(["--device", "iphone-15-pro", "--capacity", "64MiB"])
        #expect(Set(given.values) == ["67108864"])
        // The notes say which rule gave each limit, with its numbers.
        let result = try bench(["run", "--trace", trace, "--backend", "nuke,lru", "--device", "iphone-15-pro", "--no-timing"])
        #expect(result.out.contains("note: nuke's memory limit: 15% of RAM (1288490188 bytes) capped at 768MB (805306368 bytes)"), "\(result.out)")
        #expect(result.out.contains("note: no --capacity: the default 100MB (only the presets have a library limit on iphone-15-pro) — row lru"), "\(result.out)")
    }

    @Test("Per-type decoded ratios: the type from the content type, else the URL's extension; other= for the rest; counted")
    func perTypeRatios() throws {
        #expect(ImageType.ofMIMEType("IMAGE/JPEG") == .jpeg && ImageType.ofMIMEType("image/png; x=1") == .png && ImageType.ofMIMEType("text/html") == nil)
        #expect(ImageType.ofURL("https://x/a.JPG?w=1") == .jpeg && ImageType.ofURL("https://x/b.png#f") == .png && ImageType.ofURL("https://x.gif/c") == nil)
        let folder = TemporaryFolder()
        let har = folder.file("t.har", imagesHAR())
        // jpeg 1000 × 8, png 2000 × 4, gif 500 × 12, webp (no ratio) 300 × 2, unknown 100 × 2.
        let csv = folder.path + "/p.csv"
        let price = try bench(["price", har, "--infer-dimensions", "off", "--decoded-ratio", "jpeg=8,png=4,gif=12,other=2", "--csv", csv])
        #expect(price.status == 0, "\(price.err)")
        let decoded = Dictionary(uniqueKeysWithValues: try csvRows(csv).map { ($0["key"]!, $0["decoded_bytes"]!) })
        #expect(decoded == ["https://cdn.example/a.jpg": "8000", "https://cdn.example/b": "8000", "https://cdn.example/c.gif": "6000",
                            "https://cdn.example/d.webp?v=2": "600", "https://cdn.example/e": "200"])
        #expect(price.out.contains("ratio requests by image type (content type, else URL extension; other: the other= ratio, for types without their own): jpeg:1,png:1,gif:1,other:2"), "\(price.out)")
        // A replay counts the same: 5 by ratio, 3 by their type's own; the note says so.
        let run = try bench(["run", "--trace", har, "--backend", "lru", "--cost", "pixels", "--infer-dimensions", "off",
                             "--decoded-ratio", "jpeg=8,png=4,gif=12,other=2", "--no-timing", "--csv", folder.path + "/r.csv"])
        #expect(run.status == 0, "\(run.err)")
        let row = try #require(try csvRows(folder.path + "/r.csv").first)
        #expect(row["cost_from_ratio"] == "5" && row["cost_from_encoded"] == "0")
        #expect(row["pixel_rules"] == "url=off;decoded-ratio=jpeg:8.0/png:4.0/gif:12.0/other:2.0;estimate=central")
        #expect(run.out.contains("ratio by image type (content type, else URL extension; other: the other= ratio, for types without their own): jpeg:1,png:1,gif:1,other:2"), "\(run.out)")
        // Without other= (and the estimate off), the webp and the unknown one are charged their encoded size, and counted.
        let partial = try bench(["run", "--trace", har, "--backend", "lru", "--cost", "pixels", "--infer-dimensions", "off",
                                 "--decoded-ratio", "jpeg=8", "--estimate", "off", "--no-timing", "--csv", folder.path + "/q.csv"])
        let partialRow = try #require(try csvRows(folder.path + "/q.csv").first)
        #expect(partial.status == 0 && partialRow["cost_from_ratio"] == "1" && partialRow["cost_from_encoded"] == "4")
        #expect(partial.out.contains("pixel costs by rule, in requests: ratio:1,encoded:4; ratio by image type (content type, else URL extension; other: the other= ratio, for types without their own): jpeg:1 —"), "\(partial.out)")
        // A type given but never met: said as none, the requests counted as encoded.
        let unmet = try bench(["price", har, "--infer-dimensions", "off", "--decoded-ratio", "avif=3", "--estimate", "off"])
        #expect(unmet.out.contains("requests by rule (a replay's cost_from_* columns): encoded:5") && unmet.out.contains("for types without their own): none"), "\(unmet.out)")
        // The single number keeps its meaning and its label.
        #expect(try ReplayOptionText.decodedRatios("8").other == 8 && PixelCostRules(decodedRatio: 8).description == "url=on;decoded-ratio=8.0;estimate=central")
    }

    @Test("--url-units points: URL sizes × the device's scale (cost × s²), unless the URL states @Nx or dpr")
    func pointsTimesScale() throws {
        func price(_ url: String, scale: Int) -> PixelCostRules.Price {
            PixelCostRules(pointScale: scale).price(of: Request(time: 0, id: 1, size: 10, name: url))
        }
        let plain = price("https://cdn.example/x.jpg?w=100&h=50", scale: 1)
        #expect(plain.width == 100 && plain.height == 50 && plain.cost == 20_000)
        let points = price("https://cdn.example/x.jpg?w=100&h=50", scale: 3)
        #expect(points.width == 300 && points.height == 150 && points.cost == 180_000)  // 20000 × 3²
        let suffixed = price("https://cdn.example/x@2x.jpg?w=100&h=50", scale: 3)
        #expect(suffixed.width == 200 && suffixed.height == 100)
        let dpr = price("https://cdn.example/x.jpg?w=100&h=50&dpr=2", scale: 3)
        #expect(dpr.width == 200 && dpr.height == 100)
        let cloudinary = price("https://res.example/image/upload/w_100,h_50/x.jpg", scale: 2)
        #expect(cloudinary.width == 200 && cloudinary.height == 100)
        // Through the CLI: bench price with --device iphone-13 (@3x).
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", "time,key,size\n0,https://cdn.example/x.jpg?w=100&h=50,10\n")
        let csv = folder.path + "/p.csv"
        let result = try bench(["price", trace, "--url-units", "points", "--device", "iphone-13", "--csv", csv])
        #expect(result.status == 0, "\(result.err)")
        let row = try #require(try csvRows(csv).first)
        #expect(row["width"] == "300" && row["height"] == "150" && row["decoded_bytes"] == "180000")
    }

    @Test("Bad values: one line, exit 2", arguments: [
        (["--device", "iphone-99"], "--device 'iphone-99' is not a known device; known: iphone-8, iphone-se-2"),
        (["--capacity", "ram:15%"], "needs --device NAME"),
        (["--device", "iphone-13", "--capacity", "ram:0%"], "ram:P% with P above 0 and at most 100"),
        (["--device", "iphone-13", "--capacity", "ram:200%"], "ram:P% with P above 0 and at most 100"),
        (["--decoded-ratio", "bmp=3"], "is not TYPE=R with TYPE one of jpeg, png, gif, webp, heic, avif, other"),
        (["--decoded-ratio", "jpeg=abc"], "--decoded-ratio must be a number above 0 and at most 1000"),
        (["--decoded-ratio", "jpeg=8,jpeg=4"], "jpeg is given twice"),
        (["--url-units", "points"], "--url-units points needs --device NAME"),
        (["--url-units", "inches", "--device", "iphone-13"], "--url-units must be pixels or points"),
    ])
    func badValues(arguments: [String], message: String) throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", smallCSV)
        let result = try bench(["run", "--trace", trace, "--backend", "lru", "--no-timing"] + arguments)
        #expect(result.status == 2)
        #expect(result.err.hasPrefix("bench: error: ") && result.err.contains(message), "\(result.err)")
        #expect(result.err.split(separator: "\n").count == 1, "\(result.err)")
    }

    @Test("bench list --devices: every device with its RAM in bytes, its scale and a source")
    func listDevices() throws {
        let result = try bench(["list", "--devices"])
        #expect(result.status == 0)
        for device in DeviceClass.all {
            #expect(result.out.contains("\(device.name) ") && result.out.contains("(\(device.ramBytes) bytes)  scale @\(device.scale)x"), "\(device.name)")
            #expect(result.out.contains("  \(device.name): http"), "\(device.name) has no source")
        }
        #expect(result.out.contains("iphone-13          RAM 4GiB (4294967296 bytes)  scale @3x"))
        let ram = Set(DeviceClass.all.map(\.ramBytes))
        #expect(ram.min() == 2 * gib && ram.max() == 16 * gib && Set(DeviceClass.all.map(\.scale)) == [2, 3])
    }

    @Test("bench mrc takes ram:P% with --device")
    func mrcRAMShare() throws {
        let folder = TemporaryFolder()
        let trace = folder.file("t.csv", smallCSV)
        let result = try bench(["mrc", "--trace", trace, "--device", "iphone-8", "--capacity", "ram:0.0001%", "--csv", folder.path + "/m.csv"])
        #expect(result.status == 0, "\(result.err)")
        // 2147483648 × 0.000001 = 2147.48 → 2147 bytes.
        #expect(try csvRows(folder.path + "/m.csv").first?["capacity_bytes"] == "2147")
        #expect(result.err.contains("bench: note: ram:0.0001% of iphone-8's RAM 2GiB (2147483648 bytes) = 2147 bytes"), "\(result.err)")
        let missing = try bench(["mrc", "--trace", trace, "--capacity", "ram:1%"])
        #expect(missing.status == 2 && missing.err.contains("needs --device NAME"))
    }
}
