import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// HTTP/1.1 POSTs over plain TCP connections to one host and port (a SuperLink's `--insecure`
/// Fleet API), each answer read under the client's control: the head up to 64 KiB, a
/// Content-Length over the limit refused before any byte of the body is read, a body (plain or
/// chunked) read only up to the limit, each wait for bytes bounded by the idle timeout and the
/// whole exchange by the total one.
///
/// Connections are kept open between requests (HTTP/1.1 keep-alive; uvicorn, which serves flwr's
/// SuperLink, keeps an idle one for 5 s): an answer read to its end, with a length or chunks and
/// without `Connection: close`, leaves its connection for the next request — at most
/// ``maximumIdleConnections`` of them, each for at most ``keepAliveSeconds`` unused. Any other end
/// (an error, a limit, a timeout, an answer without a length) closes the connection. A kept
/// connection the server has closed meanwhile is noticed before the request is sent (it is
/// readable); one it closes as the request goes out — the race between its idle timeout and the
/// request — ends before any byte of the answer, and the request is sent again once, on a new
/// connection (a server closes an idle connection only when no request is in progress on it, so
/// the first one was not read). A new connection that ends so is an error like any other.
///
/// URLSession on Linux reads an answer ahead of its delegate, on and on, so it cannot stop where a
/// limit says; HTTPS still goes through it (``FleetTransport``).
final class PlainHTTP: @unchecked Sendable {
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

    let host: String
    let port: Int
    /// Seconds a connection may sit unused and still be used again (below uvicorn's 5 s, so
    /// that the server rarely closes one as a request goes out on it).
    let keepAliveSeconds: Double
    /// The most unused connections kept open.
    let maximumIdleConnections: Int

    private let lock = NSLock()
    /// Open connections not in use, the most recently used last.
    private var idle: [(socket: Int32, since: Date)] = []

    init(host: String, port: Int, keepAliveSeconds: Double = 3, maximumIdleConnections: Int = 4) {
        self.host = host
        self.port = port
        self.keepAliveSeconds = keepAliveSeconds
        self.maximumIdleConnections = maximumIdleConnections
    }

    deinit { closeIdleConnections() }

    /// Closes every connection not in use.
    func closeIdleConnections() {
        let sockets = lock.withLock { () -> [Int32] in
            defer { idle = [] }
            return idle.map(\.socket)
        }
        for socket in sockets { close(socket) }
    }

    /// The number of connections kept open for the next requests.
    var idleConnections: Int { lock.withLock { idle.count } }

    /// Sends `body` to `path` and reads the answer, on a kept connection when there is one.
    /// - Parameters:
    ///   - idleTimeout: Seconds to wait for the connection or for any byte.
    ///   - totalTimeout: Seconds the whole exchange may take (a second try included).
    ///   - maximumBytes: The most bytes the answer's body may hold.
    func post(path: String, headers: [(String, String)], body: Data,
              idleTimeout: Double, totalTimeout: Double, maximumBytes: Int) throws(Failure) -> Response {
        let deadline = Date().addingTimeInterval(totalTimeout)
        var request = "POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "Content-Length: \(body.count)\r\n\r\n"
        let bytes = Data(request.utf8) + body

        if let kept = takeIdleConnection() {
            var connection = Connection(socket: kept, idleTimeout: idleTimeout, deadline: deadline)
            do {
                let (response, reusable) = try exchange(bytes, on: &connection, maximumBytes: maximumBytes)
                finish(kept, reusable: reusable)
                return response
            } catch {
                close(kept)
                // Closed by the server before any byte of the answer: sent again below, once.
                guard connection.closedByPeer, connection.received == 0 else { throw error }
            }
        }
        let socket = try Self.connect(host: host, port: port, timeout: idleTimeout)
        var connection = Connection(socket: socket, idleTimeout: idleTimeout, deadline: deadline)
        do {
            let (response, reusable) = try exchange(bytes, on: &connection, maximumBytes: maximumBytes)
            finish(socket, reusable: reusable)
            return response
        } catch {
            close(socket)
            throw error
        }
    }

    /// Sends `request` on `connection` and reads the answer; also whether the connection can carry
    /// the next request.
    private func exchange(_ request: Data, on connection: inout Connection, maximumBytes: Int) throws(Failure) -> (Response, Bool) {
        try connection.send(request)
        var head = try connection.head()
        while head.status == 100 { head = try connection.head() }  // 100 Continue: the real head follows
        let data: Data
        var delimited = true
        if head.chunked {
            data = try connection.chunkedBody(maximumBytes: maximumBytes)
        } else if let length = head.contentLength {
            guard length <= maximumBytes else { throw .announcedTooMuch(declared: length) }
            data = try connection.bytes(length)
        } else {
            data = try connection.bodyToEnd(maximumBytes: maximumBytes)
            delimited = false
        }
        // Bytes past the answer are not the start of another one this client asked for.
        let reusable = delimited && head.keepAlive && connection.buffer.isEmpty
        return (Response(status: head.status, body: data), reusable)
    }

    /// Keeps `socket` for the next request when it can carry one and there is room, else closes it.
    private func finish(_ socket: Int32, reusable: Bool) {
        let kept = reusable && lock.withLock { () -> Bool in
            guard idle.count < maximumIdleConnections else { return false }
            idle.append((socket, Date()))
            return true
        }
        if !kept { close(socket) }
    }

    /// The most recently used kept connection that is still usable: unused for less than
    /// ``keepAliveSeconds`` and with nothing to read (a server that closed it made it readable:
    /// the end of the stream). Others are closed on the way.
    private func takeIdleConnection() -> Int32? {
        while let (socket, since) = lock.withLock({ idle.popLast() }) {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if Date().timeIntervalSince(since) < keepAliveSeconds, poll(&ready, 1, 0) == 0 { return socket }
            close(socket)
        }
        return nil
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
                    // Requests are small writes answered at once: no waiting to fill a segment.
                    var yes: Int32 = 1
                    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
                    return fd
                }
                reason = polled == 0 ? "no connection within \(seconds(timeout)) s" : (error == ECONNREFUSED ? "connection refused" : String(cString: strerror(error)))
            }
            close(fd)
        }
        throw .unreachable(reason)
    }

    static func seconds(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
}

extension PlainHTTP {
    /// The head of an answer, as far as reading its body and keeping its connection need.
    struct Head {
        var status: Int
        var contentLength: Int?
        var chunked: Bool
        /// Whether the server keeps the connection open after this answer: HTTP/1.1 without
        /// `Connection: close` (HTTP/1.0 closes unless it says `keep-alive`).
        var keepAlive: Bool
    }

    /// A socket being read: bytes read ahead of what was taken, and the time limits.
    struct Connection {
        let socket: Int32
        let idleTimeout: Double
        let deadline: Date
        var buffer = Data()
        /// Bytes of the answer received so far.
        private(set) var received = 0
        /// Whether the server ended the connection (end of stream, reset, or a refused send)
        /// rather than a timeout or a malformed answer.
        private(set) var closedByPeer = false

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
                guard sent > 0 else {
                    closedByPeer = true
                    throw .unreachable("the connection closed while the request was sent")
                }
                offset += sent
            }
        }

        /// Reads more into ``buffer``: at most `limit` bytes; false at the end of the stream.
        private mutating func fill(limit: Int = 65_536) throws(Failure) -> Bool {
            try wait(for: Int32(POLLIN))
            var chunk = [UInt8](repeating: 0, count: max(1, min(limit, 65_536)))
            let count = recv(socket, &chunk, chunk.count, 0)
            guard count >= 0 else {
                if errno == ECONNRESET || errno == EPIPE { closedByPeer = true }
                throw .unreachable("reading failed: \(String(cString: strerror(errno)))")
            }
            if count == 0 { closedByPeer = true }
            received += count
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
        mutating func head() throws(Failure) -> Head {
            let statusLine = try line()
            let parts = statusLine.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
                throw .malformed("the answer does not start with an HTTP/1.x status line ('\(statusLine.prefix(80))')")
            }
            var head = Head(status: status, contentLength: nil, chunked: false, keepAlive: parts[0] == "HTTP/1.1")
            var headerBytes = statusLine.utf8.count
            while true {
                let header = try line()
                if header.isEmpty { return head }
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
                    head.contentLength = value
                case "transfer-encoding":
                    head.chunked = pair[1].lowercased().contains("chunked")
                case "connection":
                    let tokens = pair[1].lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    if tokens.contains("close") { head.keepAlive = false } else if tokens.contains("keep-alive") { head.keepAlive = true }
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
