import CCrypto

/// SHA-256 through the system's libcrypto (OpenSSL 3, as SQLite is linked: a system library
/// through its C API). It replaced swift-crypto, whose BoringSSL copy cost the clean build
/// more than any other dependency, for one hash function (docs/building.md has the figures).
///
/// `hash` is one call, O(n), no allocation but the digest; `Stream` hashes a file chunk by
/// chunk, O(1) memory.
public enum SHA256Digest {
    public static let byteCount = 32

    /// The 32 digest bytes of `bytes`.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { digest, count in
            // SHA256 cannot fail for a valid pointer and length (NULL data with length 0 is fine).
            _ = CCrypto.SHA256(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, digest.baseAddress)
            count = byteCount
        }
    }

    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// Lowercase hex of the digest of a string's UTF-8 bytes (what `sha256sum` prints).
    public static func hex(_ text: String) -> String {
        var text = text
        return text.withUTF8 { HexText.encode(hash(UnsafeRawBufferPointer($0))) }
    }

    /// An incremental digest (EVP API), for input that arrives in pieces.
    public final class Stream {
        /// nil only when libcrypto could not allocate or initialise a context (out of
        /// memory): `finalize` then says so with nil rather than trapping.
        private let context: OpaquePointer?

        public init() {
            var context = EVP_MD_CTX_new()
            if let made = context, EVP_DigestInit_ex(made, EVP_sha256(), nil) != 1 {
                EVP_MD_CTX_free(made)
                context = nil
            }
            self.context = context
        }

        deinit { EVP_MD_CTX_free(context) }

        public func update(_ bytes: UnsafeRawBufferPointer) {
            guard let context, bytes.count > 0, let base = bytes.baseAddress else { return }
            _ = EVP_DigestUpdate(context, base, bytes.count)
        }

        /// The digest, or nil when no context could be made; the stream is spent afterwards.
        public func finalize() -> [UInt8]? {
            guard let context else { return nil }
            var length: UInt32 = 0
            let digest = [UInt8](unsafeUninitializedCapacity: Int(EVP_MAX_MD_SIZE)) { digest, count in
                count = EVP_DigestFinal_ex(context, digest.baseAddress, &length) == 1 ? Int(length) : 0
            }
            return digest.count == byteCount ? digest : nil
        }
    }
}
