import Foundation

// libFuzzer entry for the recorder's JSON line building (scripts/fuzz recorder): any text, as
// a key, a value and a nested header field, must come back unchanged through
// JSONSerialization, and a hashed key must be "h:" + 32 lower-case hex digits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecorderLine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var line = JSONLineBuilder()
    line.field("key", text)
    line.field("t", UInt64(size))
    line.field("response_headers", object: [(text, text)])
    line.field("scale", Double(size) / 3)
    let bytes = line.line
    precondition(bytes.last == UInt8(ascii: "\n") && !bytes.dropLast().contains(UInt8(ascii: "\n")), "one line")
    guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
        preconditionFailure("not a JSON object: \(String(decoding: bytes, as: UTF8.self))")
    }
    precondition(object["key"] as? String == text, "key changed")
    precondition((object["response_headers"] as? [String: String])?[text] == text, "header changed")
    let hashed = RecorderPrivacy(dropsQueryStrings: size % 2 == 0, hashSalt: Array(text.utf8.prefix(8))).text(text)
    precondition(hashed.count == 34 && hashed.hasPrefix("h:") && hashed.dropFirst(2).allSatisfy { "0123456789abcdef".contains($0) })
    return 0
}
