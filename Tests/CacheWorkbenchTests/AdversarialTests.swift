import Foundation
import Testing

/// The trust issues' adversarial cases (scripts/adversarial and its topics in
/// scripts/adversarial.d/) against the built `bench`, so each stays fixed.
@Suite("adversarial cases", .onTestWorkers)
struct AdversarialTests {
    @Test("scripts/adversarial: every case of every topic passes")
    func adversarialScript() throws {
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let bench = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent().appendingPathComponent("bench").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repo.appendingPathComponent("scripts/adversarial").path, bench]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let failures = text.split(separator: "\n").filter { $0.contains("FAIL") }
        #expect(process.terminationStatus == 0 && failures.isEmpty, "\(failures.joined(separator: "\n"))\n\(text.suffix(2000))")
        #expect(text.contains(" 0 failed"), "\(text.suffix(2000))")
        // The topics ran: each prints at least one case.
        #expect(text.split(separator: "\n").filter { $0.contains(": ok ") }.count >= 10, "\(text)")
    }
}
