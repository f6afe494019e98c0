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
final class FleetTransport: @unchecked Sendable {
    let baseURL: URL
    let identity: NodeIdentity
    private let session: URLSession

    /// - Parameters:
    ///   - address: `HOST:PORT` of the SuperLink's Fleet API.
    ///   - secure: HTTPS instead of HTTP.
    ///   - timeout: Seconds to wait for any one response.
    init(address: String, secure: Bool, identity: NodeIdentity, timeout: TimeInterval) throws {
        guard let url = URL(string: "\(secure ? "https" : "http")://\(address)"), url.host != nil, url.port != nil else {
            throw FlowerClientError.badAddress(address)
        }
        baseURL = url
        self.identity = identity
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = max(timeout, 600)
        configuration.httpMaximumConnectionsPerHost = 4
        session = URLSession(configuration: configuration)
    }

    deinit { session.invalidateAndCancel() }

    /// Sends `request` to `route` and parses the answer as `Response`.
    /// - Throws: ``FlowerClientError/unreachable(_:_:)`` when no answer comes (connection refused,
    ///   reset, timed out), ``FlowerClientError/rejected(_:status:_:)`` for an HTTP error status.
    func call<Response: SwiftProtobuf.Message>(_ route: FleetRoute, _ request: some SwiftProtobuf.Message, as _: Response.Type = Response.self,
                                               timeout: TimeInterval? = nil) throws -> Response {
        var http = URLRequest(url: baseURL.appendingPathComponent("v1/fleet/\(route.rawValue)"))
        http.httpMethod = "POST"
        http.httpBody = try request.serializedData()
        http.setValue("application/protobuf", forHTTPHeaderField: "Content-Type")
        http.setValue("application/protobuf", forHTTPHeaderField: "Accept")
        if let timeout { http.timeoutInterval = timeout }
        for (name, value) in try identity.headers() { http.setValue(value, forHTTPHeaderField: name) }

        let outcome = Box<(Data?, URLResponse?, Error?)>((nil, nil, nil))
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: http) { data, response, error in
            outcome.value = (data, response, error)
            done.signal()
        }.resume()
        done.wait()
        let (data, response, error) = outcome.value
        if let error { throw FlowerClientError.unreachable(baseURL.absoluteString, error.localizedDescription) }
        guard let status = (response as? HTTPURLResponse)?.statusCode else {
            throw FlowerClientError.unreachable(baseURL.absoluteString, "no HTTP response")
        }
        guard (200..<300).contains(status) else {
            throw FlowerClientError.rejected(route.rawValue, status: status, Self.errorText(data ?? Data()))
        }
        do {
            return try Response(serializedBytes: data ?? Data())
        } catch {
            throw FlowerClientError.protocolViolation("\(route.rawValue): the answer is not a \(Response.protoMessageName) (\(error))")
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

/// A mutable box for a value a completion handler fills in before a semaphore is signalled.
private final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
