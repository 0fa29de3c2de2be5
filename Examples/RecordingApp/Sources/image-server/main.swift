#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

// image-server [--log FILE]: an HTTP/1.1 server on 127.0.0.1 (an ephemeral port, printed on
// the first line of stdout) serving the catalogue's PNG and JPEG images with Cache-Control,
// ETag, Last-Modified, Content-Type and Content-Length (and a Set-Cookie a recording must not
// keep); 304 when If-None-Match matches. One connection at a time, one request each. With
// --log, every response's status and header fields are appended to FILE as a JSON line, so a
// test can compare them with what the recorder wrote.

/// The images served: /images/NAME, dimensions fixed here (the app reads them from the bytes).
let catalogue: [String: (width: Int, height: Int, maxAge: Int)] = [
    "photo-1.png": (64, 64, 3600), "photo-2.png": (128, 96, 3600), "photo-3.png": (256, 192, 600),
    "photo-4.png": (200, 200, 3600), "banner.png": (480, 120, 60), "thumb-1.jpg": (96, 96, 86400),
    "thumb-2.jpg": (160, 120, 86400), "photo-5.jpg": (320, 240, 3600), "photo-6.jpg": (400, 300, 3600),
    "poster.jpg": (640, 480, 300),
]

// Started from a thread that blocks signals (a test runner's), a child inherits the mask:
// unblock them all, so SIGTERM and SIGINT stop the server.
var allSignals = sigset_t()
sigemptyset(&allSignals)
sigprocmask(SIG_SETMASK, &allSignals, nil)

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("image-server: error: \(message)\n".utf8))
    exit(2)
}

var logPath: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--log":
        guard let path = arguments.popFirst() else { fail("--log needs a file") }
        logPath = path
    default: fail("unknown argument '\(argument)' (usage: image-server [--log FILE])")
    }
}
var log: FileHandle?
if let logPath {
    // Created exclusively: the server never writes into a file it did not create.
    let descriptor = open(logPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { fail("cannot create \(logPath): \(String(cString: strerror(errno)))") }
    log = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
}

let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
var address = sockaddr_in()
address.sin_family = sa_family_t(AF_INET)
address.sin_addr.s_addr = inet_addr("127.0.0.1")
var reuse: Int32 = 1
setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
let bound = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
}
guard bound == 0, listen(listener, 64) == 0 else { fail("cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))") }
var length = socklen_t(MemoryLayout<sockaddr_in>.size)
_ = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
}
// The port on the first line of stdout, written at once (unbuffered).
FileHandle.standardOutput.write(Data("\(UInt16(bigEndian: address.sin_port))\n".utf8))

/// The generated files, made once.
var files: [String: [UInt8]] = [:]
for (name, image) in catalogue {
    files[name] = name.hasSuffix(".png") ? GeneratedImages.png(width: image.width, height: image.height)
        : GeneratedImages.jpeg(width: image.width, height: image.height)
}

while true {
    let connection = accept(listener, nil, nil)
    guard connection >= 0 else { continue }
    var head: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while head.count < 65_536, !(head.count >= 4 && Array(head.suffix(4)) == [13, 10, 13, 10]) {
        let count = read(connection, &chunk, chunk.count)
        if count <= 0 { break }
        head += chunk[0..<count]
    }
    let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
    let requestLine = lines.first?.split(separator: " ") ?? []
    let path = requestLine.count > 1 ? String(requestLine[1]) : "/"
    var requestFields: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        requestFields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let name = path.hasPrefix("/images/") ? String(path.dropFirst("/images/".count).prefix { $0 != "?" }) : ""
    var status = 404
    var fields: [(String, String)] = []
    var body: [UInt8] = []
    if let image = catalogue[name], let bytes = files[name] {
        let etag = "\"\(name)-\(bytes.count)\""
        fields = [
            ("Cache-Control", "max-age=\(image.maxAge)"), ("ETag", etag), ("Last-Modified", "Fri, 27 Nov 2026 12:00:00 GMT"),
            ("Content-Type", name.hasSuffix(".png") ? "image/png" : "image/jpeg"), ("Set-Cookie", "tracking=server-secret; Path=/"),
        ]
        if requestFields["if-none-match"] == etag {
            status = 304
        } else {
            status = 200
            body = bytes
        }
    }
    fields += [("Content-Length", String(body.count)), ("Connection", "close")]
    // Logged before the answer goes out, so the log is complete once the client has it.
    if let log {
        let entry: [String: Any] = ["path": path, "status": status, "headers": Dictionary(fields, uniquingKeysWith: { $1 })]
        if let line = try? JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys]) { log.write(line + Data("\n".utf8)) }
    }
    var response = "HTTP/1.1 \(status) \(status == 200 ? "OK" : status == 304 ? "Not Modified" : "Not Found")\r\n"
    for (field, value) in fields { response += "\(field): \(value)\r\n" }
    let bytes = Array((response + "\r\n").utf8) + body
    var sent = 0
    while sent < bytes.count {
        let count = bytes[sent...].withUnsafeBytes { write(connection, $0.baseAddress!, $0.count) }
        if count <= 0 { break }
        sent += count
    }
    close(connection)
}
