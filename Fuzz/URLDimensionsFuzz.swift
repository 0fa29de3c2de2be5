// libFuzzer entry for the image-URL dimension rules (scripts/fuzz url): any bytes as a URL.
// nil is a correct answer; a crash, or dimensions outside the documented limits, is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLDimensions(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let found = ImageURLDimensions.infer(UnsafeRawBufferPointer(start: data, count: size)) {
        precondition(found.width >= 1 && found.height >= 1, "zero dimension")
        precondition(found.width <= 500_000 && found.height <= 500_000, "implausible dimension")
        precondition(SizeLimits.pixelCost(width: found.width, height: found.height) != nil, "cost out of range")
    }
    return 0
}
