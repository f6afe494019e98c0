import Foundation
import SwiftProtobuf
import Testing
@testable import OpenCoreMLFlower

/// Plain-HTTP connections kept open between requests (``PlainHTTP``), against ``HostileSuperLink``
/// counting the connections it accepts and the requests it reads; and the exchange steps built on
/// them: the receipt confirmed while the instruction is carried out, the reply's objects pushed two
/// at a time.
@Suite("Kept connections and overlapped exchange steps", .serialized, .timeLimit(.minutes(3)))
struct KeptConnectionsTests {
    /// An answer's body: the route it answers, so that each request can be told from the next.
    static func echo(_ route: String) -> Data { Data("answer to \(route)".utf8) }

    /// POSTs to `route` through `http` as the Fleet transport does (a 5 s idle timeout, 60 s in all).
    static func post(_ http: PlainHTTP, _ route: String, maximumBytes: Int = 1 << 20) throws(PlainHTTP.Failure) -> PlainHTTP.Response {
        try http.post(path: "/v1/fleet/\(route)", headers: [("Content-Type", "application/protobuf")], body: Data("request \(route)".utf8),
                      idleTimeout: 5, totalTimeout: 60, maximumBytes: maximumBytes)
    }

    // MARK: PlainHTTP

    /// A server that keeps its connections: twenty requests, one connection, every answer the one
    /// asked for.
    @Test func requestsShareOneConnectionWhileTheServerKeepsIt() throws {
        let server = try HostileSuperLink(keepAlive: true) { route, _ in .reply(Self.echo(route)) }
        defer { server.stop() }
        let http = PlainHTTP(host: "127.0.0.1", port: server.port)
        for index in 0..<20 {
            let answer = try Self.post(http, "route-\(index)")
            #expect(answer.status == 200)
            #expect(answer.body == Self.echo("route-\(index)"))
        }
        #expect(server.connections == 1)
        #expect(server.routes.count == 20)
        #expect(http.idleConnections == 1)
    }

    /// A server that says `Connection: close` (the test server's default): a new connection for
    /// every request, none kept.
    @Test func anAnswerSayingConnectionCloseIsNotKept() throws {
        let server = try HostileSuperLink { route, _ in .reply(Self.echo(route)) }
        defer { server.stop() }
        let http = PlainHTTP(host: "127.0.0.1", port: server.port)
        for index in 0..<5 { #expect(try Self.post(http, "route-\(index)").body == Self.echo("route-\(index)")) }
        #expect(server.connections == 5)
        #expect(http.idleConnections == 0)
    }

    /// A server that closes each kept connection after answering, without saying so (as uvicorn
    /// does once one has been idle 5 s): every request still gets its answer, on a new connection,
    /// and none is read twice.
    @Test func aKeptConnectionTheServerClosedIsReplacedAndNoRequestIsReadTwice() throws {
        let server = try HostileSuperLink(keepAlive: true) { route, _ in .replyThenClose(Self.echo(route)) }
        defer { server.stop() }
        let http = PlainHTTP(host: "127.0.0.1", port: server.port)
        for index in 0..<10 {
            #expect(try Self.post(http, "route-\(index)").body == Self.echo("route-\(index)"))
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(server.routes == (0..<10).map { "route-\($0)" })
        #expect(server.connections == 10)
    }

    /// The race with a server's idle timeout: it reads the request on the kept connection and
    /// closes it without a byte of answer. The request goes once more, on a new connection, and
    /// gets its answer.
    @Test func aRequestDroppedOnAKeptConnectionIsSentOnceMoreOnANewOne() throws {
        let dropped = Counter()
        let server = try HostileSuperLink(keepAlive: true) { route, _ in
            route == "second" && dropped.increment() == 1 ? .hangUp : .reply(Self.echo(route))
        }
        defer { server.stop() }
        let http = PlainHTTP(host: "127.0.0.1", port: server.port)
        #expect(try Self.post(http, "first").body == Self.echo("first"))
        #expect(try Self.post(http, "second").body == Self.echo("second"))
        #expect(server.routes == ["first", "second", "second"])
        #expect(server.connections == 2)
    }

    /// A request dropped on the kept connection and again on the new one: one error naming the
    /// closed connection, after exactly one more try (no loop), not a hang.
    @Test func aRequestDroppedAgainOnTheNewConnectionIsOneError() throws {
        let server = try HostileSuperLink(keepAlive: true) { route, _ in route == "first" ? .reply(Self.echo(route)) : .hangUp }
        defer { server.stop() }
        let http = PlainHTTP(host: "127.0.0.1", port: server.port)
        _ = try Self.post(http, "first")
        let started = Date()
        #expect {
            _ = try Self.post(http, "second")
        } throws: { error in
            guard case .unreachable(let reason)? = error as? PlainHTTP.Failure else { return false }
            return reason.contains("closed")
        }
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(server.routes == ["first", "second", "second"])
        #expect(server.connections == 2)
    }

    /// A request on a new connection that the server drops is not sent again: only a kept
    /// connection may have been closed before the request was read.
    @Test func aRequestDroppedOnANewConnectionIsNotSentAgain() throws {
        let server = try HostileSuperLink(keepAlive: true) { _, _ in .hangUp }
        defer { server.stop() }
        let http = PlainHTTP(host: "127.0.0.1", port: server.port)
        #expect(throws: PlainHTTP.Failure.self) { _ = try Self.post(http, "only") }
        #expect(server.routes == ["only"])
    }

    /// A kept connection unused for longer than the keep-alive time is closed, not used.
    @Test func aConnectionUnusedPastTheKeepAliveTimeIsNotUsed() throws {
        let server = try HostileSuperLink(keepAlive: true) { route, _ in .reply(Self.echo(route)) }
        defer { server.stop() }
        let http = PlainHTTP(host: "127.0.0.1", port: server.port, keepAliveSeconds: 0.2)
        _ = try Self.post(http, "first")
        _ = try Self.post(http, "second")
        #expect(server.connections == 1)
        Thread.sleep(forTimeInterval: 0.3)
        _ = try Self.post(http, "third")
        #expect(server.connections == 2)
        #expect(server.routes == ["first", "second", "third"])
    }

    /// An answer refused at its head (over the limit), one that stalls past the idle timeout and
    /// one without a length each close their connection; the next request gets a new one and its
    /// answer.
    @Test func aRefusedStalledOrUndelimitedAnswerClosesItsConnection() throws {
        let server = try HostileSuperLink(keepAlive: true) { route, _ in
            switch route {
            case "large": return .raw(HostileSuperLink.head(contentLength: 10_000_000).replacingConnectionClose() + Data(count: 100))
            case "stall": return .stall(HostileSuperLink.head(contentLength: 1_000).replacingConnectionClose() + Data(count: 10))
            case "unlimited": return .raw(Data("HTTP/1.1 200 OK\r\nContent-Type: application/protobuf\r\n\r\nuntil the end".utf8))
            default: return .reply(Self.echo(route))
            }
        }
        defer { server.stop() }
        let http = PlainHTTP(host: "127.0.0.1", port: server.port)
        _ = try Self.post(http, "a")
        #expect(throws: PlainHTTP.Failure.announcedTooMuch(declared: 10_000_000)) { _ = try Self.post(http, "large", maximumBytes: 1_000) }
        _ = try Self.post(http, "b")
        #expect(throws: PlainHTTP.Failure.self) {
            _ = try http.post(path: "/v1/fleet/stall", headers: [], body: Data(), idleTimeout: 0.3, totalTimeout: 5, maximumBytes: 1 << 20)
        }
        _ = try Self.post(http, "c")
        #expect(try Self.post(http, "unlimited").body == Data("until the end".utf8))
        #expect(try Self.post(http, "d").body == Self.echo("d"))
        #expect(server.routes == ["a", "large", "b", "stall", "c", "unlimited", "d"])
        // a, large | b, stall | c, unlimited | d
        #expect(server.connections == 4)
    }

    // MARK: The client

    /// A client against a SuperLink that keeps connections: an instruction carried out and
    /// answered, on a handful of connections for some fifty requests (polls, pulls, the
    /// confirmation on its own thread, pushes two at a time).
    @Test func aClientKeepsItsConnectionsAcrossPollsAndExchanges() throws {
        let trial = try HostileSuperLinkTests.Trial(keepAlive: true)
        defer { trial.finish() }
        try trial.fleet.enqueue(HostileSuperLinkTests.content(trial.arrays), group: "1")
        let (error, ended) = trial.run()
        #expect(ended && error == nil, "\(String(describing: error)); events: \(trial.events.all)")
        #expect(trial.events.trainedRounds == ["1"])
        #expect(trial.server.routes.count > 20, "\(trial.server.routes)")
        #expect(trial.server.connections <= 5, "\(trial.server.connections) connections for \(trial.server.routes.count) requests")
    }

    /// The receipt is confirmed before the reply is pushed (it runs while the instruction is
    /// carried out), once per instruction; every object the SuperLink asks for is pushed once.
    @Test func theReceiptIsConfirmedBeforeTheReplyAndEveryAskedObjectIsPushedOnce() throws {
        let trial = try HostileSuperLinkTests.Trial(keepAlive: true)
        defer { trial.finish() }
        try trial.fleet.enqueue(HostileSuperLinkTests.content(trial.arrays), group: "1")
        try trial.fleet.enqueue(HostileSuperLinkTests.content(trial.arrays), type: "evaluate", group: "1")
        let (error, ended) = trial.run()
        #expect(ended && error == nil, "\(String(describing: error)); events: \(trial.events.all)")
        #expect(trial.events.trainedRounds == ["1"] && trial.events.evaluatedRounds == ["1"], "\(trial.events.all)")
        let routes = trial.server.routes.filter { ["confirm-message-received", "push-messages"].contains($0) }
        #expect(routes == ["confirm-message-received", "push-messages", "confirm-message-received", "push-messages"])
        let asked = trial.fleet.objectsAsked, pushed = trial.fleet.pushedObjects
        #expect(!asked.isEmpty)
        #expect(Set(pushed) == Set(asked))
        #expect(pushed.count == Set(asked).count, "pushed \(pushed.count) objects for \(Set(asked).count) asked")
    }

    /// An object of the reply the SuperLink does not store, while the other one is pushed at the
    /// same time: one clear error naming the object (the run loop's retry; the reply is lost, as
    /// with any failed push), no hang, and the client goes on.
    @Test func anObjectOfTheReplyNotStoredIsOneErrorNamingIt() throws {
        let trial = try HostileSuperLinkTests.Trial(keepAlive: true)
        defer { trial.finish() }
        try trial.fleet.enqueue(HostileSuperLinkTests.content(trial.arrays), group: "1")
        let refused = Counter()
        trial.fleet.hostile = { route, _, _ in
            guard route == "push-object", refused.increment() == 2 else { return nil }
            var response = Flower_Fleet_PushObjectResponse()
            response.stored = false
            return .reply(try! response.serializedData())
        }
        let (error, ended) = trial.run()
        #expect(ended && error == nil, "\(String(describing: error))")
        let retries = trial.events.all.compactMap { if case .retrying(let reason, _) = $0 { reason } else { nil } }
        #expect(retries.count == 1 && retries[0].contains("did not store object"), "\(trial.events.all)")
        #expect(trial.events.trainedRounds.isEmpty)
    }

    /// A confirmation the SuperLink answers with what is not Flower's: the instruction's reply is
    /// an error naming it, and the client goes on.
    @Test func aConfirmationAnsweredWithGarbageMakesTheReplyAnError() throws {
        let trial = try HostileSuperLinkTests.Trial(keepAlive: true)
        defer { trial.finish() }
        try trial.fleet.enqueue(HostileSuperLinkTests.content(trial.arrays), type: "evaluate", group: "1")
        trial.fleet.hostile = { route, _, _ in
            route == "confirm-message-received" ? .reply(Data([0x0A, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40, 1])) : nil
        }
        let (error, ended) = trial.run()
        #expect(ended && error == nil, "\(String(describing: error))")
        #expect(trial.fleet.errorReasons.count == 1, "\(trial.fleet.errorReasons)")
        #expect(trial.fleet.errorReasons.first?.contains("confirm-message-received") == true, "\(trial.fleet.errorReasons)")
    }
}

/// A thread-safe count.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    /// Adds one; returns the new count.
    func increment() -> Int { lock.withLock { value += 1; return value } }
}

extension Data {
    /// An HTTP head without its `Connection: close` line (as a kept connection's answer).
    func replacingConnectionClose() -> Data {
        Data(String(decoding: self, as: UTF8.self).replacingOccurrences(of: "Connection: close\r\n", with: "").utf8)
    }
}
