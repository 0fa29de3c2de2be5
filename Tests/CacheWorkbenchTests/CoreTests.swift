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

@Suite("Capacities, key digests, clock and memory probe", .onTestWorkers)
struct CoreTests {
    @Test("capacity units are binary; % and fractions are shares")
    func capacities() throws {
        #expect(try Capacity(parsing: "1048576") == .bytes(1 << 20))
        #expect(try Capacity(parsing: "64MiB") == .bytes(64 << 20))
        #expect(try Capacity(parsing: "64MB") == .bytes(64 << 20))
        #expect(try Capacity(parsing: "64m") == .bytes(64 << 20))
        #expect(try Capacity(parsing: "1.5GiB") == .bytes(3 << 29))
        #expect(try Capacity(parsing: "512KB") == .bytes(512 << 10))
        #expect(try Capacity(parsing: "10%") == .share(0.1))
        #expect(try Capacity(parsing: "0.25") == .share(0.25))
        #expect(try Capacity.list(parsing: "64MiB,256MiB,10%") == [.bytes(64 << 20), .bytes(256 << 20), .share(0.1)])
        for bad in ["", "0", "-5", "1.5", "abc", "0%", "150%", "MB", "-1MB"] {
            #expect(throws: WorkbenchError.self) { try Capacity(parsing: bad) }
        }
        #expect(Capacity.bytes(64 << 20).description == "64MiB")
        #expect(Capacity.share(0.125).description == "12.5%")
    }

    @Test("MurmurHash64A agrees with an independent implementation")
    func murmur() {
        // Expected values from a Python transcription of Appleby's MurmurHash64A, seed 0.
        let cases: [(String, UInt64)] = [
            ("", 0), ("a", 0x071717d2d36b6b11), ("hello", 0x1e68d17c457bf117),
            ("https://images.example-cdn.com/v2/photos/x.jpg", 0x8bce011b6f2b3567), ("café", 0x5f7a16b901085d2a),
        ]
        for (text, expected) in cases {
            var copy = text
            #expect(copy.withUTF8 { KeyDigest.murmur64A(UnsafeRawBufferPointer($0)) } == expected)
        }
    }

    @Test("canonical integers are their own id; others are digests")
    func keyParsing() {
        #expect(KeyDigest.parse("0") == (0, true))
        #expect(KeyDigest.parse("123") == (123, true))
        #expect(KeyDigest.parse("0123").isInteger == false)
        #expect(KeyDigest.parse("+1").isInteger == false)
        #expect(KeyDigest.parse("18446744073709551616").isInteger == false)
        #expect(Request(time: 0, key: "55", size: 1).name == nil)
        #expect(Request(time: 0, key: "x55", size: 1).keyText == "x55")
    }

    @Test("jemalloc is the process allocator and its statistics follow allocations")
    func jemalloc() throws {
        #expect(MemoryProbe.allocatorName.hasPrefix("jemalloc"))
        // stats.allocated is process-wide and other tests run in parallel, so the exact
        // check uses jemalloc's per-thread counters; the global figure can only be larger.
        let tracker = HeapTracker()
        #expect(tracker.isAvailable)
        let before = tracker.liveBytes
        let block = UnsafeMutableRawPointer.allocate(byteCount: 256 << 20, alignment: 64)
        // A few KiB of slack for what the test machinery itself allocates on this thread.
        #expect(abs(tracker.liveBytes - before - (256 << 20)) < 64 << 10)
        #expect(try #require(MemoryProbe.allocatedBytes()) >= 256 << 20)
        block.deallocate()
        #expect(abs(tracker.liveBytes - before) < 64 << 10)
        #expect((MemoryProbe.residentBytes() ?? 0) > 0)
    }

    @Test("the monotonic clock advances, in nanoseconds")
    func clock() {
        // Across a 20 ms sleep it must move by at least 20,000,000 ns (a clock that never
        // moves, or counts microseconds, fails) and, on a loaded machine, by well under 10 s.
        let first = MonotonicClock.now()
        usleep(20_000)
        let elapsed = MonotonicClock.now() &- first
        #expect(elapsed >= 20_000_000 && elapsed < 10_000_000_000, "\(elapsed) ns across a 20 ms sleep")
    }
}
