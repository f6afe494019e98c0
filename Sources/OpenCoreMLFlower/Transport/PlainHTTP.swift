import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One HTTP/1.1 POST over a plain TCP connection (a SuperLink's `--insecure` Fleet API), read
/// under the client's control: the head up to 64 KiB, a Content-Length over the limit refused
/// before any byte of the body is read, a body (plain or chunked) read only up to the limit, each
/// wait for bytes bounded by the idle timeout and the whole exchange by the total one. The
/// connection closes after the answer (`Connection: close`).
///
/// URLSession on Linux reads an answer ahead of its delegate, on and on, so it cannot stop where a
/// limit says; HTTPS still goes through it (``FleetTransport``).
enum PlainHTTP {
    /// What the server answered.
    struct Response {
        var status: Int
        var body: Data
    }

    /// Why there is no usable answer.
    enum Failure: Error, Equatable {
        /// No connection, a connection closed early, or a timeout; the text says which.
        case unreachable(String)
        /// The head announces `declared` body bytes, over the limit.
        case announcedTooMuch(declared: Int)
        /// The body went on past the limit (nothing more was read).
        case wentOnTooLong
        /// The answer is not HTTP/1.x as this reader takes it.
        case malformed(String)
    }

    /// Sends `body` to `path` at `host`:`port` and reads the answer.
    /// - Parameters:
    ///   - idleTimeout: Seconds to wait for the connection or for any byte.
    ///   - totalTimeout: Seconds the whole exchange may take.
    ///   - maximumBytes: The most bytes the answer's body may hold.
    static func post(host: String, port: Int, path: String, headers: [(String, String)], body: Data,
                     idleTimeout: Double, totalTimeout: Double, maximumBytes: Int) throws(Failure) -> Response {
        let deadline = Date().addingTimeInterval(totalTimeout)
        let socket = try connect(host: host, port: port, timeout: idleTimeout)
        defer { close(socket) }
        var connection = Connection(socket: socket, idleTimeout: idleTimeout, deadline: deadline)
        var request = "POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        try connection.send(Data(request.utf8) + body)

        var head = try connection.head()
        while head.status == 100 { head = try connection.head() }  // 100 Continue: the real head follows
        let data: Data
        if head.chunked {
            data = try connection.chunkedBody(maximumBytes: maximumBytes)
        } else if let length = head.contentLength {
            guard length <= maximumBytes else { throw .announcedTooMuch(declared: length) }
            data = try connection.bytes(length)
        } else {
            data = try connection.bodyToEnd(maximumBytes: maximumBytes)
        }
        return Response(status: head.status, body: data)
    }

    /// A connected TCP socket to `host`:`port`, within `timeout` seconds.
    private static func connect(host: String, port: Int, timeout: Double) throws(Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if os(Linux)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw .unreachable("the host is not known")
        }
        defer { freeaddrinfo(list) }
        var reason = "connection refused"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let address = candidate {
            candidate = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            let flags = fcntl(fd, F_GETFL, 0)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            if systemConnect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 || errno == EINPROGRESS {
                var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let polled = poll(&ready, 1, Int32(max(1, timeout * 1000)))
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                if polled > 0, getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 {
                    return fd
                }
                reason = polled == 0 ? "no connection within \(seconds(timeout)) s" : (error == ECONNREFUSED ? "connection refused" : String(cString: strerror(error)))
            }
            close(fd)
        }
        throw .unreachable(reason)
    }

    static func seconds(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }

    /// A socket being read: bytes read ahead of what was taken, and the time limits.
    private struct Connection {
        let socket: Int32
        let idleTimeout: Double
        let deadline: Date
        var buffer = Data()

        init(socket: Int32, idleTimeout: Double, deadline: Date) {
            self.socket = socket
            self.idleTimeout = idleTimeout
            self.deadline = deadline
        }

        /// Waits until the socket is ready for `events`, within the idle timeout and the deadline.
        private func wait(for events: Int32) throws(Failure) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw .unreachable("no complete answer within the total time") }
            var ready = pollfd(fd: socket, events: Int16(events), revents: 0)
            let polled = poll(&ready, 1, Int32(max(1, min(idleTimeout, left) * 1000)))
            if polled == 0 {
                throw .unreachable(left <= idleTimeout ? "no complete answer within the total time" : "timed out (no byte for \(PlainHTTP.seconds(idleTimeout)) s)")
            }
            guard polled > 0 else { throw .unreachable("poll failed: \(String(cString: strerror(errno)))") }
        }

        mutating func send(_ data: Data) throws(Failure) {
            var offset = 0
            while offset < data.count {
                try wait(for: Int32(POLLOUT))
                #if os(Linux)
                let flags = Int32(MSG_NOSIGNAL)
                #else
                let flags: Int32 = 0
                #endif
                let sent = data.withUnsafeBytes { systemSend(socket, $0.baseAddress! + offset, data.count - offset, flags) }
                guard sent > 0 else { throw .unreachable("the connection closed while the request was sent") }
                offset += sent
            }
        }

        /// Reads more into ``buffer``: at most `limit` bytes; false at the end of the stream.
        private mutating func fill(limit: Int = 65_536) throws(Failure) -> Bool {
            try wait(for: Int32(POLLIN))
            var chunk = [UInt8](repeating: 0, count: max(1, min(limit, 65_536)))
            let count = recv(socket, &chunk, chunk.count, 0)
            guard count >= 0 else { throw .unreachable("reading failed: \(String(cString: strerror(errno)))") }
            buffer.append(contentsOf: chunk[0..<count])
            return count > 0
        }

        /// One line (without its CRLF), at most 64 KiB.
        private mutating func line() throws(Failure) -> String {
            while true {
                if let end = buffer.firstRange(of: Data("\r\n".utf8)) {
                    let text = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
                    buffer = Data(buffer[end.upperBound...])
                    return text
                }
                guard buffer.count < 65_536 else { throw .malformed("a line of the answer's head is longer than 64 KiB") }
                guard try fill() else { throw .unreachable("the connection closed before the answer was complete") }
            }
        }

        /// The status line and headers.
        mutating func head() throws(Failure) -> (status: Int, contentLength: Int?, chunked: Bool) {
            let statusLine = try line()
            let parts = statusLine.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
                throw .malformed("the answer does not start with an HTTP/1.x status line ('\(statusLine.prefix(80))')")
            }
            var length: Int?
            var chunked = false
            var headerBytes = statusLine.utf8.count
            while true {
                let header = try line()
                if header.isEmpty { return (status, length, chunked) }
                headerBytes += header.utf8.count
                guard headerBytes < 65_536 else { throw .malformed("the answer's head is longer than 64 KiB") }
                let pair = header.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2 else { continue }
                switch pair[0].lowercased() {
                case "content-length":
                    guard let value = Int(pair[1]), value >= 0 else {
                        // Past Int (or negative): no memory holds it either.
                        guard pair[1].allSatisfy(\.isNumber) else { throw .malformed("Content-Length '\(pair[1].prefix(40))'") }
                        throw .announcedTooMuch(declared: .max)
                    }
                    length = value
                case "transfer-encoding":
                    chunked = pair[1].lowercased().contains("chunked")
                default: break
                }
            }
        }

        /// Exactly `count` bytes.
        mutating func bytes(_ count: Int) throws(Failure) -> Data {
            while buffer.count < count {
                guard try fill(limit: count - buffer.count) else {
                    throw .unreachable("the connection closed after \(buffer.count) of \(count) bytes of the answer")
                }
            }
            let result = Data(buffer.prefix(count))
            buffer = Data(buffer.dropFirst(count))
            return result
        }

        /// A chunked body, refused once its chunks add up past `maximumBytes`.
        mutating func chunkedBody(maximumBytes: Int) throws(Failure) -> Data {
            var body = Data()
            while true {
                let sizeLine = try line()
                let digits = sizeLine.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                guard let size = Int(digits, radix: 16), size >= 0 else {
                    if !digits.isEmpty, digits.allSatisfy(\.isHexDigit) { throw .wentOnTooLong }
                    throw .malformed("a chunk size '\(sizeLine.prefix(40))'")
                }
                if size == 0 {
                    while try !line().isEmpty {}  // trailers
                    return body
                }
                guard size <= maximumBytes - body.count else { throw .wentOnTooLong }
                body.append(try bytes(size))
                guard try line().isEmpty else { throw .malformed("a chunk not followed by CRLF") }
            }
        }

        /// The bytes up to the end of the stream (an answer with neither length nor chunks).
        mutating func bodyToEnd(maximumBytes: Int) throws(Failure) -> Data {
            while buffer.count <= maximumBytes {
                guard try fill(limit: maximumBytes + 1 - buffer.count) else { return buffer }
            }
            throw .wentOnTooLong
        }
    }
}

// The C functions, under names the methods above do not shadow.
#if canImport(Glibc)
private let systemConnect = Glibc.connect
private let systemSend = Glibc.send
#elseif canImport(Darwin)
private let systemConnect = Darwin.connect
private let systemSend = Darwin.send
#endif
