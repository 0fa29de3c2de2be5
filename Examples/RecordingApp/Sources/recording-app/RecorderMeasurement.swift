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

    static func run(events: Int, folder: URL) {
        // 1. Cost on the caller's thread: the default configuration, keys made beforehand (the
        //    app has them), the writer running beside it.
        let keys = (0..<events).map(key)
        do {
            let recorder = try TraceRecorder(configuration: .init(folder: folder, name: "cost", maxFileBytes: 64 << 20, maxFiles: 64))
            let start = DispatchTime.now().uptimeNanoseconds
            for i in 0..<events { record(recorder, i, key: keys[i]) }
            let elapsed = DispatchTime.now().uptimeNanoseconds - start
            recorder.close()
            let dropped = recorder.droppedEvents
            print("caller: \(events) image events in \(elapsed / 1_000_000) ms = \(String(format: "%.1f", Double(elapsed) / Double(events))) ns/event; written \(events - dropped), dropped \(dropped) (buffer 4096)")
        } catch { print("measure: \(error)") }
        // 2. The same events with a buffer large enough to hold them all: the writer's speed.
        do {
            let recorder = try TraceRecorder(configuration: .init(
                folder: folder, name: "writer", bufferCapacity: events, maxFileBytes: 1 << 30, maxFiles: 4))
            for i in 0..<events { record(recorder, i, key: keys[i]) }
            let start = DispatchTime.now().uptimeNanoseconds
            recorder.flush()
            let elapsed = DispatchTime.now().uptimeNanoseconds - start
            recorder.close()
            print("writer: flushed the rest in \(elapsed / 1_000_000) ms; dropped \(recorder.droppedEvents)")
        } catch { print("measure: \(error)") }
        // 3. Memory bound: a full buffer of the default capacity, the writer held off (a batch
        //    larger than the buffer, an hour's interval), each event with its own key string.
        do {
            let capacity = 4096
            let recorder = try TraceRecorder(configuration: .init(
                folder: folder, name: "memory", bufferCapacity: capacity, batchSize: capacity + 1, flushInterval: .seconds(3600)))
            let before = residentBytes()
            for i in 0..<capacity { record(recorder, i, key: key(i + 1_000_000)) }
            let after = residentBytes()
            print("memory: \(capacity) queued events raised RSS by \(after - before) bytes = \((after - before) / capacity) bytes/event (keys of \(key(1_000_000).utf8.count) bytes each, made per event)")
            recorder.close()
        } catch { print("measure: \(error)") }
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
