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

@Suite("CFStringHash and key hashing", .onTestWorkers)
struct StringKeyHashTests {
    static func varied() -> [String] {
        var strings = ["", "a", "ab", "abc", "abcd", "abcde", "https://example.com/x.jpg", "café", "日本語のキー", "emoji 🎉 key",
                       "Ünïcödé/päth?q=ß", "ÿ日本語", "日本語ÿÿÿÿ", "Ü日", "~\u{7F}\u{80}\u{FF}x"]
        for length in [31, 32, 33, 95, 96, 97, 98, 128, 200, 1000] {
            strings.append(String((0..<length).map { Character(UnicodeScalar(UInt8(33 + ($0 * 7) % 90))) }))
            strings.append("é" + String(repeating: "x", count: length))  // Latin-1: CF's 8-bit path
            strings.append("ÿ" + String(repeating: "y", count: length) + "日")  // UTF-16 path
        }
        return strings
    }

    @Test("equals NSString.hash of Foundation on Linux", arguments: varied())
    func matchesFoundation(text: String) {
        #expect(CFStringHash.hash(text) == UInt(bitPattern: NSString(string: text).hash))
    }

    @Test("long strings ignore everything outside the first, middle and last 32 units")
    func windows() {
        let length = 160  // windows: 0..<32, 64..<96, 128..<160
        func key(_ gap: String, _ middle: String = "M") -> String {
            let head = String(repeating: "h", count: 32)
            let gap1 = gap + String(repeating: "g", count: 32 - gap.count)
            let window = middle + String(repeating: "m", count: 32 - middle.count)
            let gap2 = String(repeating: "G", count: 32)
            let tail = String(repeating: "t", count: 32)
            return head + gap1 + window + gap2 + tail
        }
        #expect(key("1").count == length)
        #expect(CFStringHash.hash(key("1")) == CFStringHash.hash(key("2")))  // differ in a gap
        #expect(CFStringHash.hash(key("1", "A")) != CFStringHash.hash(key("1", "B")))  // differ in a window
        // Short strings hash every unit.
        #expect(CFStringHash.hash("https://a.example/1.jpg") != CFStringHash.hash("https://a.example/2.jpg"))
    }

    @Test("HashedKey: cf and full keep the text; digest is 64 hex characters of SHA-256")
    func hashedKeys() {
        let request = Request(time: 0, key: "https://example.com/a.jpg", size: 1)
        #expect(HashedKey(request, scheme: .cf).text == "https://example.com/a.jpg")
        let digest = HashedKey(request, scheme: .digest)
        // sha256("https://example.com/a.jpg"), from `printf %s … | sha256sum`.
        #expect(digest.text == "276a1ac00ba4f0ea47eeeafca24284f41bc78dc593af1f048615aceba44ab9d9")
        #expect(digest.hash == UInt64(digest.text.prefix(16), radix: 16))
        #expect(HashedKey(request, scheme: .full) == HashedKey(request, scheme: .full))
    }
}
