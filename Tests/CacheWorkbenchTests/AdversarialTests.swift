import Foundation
import Testing

/// The trust issues' adversarial cases (scripts/adversarial and its topics in
/// scripts/adversarial.d/) against the built `bench`, so each stays fixed. One test case
/// per topic, so the topics run on the suite's workers side by side, not one after another.
@Suite("adversarial cases", .onTestWorkers)
struct AdversarialTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every topic file in scripts/adversarial.d/, by name without `.sh`.
    static let topics: [String] = {
        let folder = repo.appendingPathComponent("scripts/adversarial.d").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasSuffix(".sh") }.map { String($0.dropLast(3)) }.sorted()
    }()

    @Test("the topics are there: one test case each below")
    func topicsFound() {
        #expect(Self.topics.count >= 9, "\(Self.topics)")
    }

    @Test("scripts/adversarial: every case of a topic passes", arguments: topics)
    func adversarialScript(topic: String) throws {
        let bench = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent().appendingPathComponent("bench").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Self.repo.appendingPathComponent("scripts/adversarial").path, bench, topic]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let failures = text.split(separator: "\n").filter { $0.contains("FAIL") }
        #expect(process.terminationStatus == 0 && failures.isEmpty, "\(failures.joined(separator: "\n"))\n\(text.suffix(2000))")
        #expect(text.contains(" 0 failed"), "\(text.suffix(2000))")
        // The topic ran: it printed at least one case, each under its own name.
        let cases = text.split(separator: "\n").filter { $0.hasPrefix("\(topic): ok ") }
        #expect(!cases.isEmpty && cases.count == text.split(separator: "\n").filter { $0.contains(": ok ") }.count, "\(text)")
    }
}
