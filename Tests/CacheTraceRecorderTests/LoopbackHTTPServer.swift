#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A one-thread HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for the network recorder's
/// tests: each connection gets one answer from `respond` and is closed. It keeps every
/// request head it received, so a test can compare what was sent with what was recorded.
final class LoopbackHTTPServer: @unchecked Sendable {
    struct Answer {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
    }

    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var heads: [String] = []
    private let respond: @Sendable (_ path: String, _ head: String) -> Answer

    /// `listening: false` binds the port without listening: connections to it are refused.
    init(listening: Bool = true, respond: @escaping @Sendable (_ path: String, _ head: String) -> Answer) throws {
        self.respond = respond
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, !listening || listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        guard listening else { return }
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// The request heads received so far, in order.
    var received: [String] { lock.withLock { heads } }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            var head: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !head.ends(with: Array("\r\n\r\n".utf8)) {
                let count = read(connection, &chunk, chunk.count)
                if count <= 0 { break }
                head += chunk[0..<count]
            }
            let text = String(decoding: head, as: UTF8.self)
            lock.withLock { heads.append(text) }
            let path = text.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            let answer = respond(path, text)
            var response = "HTTP/1.1 \(answer.status) \(answer.status == 200 ? "OK" : "Not Modified")\r\n"
            for (name, value) in answer.headers { response += "\(name): \(value)\r\n" }
            response += "Content-Length: \(answer.body.count)\r\nConnection: close\r\n\r\n"
            let bytes = Array(response.utf8) + answer.body
            _ = bytes.withUnsafeBytes { write(connection, $0.baseAddress!, $0.count) }
            close(connection)
        }
    }
}

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
