// The fuzz targets compile the readers as one module without jemalloc: the heap account a
// preloaded trace keeps (`MemoryProbe.holdTrace`, Metrics/MemoryProbe.swift) is a stand-in
// here, as the stage modules are empty stand-ins (scripts/fuzz). Nothing a parser decides
// depends on it.
enum MemoryProbe {
    static func usableSize(_ pointer: UnsafeMutableRawPointer) -> Int { 0 }
    static func holdTrace(bytes: Int) {}
    static func releaseTrace(bytes: Int) {}
}
