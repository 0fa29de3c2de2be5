import Foundation
import Testing
@testable import CacheWorkbench
@testable import WorkbenchReports
@testable import WorkbenchSimulation

/// Issue 45 §4: every policy states its reference, and the tests it names exist.
@Suite("policy references", .onTestWorkers)
struct PolicyReferenceTests {
    /// Every policy simulator and offline bound: the `policies` group, the opt-in policies
    /// of cachesim and the learned three.
    static var policyNames: [String] {
        get throws {
            let group = try BackendRegistry.list(parsing: "policies").map(\.name)
            let optIn = BackendRegistry.optInNames.filter { $0 != "foundation-urlcache" }
            return group + optIn.sorted()
        }
    }

    @Test("every policy has a reference (code or paper, how, tests); each named test is a func of that struct in Tests/; bench list --json prints it and docs/policies.md tables it row for row")
    func everyPolicyReferenced() throws {
        let names = try Self.policyNames
        #expect(names.count == 51, "\(names.count)")  // 39 in the group, 9 of cachesim's, 3 learned
        let folder = SourceCheckout.root.path + "/Tests/CacheWorkbenchTests"
        let sources = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }
        for name in names {
            let reference = try #require(PolicyReference.byName[name], "\(name) has no PolicyReference")
            #expect(!reference.against.isEmpty && !reference.how.isEmpty && !reference.tests.isEmpty, "\(name)")
            for test in reference.tests {
                let parts = test.split(separator: ".").map(String.init)
                // The struct's body runs from its declaration to the next top-level struct.
                let found = parts.count == 2 && sources.contains { text in
                    guard let start = text.range(of: "\nstruct \(parts[0]) ") else { return false }
                    let rest = text[start.upperBound...]
                    let body = rest.range(of: "\nstruct ").map { rest[..<$0.lowerBound] } ?? rest
                    return body.contains("func \(parts[1])(")
                }
                #expect(found, "\(name): \(test) is not a test function")
            }
        }
        #expect(Set(PolicyReference.byName.keys) == Set(names), "references for names that are not policies")
        let json = try JSONSerialization.jsonObject(with: Data(Catalog.json().utf8)) as? [String: Any]
        let backends = try #require(json?["backends"] as? [[String: Any]])
        let sieve = try #require(backends.first { $0["name"] as? String == "sieve-belady" })
        let reference = try #require(sieve["reference"] as? [String: Any])
        #expect((reference["against"] as? String)?.contains("aa0fc40") == true && reference["tests"] as? [String] == ["CachesimRestTests.cSimulator", "CachesimRestTests.oltp", "CachesimRestTests.handTraces"])
        #expect(backends.first { $0["name"] as? String == "nscache" }?["reference"] == nil)
        // docs/policies.md's table says the same, row for row.
        let page = try String(contentsOfFile: SourceCheckout.root.path + "/docs/policies.md", encoding: .utf8)
        for name in names {
            let reference = try #require(PolicyReference.byName[name])
            let row = "| `\(name)` | \(reference.against) | \(reference.how) | \(reference.tests.map { "`\($0)`" }.joined(separator: ", ")) |"
            #expect(page.contains(row + "\n"), "docs/policies.md lacks or differs for \(name)")
        }
    }
}
