#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CacheTraceRecorder
import Dispatch
import Foundation

// The hidden modes behind docs/recorder.md's figures: the cost of one recorded image event on
// the caller's thread, the memory a full buffer holds, and a process killed mid-write.

enum RecorderMeasurement {
    /// Realistic fields: a CDN URL of ~90 characters, dimensions, display size, type.
    static func record(_ recorder: TraceRecorder, _ i: Int, key: String) {
        recorder.image(
            key: key, source: i % 3 == 0 ? .network : .memory, encodedBytes: 48_213, width: 1170, height: 780,
            bytesPerRow: 4680, decodedCost: 3_650_400, displaySize: CGSize(width: 390, height: 260), scale: 3,
            contentType: "image/jpeg")
    }

    static func key(_ i: Int) -> String {
        "https://images.example-cdn.com/v2/feed/articles/\(i % 5000)/hero.jpg?w=1170&h=780&fit=crop&q=80"
    }

    /// Resident set size from /proc/self/statm (Linux), in bytes; 0 where unavailable.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    static func nanoseconds(_ work: () -> Void) -> UInt64 {
        let start = DispatchTime.now().uptimeNanoseconds
        work()
        return DispatchTime.now().uptimeNanoseconds - start
    }

    static func run(events: Int, folder: URL) {
        do {
            // 1. Memory bound, first (a fresh heap): the default capacity filled, the writer held
            //    off (a batch larger than the buffer, an hour's interval), each event with a key
            //    string of its own, as when the app builds the key per lookup.
            let capacity = 4096
            let start = residentBytes()
            let held = try TraceRecorder(configuration: .init(
                folder: folder, name: "memory", bufferCapacity: capacity, batchSize: capacity + 1, flushInterval: .seconds(3600)))
            let before = residentBytes()
            for i in 0..<capacity { record(held, i, key: key(i + 1_000_000)) }
            let after = residentBytes()
            print("memory: the recorder started: +\(before - start) bytes resident (Foundation's first use included); a full buffer of \(capacity) events: +\(after - before) bytes = \(Double(after - before) / Double(capacity)) bytes/event (keys of \(key(1_000_000).utf8.count) bytes made per event)")
            held.close()

            // 2. The caller's cost with the writer held off: the lock, the clock, the append, into
            //    the default buffer of 4096, emptied (untimed) between rounds.
            let keys = (0..<events).map(key)
            let quiet = try TraceRecorder(configuration: .init(
                folder: folder, name: "caller", batchSize: capacity + 1, flushInterval: .seconds(3600), maxFileBytes: 1 << 30))
            var callerTime: UInt64 = 0, writerTime: UInt64 = 0
            for round in stride(from: 0, to: events, by: capacity) {
                callerTime += nanoseconds { for i in round..<min(round + capacity, events) { record(quiet, i, key: keys[i]) } }
                // 3. The writer's cost: encoding and writing what the caller queued.
                writerTime += nanoseconds { quiet.flush() }
            }
            quiet.close()
            print("caller, writer held off: \(events) image events, \(String(format: "%.1f", Double(callerTime) / Double(events))) ns/event; dropped \(quiet.droppedEvents)")
            print("writer: \(String(format: "%.2f", Double(writerTime) / Double(events) / 1000)) µs/event to encode and write")

            // 4. Both at once, the default configuration: what an app sees at full speed.
            let busy = try TraceRecorder(configuration: .init(folder: folder, name: "cost", maxFileBytes: 1 << 30))
            let busyTime = nanoseconds { for i in 0..<events { record(busy, i, key: keys[i]) } }
            busy.close()
            print("caller, writer running (buffer 4096): \(String(format: "%.1f", Double(busyTime) / Double(events))) ns/event; dropped \(busy.droppedEvents) of \(events) (the writer cannot keep up with a loop that does nothing else)")
        } catch { print("measure: \(error)") }
    }

    /// N image events with the writer held off (a buffer of N, a batch larger than it), then
    /// exits without writing them; with `record: false` the same run without the recorder's
    /// calls. The difference of the two runs' instruction counts under
    /// `valgrind --tool=callgrind` is what the app's thread pays for N events.
    static func callerOnly(events: Int, record recording: Bool, folder: URL) -> Never {
        let keys = (0..<events).map(key)
        do {
            let recorder = try TraceRecorder(configuration: .init(
                folder: folder, name: "caller-only", bufferCapacity: events, batchSize: events + 1, flushInterval: .seconds(3600)))
            if recording { for i in 0..<events { record(recorder, i, key: keys[i]) } }
            exit(keys.count == events ? 0 : 1)
        } catch { fail("\(error)") }
    }

    /// Records events as fast as it can and kills itself with SIGKILL after `count`: the
    /// writer is usually between two write(2) calls of a batch, leaving a torn last line.
    static func crash(after count: Int, folder: URL) -> Never {
        do {
            let recorder = try TraceRecorder(configuration: .init(folder: folder, bufferCapacity: 1 << 20, batchSize: 64))
            for i in 0..<count { record(recorder, i, key: key(i)) }
            // Let the writer get going on what is queued, then die mid-write.
            usleep(2_000)
            kill(getpid(), SIGKILL)
        } catch {
            fail("\(error)")
        }
        exit(3)
    }
}
