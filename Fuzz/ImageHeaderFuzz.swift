// libFuzzer entry for the image-header parser (scripts/fuzz image).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageHeader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let found = ImageDimensions.read(UnsafeRawBufferPointer(start: data, count: size)) {
        precondition(found.width > 0 && found.height > 0, "zero dimension returned")
    }
    return 0
}
