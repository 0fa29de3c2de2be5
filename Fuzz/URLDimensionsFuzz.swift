// libFuzzer entry for the image-URL dimension rules (scripts/fuzz url): any bytes as a URL,
// the first 4 (when there are more than 4) also as the response's encoded size.
// nil is a correct answer; a crash, dimensions outside the documented limits, or a broken
// plausibility invariant (issue 21 §3) is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLDimensions(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let unchecked = ImageURLDimensions.infer(bytes)
    if let found = unchecked { checkLimits(found) }
    // A width-only convention states 1…100,000 px, and only where no full size is stated by a query.
    if let width = ImageURLDimensions.width(bytes) {
        precondition(width.width >= 1 && width.width <= 100_000, "implausible width")
        if width.rule == .queryWidth { precondition(unchecked?.rule != .query, "a query with a height read as width-only") }
    }
    guard size > 4 else { return 0 }
    // 0 to 2^32 - 1 bytes: from always-plausible to larger than any bitmap the limits allow.
    let encoded = Int(bytes.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    let url = UnsafeRawBufferPointer(rebasing: bytes.dropFirst(4))
    let inferred = ImageURLDimensions.infer(url, encodedSize: encoded)
    if let found = inferred.found {
        checkLimits(found)
        // An accepted inference never decodes below the encoded size.
        precondition(SizeLimits.pixelCost(width: found.width, height: found.height)! >= encoded, "decoded below encoded accepted")
    }
    if let rejected = inferred.rejected {
        checkLimits(rejected)
        precondition(SizeLimits.pixelCost(width: rejected.width, height: rejected.height)! < encoded, "plausible inference rejected")
    }
    // Without a size to check against, the first rule answers; when its answer is plausible
    // the checked inference is that same answer, with nothing rejected.
    let plain = ImageURLDimensions.infer(url)
    if let plain, SizeLimits.pixelCost(width: plain.width, height: plain.height)! >= encoded {
        precondition(inferred.found.map { $0 == plain } == true && inferred.rejected == nil, "checked and unchecked inferences differ")
    }
    if plain == nil { precondition(inferred.found == nil && inferred.rejected == nil, "an inference only under a size") }
    return 0
}

private func checkLimits(_ found: ImageURLDimensions.Found) {
    precondition(found.width >= 1 && found.height >= 1, "zero dimension")
    precondition(found.width <= 100_000 && found.height <= 100_000, "implausible dimension")
    precondition(SizeLimits.pixelCost(width: found.width, height: found.height) != nil, "cost out of range")
}
