// libFuzzer entry for the option parsers (scripts/fuzz options): capacities and capacity
// lists (--capacity, ram:P% with and without a --device), sizes (--inline-limit, --max-bytes, --max-line-bytes), memory-warning schedules
// (--memory-warning), libcachesim-csv's --columns/--header/--delimiter, and --warmup,
// --decoded-ratio, --infer-dimensions, mrc's --sampling-rate and --sample-size, the policies' numeric
// options, admission= and prefetch=/prefetch-params=, bench plot's --only (a backend list), --mode http and its options, a tier's --on-warning and --disk-capacity; --capacity recorded; sweep capacity ranges, backend lists with
// variants and tiers, and the journal's row text.
// The first byte
// picks the parser; the rest is the option's text. An error is a correct answer; a crash
// is a finding, and so is a value outside the documented limits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOptions(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    switch data[0] % 6 {
    case 0:
        if let capacities = try? Capacity.list(parsing: text, device: size % 2 == 0 ? nil : DeviceClass.all[size % DeviceClass.all.count]) {
            for capacity in capacities {
                let bytes = capacity.resolve(workingSetBytes: ByteTotal(size) << 70)
                precondition(bytes >= 1 && bytes <= SizeLimits.largestCapacity, "capacity out of range")
            }
        }
    case 1:
        if let bytes = Capacity.bytes(parsing: text) { precondition(bytes >= 0, "negative size") }
        // --max-line-bytes: a size from 1 byte to 1 TiB, or an error.
        if let limit = try? LineLengthLimit.bytes([LineLengthLimit.optionName: text]) {
            precondition(limit >= 1 && limit <= 1 << 40, "line limit out of range")
        }
    case 2:
        if let schedule = try? MemoryWarningSchedule(parsing: text) {
            switch schedule {
            case .every(let count): precondition(count > 0, "every:0")
            case .at(let times): precondition(times.allSatisfy(\.isFinite), "a time that is not finite")
            case .above(let bytes): precondition(bytes > 0, "above:0")
            case .recorded: precondition(text.trimmingSpaces.lowercased() == "recorded", "recorded from another text")
            }
        }
        // --capacity with `recorded` items: each becomes the recording's limit, nothing else changes.
        let limit = RecordedCacheConfiguration(memoryCostLimit: 4_194_304)
        if let replaced = try? RecordedCapacityText.capacities(text, configuration: limit, isRecording: true, trace: "r.jsonl") {
            let before = text.split(separator: ",", omittingEmptySubsequences: false)
            let after = replaced.text.split(separator: ",", omittingEmptySubsequences: false)
            precondition(before.count == after.count, "capacity items added or lost")
            for (old, new) in zip(before, after) {
                let item = String(old).trimmingSpaces
                precondition(item.lowercased() == "recorded" ? new == "4194304" : (replaced.text == text || new == item), "an item other than recorded changed")
            }
        }
        if (try? RecordedCapacityText.capacities(text, configuration: nil, isRecording: false, trace: "t.csv"))?.text != nil {
            precondition(!text.split(separator: ",", omittingEmptySubsequences: false).contains { String($0).trimmingSpaces.lowercased() == "recorded" }, "recorded accepted without a recording")
        }
    case 3:
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        var options: [String: String] = [:]
        for (name, value) in zip(["columns", "header", "delimiter"], parts) { options[name] = String(value) }
        _ = try? LibCacheSimCSVFormat(options: options)
    case 4:
        // A sweep's capacities: a list, or a range split into 2–50 points.
        let points = 2 + Int(data[0] / 6) % 49
        for spacing in CapacitySweep.Spacing.allCases {
            guard let capacities = try? CapacitySweep.capacities(parsing: text, points: points, spacing: spacing, device: DeviceClass.all[Int(data[0]) % DeviceClass.all.count]) else { continue }
            precondition(!capacities.isEmpty && (text.contains("..") ? capacities.count <= points : true), "points out of range")
            for capacity in capacities {
                switch capacity {
                case .bytes(let bytes): precondition(bytes >= 1 && bytes <= SizeLimits.largestCapacity, "range capacity out of range")
                case .share(let share): precondition(share > 0 && share <= 1, "range share out of range")
                case .deviceRAM(let percent, let device):
                    precondition(percent > 0 && percent <= 100, "RAM share out of range")
                    precondition((1...device.ramBytes).contains(capacity.resolve(workingSetBytes: 0)), "RAM capacity out of range")
                }
            }
        }
        // A backend list: items, and each item's variant (name and options).
        for item in BackendListText.items(text) {
            if let variant = try? BackendListText.variant(item) {
                precondition(!variant.options.isEmpty && variant.options.allSatisfy { !$0.key.isEmpty }, "empty variant option")
                precondition(Set(variant.options.map(\.key)).count == variant.options.count, "an option twice")
            }
        }
        // A tier's name: two non-empty backend names, which put back together give the name.
        if let parts = try? TierOptionText.parts(text) {
            precondition(!parts.memory.isEmpty && !parts.disk.isEmpty && !parts.memory.contains("+"), "a tier's part is empty or split wrongly")
            precondition(text.dropFirst(5) == parts.memory + "+" + parts.disk, "a tier's parts do not give its name back")
        }
        // The journal keeps a row on one line and gives it back unchanged.
        let escaped = CSVRowText.escape(text)
        precondition(!escaped.contains("\n") && !escaped.contains("\r"), "a line break in a journal line")
        precondition(Array(CSVRowText.unescape(escaped).unicodeScalars) == Array(text.unicodeScalars), "journal round trip")
        // A field quoted as RFC 4180 says reads back as itself.
        var quoted = String.UnicodeScalarView("\"".unicodeScalars)
        for scalar in text.unicodeScalars {
            if scalar == "\"" { quoted.append("\"") }
            quoted.append(scalar)
        }
        quoted.append("\"")
        precondition(CSVRowText.fields(of: String(quoted)).map { Array($0.unicodeScalars) } == [Array(text.unicodeScalars)], "a quoted field read back differently")
    case 5:
        if let warmup = try? ReplayOptionText.warmup(text) {
            precondition((warmup.count ?? 0) >= 0 && (warmup.share.map { $0 >= 0 && $0 < 1 } ?? true), "warm-up out of range")
            precondition(warmup.seconds.map { $0 >= 0 && $0 <= 3_155_760_000 } ?? true, "warm-up span out of range")
        }
        // prefetch=obl|pg with prefetch-params=…: a parsed prefetcher runs on ids from the
        // text without a trap, and asks only for sizes it was told of.
        for name in ["obl", "pg"] {
            guard let choice = try? PrefetchChoice(parsing: name, params: text, backend: "lru") else { continue }
            var prefetcher = choice.make(capacity: Int(data[0]) * 97 + 1)
            for (index, byte) in text.utf8.enumerated() {
                let id = UInt64(byte % 16) &+ (index.isMultiple(of: 7) ? .max : 0)
                prefetcher.found(id, size: Int(byte), hit: byte.isMultiple(of: 2))
                for candidate in prefetcher.candidates(after: id) { precondition(candidate.size >= 0, "a negative prefetch size") }
            }
        }
        if let ratio = try? ReplayOptionText.decodedRatio(text) { precondition(ratio > 0 && ratio <= 1000, "ratio out of range") }
        _ = try? ReplayOptionText.inferDimensions(text)
        // --estimate: one of four words, whatever else is refused.
        if let point = try? ReplayOptionText.estimate(text) { precondition(["central", "low", "high"].contains(point.rawValue), "estimate point") }
        if let rate = try? ReplayOptionText.samplingRate(text) { precondition(rate > 0 && rate <= 1, "sampling rate out of range") }
        if let keys = try? ReplayOptionText.sampleSize(text) { precondition(keys >= 1 && keys <= Int(Int32.max), "sample size out of range") }
        // --display: in range, and every library's downsampled size within the image, above 0.
        if case .fixed(let size)? = try? DisplayOption(parsing: text) {
            precondition(size.width > 0 && size.height > 0 && size.scale > 0 && size.width <= 100_000 && size.height <= 100_000 && size.scale <= 10, "display out of range")
            for downsampling in [DecodedBitmap.Downsampling.longestSide, .fitInside, .fill] {
                let shown = DecodedBitmap(downsampling: downsampling, rowAlignment: 64).dimensions(width: 4_000, height: 3, display: size)
                precondition(shown.width >= 1 && shown.height >= 1 && shown.width <= 4_000 && shown.height <= 3, "downsampled size out of range")
            }
        }
        // A policy's admission= (lru[admission=prob:0.5]).
        if let admission = try? AdmissionChoice(parsing: text) {
            switch admission {
            case .probability(let p): precondition(p > 0 && p <= 1, "admission probability out of range")
            case .size(let n): precondition(n > 0, "admission size out of range")
            case .adaptSize(let every): precondition(every > 0, "AdaptSize interval out of range")
            case .tinyLFU(let m):
                precondition(m > 0 && m <= 1024, "TinyLFU counters multiplier out of range")
                // Caffeine's sketch sized by it (a small cache: the fuzzer's memory is bounded).
                var sketch = CountMin4(maximumSize: text.utf8.count % 64, countersMultiplier: m)
                for key in text.utf8 { sketch.increment(UInt64(key)) }
                precondition((0...15).contains(sketch.frequency(UInt64(text.utf8.first ?? 0))), "frequency out of range")
            case .bloomFilter: break
            }
        }
        // The policies' numeric options (--n-seg, --ghost-size-ratio, --window-size, …).
        let policy = PolicyOptions(values: ["option": text])
        if let value = try? policy.integer("option", default: 0, range: 1...16) { precondition((1...16).contains(value), "integer out of range") }
        if let value = try? policy.number("option", default: 0, range: 0...16) { precondition((0...16).contains(value), "number out of range") }
        if let value = try? policy.fraction("option", default: 0.5) { precondition(value > 0 && value < 1, "fraction out of range") }
        // A tier's memory-warning response and disk capacity.
        if case .trim(let share)? = try? TierWarningResponse(parsing: text) { precondition(share >= 0 && share < 1, "trim share out of range") }
        if let bytes = try? TierOptionText.diskCapacity(text) { precondition(bytes > 0 && bytes <= SizeLimits.largestCapacity, "disk capacity out of range") }
        // --mode and the HTTP mode's options, `;`-separated in that order.
        var http = ReplayOptionText.HTTPModeText()
        let parts = text.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        if let mode = parts.first { http.mode = mode }
        for (index, part) in parts.dropFirst().prefix(6).enumerated() where !part.isEmpty {
            switch index {
            case 0: http.profile = part
            case 1: http.requestPolicy = part
            case 2: http.heuristicFraction = part
            case 3: http.revalidation = part
            case 4: http.on304 = part
            default: http.entryShareLimit = part
            }
        }
        if let latency = try? OriginLatency(parsing: text) {
            var random = SeededRandom(seed: UInt64(size))
            let seconds = latency.sample(&random)
            precondition(seconds.isFinite && seconds >= 0 && seconds <= 3_600, "origin latency out of range")
        }
        http.coalesce = data[0] & 64 != 0
        http.maxActiveDownloads = parts.count > 7 ? parts[7] : nil
        if let settings = try? ReplayOptionText.httpSettings(http) {
            precondition((0...100_000).contains(settings.downloads?.maxActive ?? 0), "download limit out of range")
            precondition((0...1).contains(settings.heuristicFraction), "heuristic fraction out of range")
            precondition(settings.entryShareLimit.map { $0 > 0 && $0 <= 1 } ?? true, "entry share out of range")
        }
    default:
        _ = ErrorText.quote(text)
        _ = ErrorText.escapingControls(text)
    }
    return 0
}
