// libFuzzer entry for sweep journals read back by --resume (scripts/fuzz journal): the
// journal text (SweepJournalText.parse: identity line, header, `index<TAB>row` lines checked
// against their planned point) and the one-line escaping of rows and fingerprints
// (CSVRowText). The first byte picks the parser. An error is a correct answer; a crash, a
// row kept that is not its point's, or an escape that is not one line or not reversible,
// is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJournal(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let columns = ["sweep_point", "backend", "variant", "capacity_spec", "status"]
    let points = [
        SweepJournalText.PlannedPoint(backend: "lru", capacity: "10%"), SweepJournalText.PlannedPoint(backend: "nscache[key-hash=cf]", capacity: "64MiB"),
        SweepJournalText.PlannedPoint(backend: "arc", capacity: "1000"),
    ]
    switch data[0] % 2 {
    case 0:
        guard let parsed = try? SweepJournalText.parse(bytes, path: "s.csv.partial", fingerprint: "# fp", columns: columns, points: points) else { return 0 }
        precondition(parsed.completeBytes <= bytes.count && (parsed.completeBytes == 0 || bytes[parsed.completeBytes - 1] == 0x0A), "kept a partial line")
        for (index, row) in parsed.rows {
            let fields = CSVRowText.fields(of: row)
            precondition(points.indices.contains(index) && fields.count == columns.count, "a row out of range or of the wrong width")
            precondition(SweepJournalText.mismatch(fields, columns: columns, index: index, planned: points[index]) == nil, "a row kept under another point")
        }
    default:
        let text = String(decoding: bytes, as: UTF8.self)
        let escaped = CSVRowText.escape(text)
        precondition(!escaped.unicodeScalars.contains("\n") && !escaped.unicodeScalars.contains("\r"), "an escaped line has a line break")
        precondition(Array(CSVRowText.unescape(escaped).unicodeScalars) == Array(text.unicodeScalars), "escaping is not reversible")
    }
    return 0
}
