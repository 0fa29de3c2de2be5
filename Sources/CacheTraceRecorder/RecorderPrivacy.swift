// What the recorder keeps out of a recording. Applied on the writer's queue, so the app's
// thread never pays for hashing.

/// Privacy rules for a recording. By default credentials are never written (always on),
/// query strings are kept and keys are written as given.
public struct RecorderPrivacy: Sendable {
    /// Header fields never written, whatever the options (compared case-insensitively).
    public static let neverWrittenHeaders: Set<String> = ["cookie", "set-cookie", "authorization", "proxy-authorization"]

    /// Removes `?…` from every URL and key.
    public var dropsQueryStrings: Bool
    /// When set, every key and URL is written as "h:" + 32 lower-case hex digits, the first
    /// 16 bytes of HMAC-SHA256(salt, text): equal texts stay equal (hits replay exactly),
    /// but what a URL said (image type, sizes in the path) is lost.
    public var hashSalt: [UInt8]?

    public init(dropsQueryStrings: Bool = false, hashSalt: [UInt8]? = nil) {
        self.dropsQueryStrings = dropsQueryStrings
        self.hashSalt = hashSalt
    }

    /// A key or URL as written: query dropped first, then hashed. O(length).
    func text(_ text: String) -> String {
        var kept = text
        if dropsQueryStrings, let cut = kept.firstIndex(of: "?") {
            kept = String(kept[..<cut])
        }
        guard let hashSalt else { return kept }
        let code = HMACSHA256.authenticationCode(key: hashSalt, message: Array(kept.utf8)).prefix(16)
        return "h:" + code.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xf)]])
        }.joined()
    }

    /// Header fields as written: credentials removed. O(fields).
    func headers(_ fields: [(String, String)]) -> [(String, String)] {
        fields.filter { !Self.neverWrittenHeaders.contains($0.0.lowercased()) }
    }

    /// The header's "privacy" object.
    var summary: [(String, String)] {
        [("query", dropsQueryStrings ? "dropped" : "kept"), ("keys", hashSalt == nil ? "plain" : "hashed")]
    }
}
