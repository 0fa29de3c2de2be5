import Foundation
import Testing

/// The threads the suites' tests run on, instead of Swift concurrency's cooperative pool.
///
/// Why: most tests wait on a child process (`bench`, Python, `swift build`) with a blocking
/// `waitUntilExit`, and Swift Testing runs test functions on the cooperative pool, which has
/// one thread per core (2 here). Two tests waiting on children that wait on the disk (the
/// `files` and `sqlite` rows fsync) left both cores idle while hundreds of tests queued.
/// On these workers a blocked test holds one of `width` threads of its own, so up to `width`
/// tests (by default 2 × cores, what Swift Testing itself aims for) run side by side and the
/// cores stay busy. `CWB_TEST_WIDTH` sets another width (1 runs the suite one test at a time).
///
/// Jobs run first come, first served; a job runs to its next suspension point on one thread,
/// as on any executor. Enqueue and dequeue are O(1) amortized (a ring of pending jobs).
final class TestWorkers: TaskExecutor, @unchecked Sendable {
    static let shared = TestWorkers(width: TestWorkers.configuredWidth)

    /// `CWB_TEST_WIDTH` when it is a positive integer, else twice the active cores.
    static var configuredWidth: Int {
        if let text = ProcessInfo.processInfo.environment["CWB_TEST_WIDTH"], let width = Int(text), width > 0 { return width }
        return max(2, 2 * ProcessInfo.processInfo.activeProcessorCount)
    }

    let width: Int
    private let condition = NSCondition()
    private var pending: [UnownedJob?] = []
    private var head = 0

    init(width: Int) {
        self.width = width
        for index in 0..<width {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "test worker \(index)"
            thread.stackSize = 8 << 20  // the main thread's size: some tests recurse deeply in debug builds
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        pending.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while head == pending.count { condition.wait() }
            let job = pending[head]!
            pending[head] = nil
            head += 1
            if head == pending.count {  // drained: reuse the storage
                pending.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}

/// Runs every test case of a suite (and its nested suites) on `TestWorkers`; with
/// `CWB_TEST_TIMES=FILE` it appends each case's own running time (from when a worker
/// started it, so without the time it queued) to FILE as `seconds<TAB>test`.
struct OnTestWorkers: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        // A `.timeLimit` clock starts before this scope: a case that queued here for a
        // worker would spend its limit waiting. Such cases run at once on the cooperative
        // pool, which the other tests have left free.
        if test.traits.contains(where: { $0 is TimeLimitTrait }) {
            let started = ContinuousClock.now
            defer { TestTimes.record(test, seconds: started.duration(to: .now)) }
            return try await function()
        }
        try await withTaskExecutorPreference(TestWorkers.shared) {
            let started = ContinuousClock.now
            defer { TestTimes.record(test, seconds: started.duration(to: .now)) }
            try await function()
        }
    }
}

extension Trait where Self == OnTestWorkers {
    /// Run this suite's tests on `TestWorkers`, not the cooperative pool.
    static var onTestWorkers: OnTestWorkers { OnTestWorkers() }
}

/// Each test case's running time, appended to `$CWB_TEST_TIMES` when it is set.
enum TestTimes {
    static let path = ProcessInfo.processInfo.environment["CWB_TEST_TIMES"]

    static func record(_ test: Test, seconds: Duration) {
        guard let path else { return }
        let (whole, attoseconds) = seconds.components
        let line = String(format: "%.3f\t%@\n", Double(whole) + Double(attoseconds) / 1e18, "\(test.id)")
        // O_APPEND: each line is one write, whole, whatever the other workers write.
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard descriptor >= 0 else { return }
        _ = line.withCString { write(descriptor, $0, strlen($0)) }
        close(descriptor)
    }
}
