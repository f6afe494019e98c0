import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A Fleet API on loopback that answers what a compromised or buggy SuperLink could: an HTTP/1.1
/// server on POSIX sockets, one thread per connection, each answer closing its connection — or,
/// with `keepAlive`, answers that leave it open for the next request as uvicorn does.
/// `answer` decides what every request gets (``FakeFleet/answer(route:body:)`` gives a
/// SuperLink's normal answers and the test's hostile ones). Call ``stop()`` when done: its threads
/// hold it until then.
final class HostileSuperLink: @unchecked Sendable {
    /// What the server does with one request.
    enum Answer {
        /// HTTP `status` with `body` (a protobuf), its Content-Length set.
        case reply(Data, status: Int = 200)
        /// These bytes as they are (a head and any body); then the connection closes.
        case raw(Data)
        /// `head`, then silence: the connection stays open until the client closes it or the server stops.
        case stall(Data)
        /// `head`, then `chunk` again and again until the client closes the connection or `cap`
        /// bytes were sent (a bound for the test machine's sake: the client must stop long before).
        case endless(head: Data, chunk: Data, cap: Int)
        /// The connection closes without an answer.
        case hangUp
        /// HTTP 200 with `body`, as a kept connection's answer (no `Connection: close`), and then
        /// the connection closes: a server ending a kept connection while it is idle.
        case replyThenClose(Data)
    }

    /// The port it listens on (127.0.0.1).
    let port: Int
    /// `HOST:PORT` for ``FlowerClient/Configuration/superlink``.
    var address: String { "127.0.0.1:\(port)" }
    private let listener: Int32
    private let keepAlive: Bool
    private let answer: @Sendable (String, Data) -> Answer
    private let lock = NSLock()
    private var stopped = false
    private var listening = true
    private var _routes: [String] = []
    private var _endlessBytes = 0
    private var _connections = 0
    private var acceptThread: Thread?

    /// Listens on a free loopback port and answers every request with `answer(route, body)`,
    /// `route` being the part of the path after `/v1/fleet/`. With `keepAlive`, a
    /// ``Answer/reply(_:status:)`` leaves the connection open for the next request.
    init(keepAlive: Bool = false, answer: @escaping @Sendable (String, Data) -> Answer) throws {
        self.answer = answer
        self.keepAlive = keepAlive
        #if os(Linux)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let listener = socket(AF_INET, stream, 0)
        guard listener >= 0 else { throw LocalFederation.Failure("socket() failed") }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard bound, listen(listener, 64) == 0 else {
            close(listener)
            throw LocalFederation.Failure("cannot listen on a loopback port")
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "Hostile SuperLink"
        acceptThread = thread
        thread.start()
    }

    /// The routes asked for so far, in order.
    var routes: [String] { lock.withLock { _routes } }

    /// The connections accepted so far.
    var connections: Int { lock.withLock { _connections } }

    /// The bytes of ``Answer/endless(head:chunk:cap:)`` bodies sent so far (what the client took
    /// in, up to the socket buffers).
    var endlessBytes: Int { lock.withLock { _endlessBytes } }

    /// Stops listening: from now on connecting is refused, as when a SuperLink's process is gone.
    /// Connections already open are served to their end.
    func disappear() {
        lock.withLock { listening = false }
    }

    /// Stops listening and ends every open connection.
    func stop() {
        lock.withLock {
            listening = false
            stopped = true
        }
        while let thread = acceptThread, thread.isExecuting { Thread.sleep(forTimeInterval: 0.01) }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        defer { close(listener) }
        while lock.withLock({ listening }) {
            var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            lock.withLock { _connections += 1 }
            Thread { [self] in serve(connection) }.start()
        }
    }

    /// Reads one request, answers it and closes the connection — or, with ``keepAlive``, goes on
    /// with the next request after a ``Answer/reply(_:status:)``.
    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while !isStopped, serveOne(connection) {}
    }

    /// Reads one request and answers it; whether the connection stays open for another.
    private func serveOne(_ connection: Int32) -> Bool {
        guard let (route, body) = readRequest(connection) else { return false }
        lock.withLock { _routes.append(route) }
        switch answer(route, body) {
        case .reply(let body, let status):
            var head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Error")\r\nContent-Type: application/protobuf\r\n"
            head += "Content-Length: \(body.count)\r\n" + (keepAlive ? "" : "Connection: close\r\n") + "\r\n"
            return write(Data(head.utf8) + body, to: connection) && keepAlive
        case .replyThenClose(let body):
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/protobuf\r\nContent-Length: \(body.count)\r\n\r\n"
            _ = write(Data(head.utf8) + body, to: connection)
        case .raw(let bytes):
            _ = write(bytes, to: connection)
        case .stall(let head):
            guard write(head, to: connection) else { return false }
            waitUntilClosedOrStopped(connection)
        case .endless(let head, let chunk, let cap):
            guard write(head, to: connection) else { return false }
            var sent = 0
            while sent < cap, !isStopped, write(chunk, to: connection) {
                sent += chunk.count
                lock.withLock { _endlessBytes += chunk.count }
            }
            waitUntilClosedOrStopped(connection)
        case .hangUp:
            break
        }
        return false
    }

    /// Blocks until the peer closes `connection` (a read returns 0 or fails) or the server stops.
    private func waitUntilClosedOrStopped(_ connection: Int32) {
        var byte: UInt8 = 0
        while !isStopped {
            var ready = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 50) != 0 else { continue }
            if recv(connection, &byte, 1, Int32(MSG_DONTWAIT)) <= 0 { return }
        }
    }

    /// The route and body of one `POST /v1/fleet/<route>` (answering `Expect: 100-continue`).
    private func readRequest(_ connection: Int32) -> (String, Data)? {
        var received = Data()
        let separator = Data("\r\n\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var headEnd: Range<Data.Index>?
        while headEnd == nil {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            received.append(contentsOf: buffer[0..<count])
            headEnd = received.range(of: separator)
            if headEnd == nil, received.count > 1 << 20 { return nil }
        }
        let head = String(decoding: received[..<headEnd!.lowerBound], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let target = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        var length = 0
        var continues = false
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            if parts[0].lowercased() == "content-length" { length = Int(parts[1]) ?? 0 }
            if parts[0].lowercased() == "expect", parts[1].lowercased() == "100-continue" { continues = true }
        }
        var body = Data(received[headEnd!.upperBound...])
        if continues, body.count < length { _ = write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8), to: connection) }
        while body.count < length {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            body.append(contentsOf: buffer[0..<count])
        }
        let prefix = "/v1/fleet/"
        return (target.hasPrefix(prefix) ? String(target.dropFirst(prefix.count)) : target, body)
    }

    /// Writes all of `data`; false when the peer is gone.
    private func write(_ data: Data, to connection: Int32) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                #if os(Linux)
                let flags = Int32(MSG_NOSIGNAL)
                #else
                let flags: Int32 = 0
                #endif
                let sent = send(connection, raw.baseAddress! + offset, raw.count - offset, flags)
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    // MARK: Hostile answers

    /// An HTTP head announcing a protobuf body of `length` bytes.
    static func head(contentLength length: Int) -> Data {
        Data("HTTP/1.1 200 OK\r\nContent-Type: application/protobuf\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n".utf8)
    }

    /// An HTTP head announcing a chunked protobuf body.
    static let chunkedHead = Data("HTTP/1.1 200 OK\r\nContent-Type: application/protobuf\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".utf8)

    /// One chunk of a chunked body: 64 KiB of zero bytes (a protobuf reader sees field 0, invalid,
    /// only once it has the body; the client must stop at its size limit first).
    static let zeroChunk: Data = {
        var chunk = Data(String(65_536, radix: 16).utf8) + Data("\r\n".utf8)
        chunk.append(Data(count: 65_536))
        chunk.append(Data("\r\n".utf8))
        return chunk
    }()
}
