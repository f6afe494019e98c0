import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SwiftProtobuf

/// The Fleet API's routes: each a `POST /v1/fleet/<route>` with a protobuf request and response.
enum FleetRoute: String {
    case registerNode = "register-node"
    case activateNode = "activate-node"
    case sendNodeHeartbeat = "send-node-heartbeat"
    case pullMessages = "pull-messages"
    case pullObject = "pull-object"
    case confirmMessageReceived = "confirm-message-received"
    case pushObject = "push-object"
    case pushMessages = "push-messages"
    case deactivateNode = "deactivate-node"
    case unregisterNode = "unregister-node"
}

/// Protobuf over HTTP to a SuperLink's Fleet API, every request signed by the node's identity.
/// Calls block the calling thread (training already does; the heartbeat has its own thread).
///
/// An answer is taken in only up to a size limit (``FlowerClient/Configuration/maximumAnswerBytes``):
/// one that announces more in its Content-Length is refused at its head, one that goes on past the
/// limit (a chunked body that never ends) is cut off there, so that a SuperLink cannot make the
/// client allocate more. An answer that stops arriving times out after the request timeout (time
/// without any byte), and no call waits longer than the resource timeout in all.
///
/// Plain HTTP (`--insecure`, what is tested) goes through ``PlainHTTP``, which reads no byte past a
/// limit and keeps its connections open between calls (one per thread calling at once). HTTPS goes through URLSession, which on Linux reads an answer ahead of its delegate: the
/// client keeps no more than the limit and gives up on the answer there, and the session is
/// replaced (ending its transfers), but some bytes past the limit may have been read meanwhile.
final class FleetTransport: @unchecked Sendable {
    let baseURL: URL
    /// HTTPS (through URLSession) instead of plain HTTP (through ``PlainHTTP``).
    let secure: Bool
    let identity: NodeIdentity
    /// The most bytes one answer may hold.
    let maximumAnswerBytes: Int
    private let sessionConfiguration: URLSessionConfiguration
    /// The plain-HTTP connections (nil for HTTPS).
    private let plain: PlainHTTP?
    private let receiver: AnswerReceiver
    private let sessionLock = NSLock()
    private var _session: URLSession
    /// Seconds to wait for any byte of a response, for error messages.
    private let timeout: TimeInterval
    /// Seconds any one call may take in all, however slowly its answer trickles in.
    private let resourceTimeout: TimeInterval

    /// - Parameters:
    ///   - address: `HOST:PORT` of the SuperLink's Fleet API.
    ///   - secure: HTTPS instead of HTTP.
    ///   - timeout: Seconds to wait for any byte of a response.
    ///   - maximumAnswerBytes: The most bytes one response may hold.
    init(address: String, secure: Bool, identity: NodeIdentity, timeout: TimeInterval, maximumAnswerBytes: Int = 64 << 20) throws {
        guard let url = URL(string: "\(secure ? "https" : "http")://\(address)"), url.host != nil, url.port != nil else {
            throw FlowerClientError.badAddress(address)
        }
        baseURL = url
        self.secure = secure
        self.identity = identity
        self.maximumAnswerBytes = maximumAnswerBytes
        resourceTimeout = max(timeout, 600)
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = resourceTimeout
        configuration.httpMaximumConnectionsPerHost = 4
        sessionConfiguration = configuration
        receiver = AnswerReceiver()
        _session = URLSession(configuration: configuration, delegate: receiver, delegateQueue: nil)
        plain = secure ? nil : PlainHTTP(host: url.host!, port: url.port!)
    }

    deinit { session.invalidateAndCancel() }

    private var session: URLSession { sessionLock.withLock { _session } }

    /// Ends the session — every transfer and connection of it — and starts a new one: cancelling
    /// one task leaves libcurl reading the rest of its answer (into nothing) until the server stops,
    /// which an endless answer never does.
    private func renewSession() {
        let old = sessionLock.withLock {
            let old = _session
            _session = URLSession(configuration: sessionConfiguration, delegate: receiver, delegateQueue: nil)
            return old
        }
        old.invalidateAndCancel()
    }

    /// Sends `request` to `route` and parses the answer as `Response`.
    /// - Parameter maximumBytes: The most bytes this answer may hold (at most ``maximumAnswerBytes``).
    /// - Throws: ``FlowerClientError/unreachable(_:_:)`` when no answer comes (connection refused,
    ///   reset, timed out), ``FlowerClientError/rejected(_:status:_:)`` for an HTTP error status,
    ///   ``FlowerClientError/protocolViolation(_:)`` for an answer over the size limit or one that
    ///   is not a `Response`; each names the route and the SuperLink's address.
    func call<Response: SwiftProtobuf.Message>(_ route: FleetRoute, _ request: some SwiftProtobuf.Message, as _: Response.Type = Response.self,
                                               timeout: TimeInterval? = nil, maximumBytes: Int? = nil) throws -> Response {
        var http = URLRequest(url: baseURL.appendingPathComponent("v1/fleet/\(route.rawValue)"))
        http.httpMethod = "POST"
        http.httpBody = try request.serializedData()
        http.setValue("application/protobuf", forHTTPHeaderField: "Content-Type")
        http.setValue("application/protobuf", forHTTPHeaderField: "Accept")
        if let timeout { http.timeoutInterval = timeout }
        for (name, value) in try identity.headers() { http.setValue(value, forHTTPHeaderField: name) }

        let limit = min(maximumBytes ?? maximumAnswerBytes, maximumAnswerBytes)
        let origin = "the answer to \(route.rawValue) from \(baseURL.absoluteString)"
        let status: Int
        let body: Data
        if let plain {
            do {
                let answer = try plain.post(path: http.url!.path,
                                            headers: (http.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                                            body: http.httpBody ?? Data(), idleTimeout: timeout ?? self.timeout,
                                            totalTimeout: resourceTimeout, maximumBytes: limit)
                (status, body) = (answer.status, answer.body)
            } catch {
                switch error {
                case .unreachable(let reason):
                    throw FlowerClientError.unreachable(baseURL.absoluteString, "\(route.rawValue): \(reason)")
                case .announcedTooMuch(let declared): throw Self.announced(declared, origin: origin, limit: limit)
                case .wentOnTooLong: throw Self.wentOn(origin: origin, limit: limit)
                case .malformed(let text): throw FlowerClientError.protocolViolation("\(origin): \(text)")
                }
            }
        } else {
            (status, body) = try callThroughURLSession(http, route: route, limit: limit, origin: origin, timeout: timeout ?? self.timeout)
        }
        guard (200..<300).contains(status) else {
            throw FlowerClientError.rejected(route.rawValue, status: status, Self.errorText(body))
        }
        do {
            return try Response(serializedBytes: body)
        } catch {
            throw FlowerClientError.protocolViolation("\(origin) is not a \(Response.protoMessageName) (\(error))")
        }
    }

    private static func announced(_ declared: Int64, origin: String, limit: Int) -> FlowerClientError {
        .protocolViolation("\(origin) announces \(declared) bytes; the client takes at most \(limit) in one answer (its limit, maximumAnswerBytes)")
    }

    private static func announced(_ declared: Int, origin: String, limit: Int) -> FlowerClientError {
        announced(Int64(declared), origin: origin, limit: limit)
    }

    private static func wentOn(origin: String, limit: Int) -> FlowerClientError {
        .protocolViolation("\(origin) went on past \(limit) bytes; the client stopped reading it there (its limit, maximumAnswerBytes)")
    }

    /// The status and body of `http` through URLSession (HTTPS), its body kept up to `limit`.
    private func callThroughURLSession(_ http: URLRequest, route: FleetRoute, limit: Int, origin: String,
                                       timeout: TimeInterval) throws -> (Int, Data) {
        let task = session.dataTask(with: http)
        let answer = receiver.expect(task, limit: limit)
        task.resume()
        // The session's own timeouts end every task; this bound only guards against one that never reports.
        guard answer.done.wait(timeout: .now() + resourceTimeout + 30) == .success else {
            task.cancel()
            receiver.forget(task)
            throw FlowerClientError.unreachable(baseURL.absoluteString, "no complete answer to \(route.rawValue) within \(Int(resourceTimeout)) s")
        }
        receiver.forget(task)
        if answer.declaredTooLarge != nil || answer.exceeded { renewSession() }
        if let declared = answer.declaredTooLarge { throw Self.announced(declared, origin: origin, limit: limit) }
        if answer.exceeded { throw Self.wentOn(origin: origin, limit: limit) }
        if let error = answer.error { throw FlowerClientError.unreachable(baseURL.absoluteString, Self.reason(error, route: route, timeout: timeout)) }
        guard let status = (answer.response as? HTTPURLResponse)?.statusCode else {
            throw FlowerClientError.unreachable(baseURL.absoluteString, "\(route.rawValue): no HTTP response")
        }
        return (status, answer.data)
    }

    /// Why a request got no answer, in words (Foundation on Linux describes URL errors by number only).
    static func reason(_ error: Error, route: FleetRoute, timeout: TimeInterval) -> String {
        guard let error = error as? URLError else { return error.localizedDescription }
        let seconds = timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout)
        switch error.code {
        case .timedOut: return "\(route.rawValue) timed out (no byte of an answer for \(seconds) s)"
        case .cannotConnectToHost: return "\(route.rawValue): connection refused"
        case .networkConnectionLost: return "\(route.rawValue): the connection closed before the answer was complete"
        case .badServerResponse, .cannotParseResponse: return "\(route.rawValue): the answer is not HTTP"
        case .zeroByteResource: return "\(route.rawValue): the connection closed without an answer"
        case .cannotFindHost, .dnsLookupFailed: return "\(route.rawValue): the host is not known"
        case .notConnectedToInternet: return "\(route.rawValue): no network"
        default: return "\(route.rawValue): URL error \(error.code.rawValue) (\(error.localizedDescription))"
        }
    }

    /// The readable part of an error body: Flower's JSON `{"code": …, "message": …}` or FastAPI's
    /// `{"detail": …}` when it is one, else the text itself (shortened).
    static func errorText(_ data: Data) -> String {
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            if let message = object["message"] as? String {
                let code = object["code"].map { "[code \($0)] " } ?? ""
                return code + message
            }
            if let detail = object["detail"] { return "\(detail)" }
        }
        let text = String(decoding: data.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "no details" : text
    }
}

/// One answer as it arrives: its head, its bytes so far, how it ended.
private final class Answer: @unchecked Sendable {
    let limit: Int
    let done = DispatchSemaphore(value: 0)
    var response: URLResponse?
    var data = Data()
    var error: Error?
    /// The Content-Length when it is over ``limit``.
    var declaredTooLarge: Int64?
    /// Whether the body went on past ``limit``.
    var exceeded = false

    init(limit: Int) { self.limit = limit }
}

/// The session's delegate: collects each task's answer up to its limit, cancelling the task at an
/// announced or reached excess (URLSession's completion-handler form would keep every byte).
private final class AnswerReceiver: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [Int: Answer] = [:]

    func expect(_ task: URLSessionTask, limit: Int) -> Answer {
        let answer = Answer(limit: limit)
        lock.withLock { answers[task.taskIdentifier] = answer }
        return answer
    }

    func forget(_ task: URLSessionTask) {
        _ = lock.withLock { answers.removeValue(forKey: task.taskIdentifier) }
    }

    private func answer(_ task: URLSessionTask) -> Answer? { lock.withLock { answers[task.taskIdentifier] } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        guard let answer = answer(dataTask) else { return completionHandler(.cancel) }
        answer.response = response
        if response.expectedContentLength > Int64(answer.limit) {
            answer.declaredTooLarge = response.expectedContentLength
            completionHandler(.cancel)
            // Done now: a cancelled transfer may still be read to its end before it reports.
            answer.done.signal()
            return
        }
        if response.expectedContentLength > 0 { answer.data.reserveCapacity(Int(response.expectedContentLength)) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let answer = answer(dataTask), !answer.exceeded else { return }
        guard answer.data.count + data.count <= answer.limit else {
            answer.exceeded = true
            answer.data = Data()
            dataTask.cancel()
            answer.done.signal()
            return
        }
        answer.data.append(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let answer = answer(task), answer.declaredTooLarge == nil, !answer.exceeded else { return }
        answer.error = error
        answer.done.signal()
    }
}
