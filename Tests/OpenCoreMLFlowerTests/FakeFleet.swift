import Foundation
import SwiftProtobuf
@testable import OpenCoreMLFlower

/// A SuperLink's Fleet API as far as one client needs it, for ``HostileSuperLink``: it registers
/// and activates node 42, hands out each queued instruction once with its objects, and keeps the
/// replies pushed. ``hostile`` replaces the normal answer to any request it returns one for.
final class FakeFleet: @unchecked Sendable {
    /// The node id every client gets.
    static let node: UInt64 = 42

    private let lock = NSLock()
    private var queue: [(message: Flower_Fleet_Message, tree: Flower_Fleet_ObjectTree)] = []
    private var objects: [String: Data] = [:]
    private var _pushed: [Flower_Fleet_Message] = []
    private var _objectPulls = 0
    private var _pushedObjects: [String] = []
    private var _objectsAsked: [String] = []
    /// The test's answer to a request (`route`, `body`, how many requests came before it), or nil
    /// for the normal one.
    var hostile: (@Sendable (String, Data, Int) -> HostileSuperLink.Answer?)?
    private var requests = 0

    /// Queues `message` (a train instruction unless its metadata says otherwise), its objects
    /// deflated as flwr does; returns its id.
    @discardableResult
    func enqueue(_ content: RecordDict, type: String = "train", group: String = "1") throws -> String {
        let node = try ObjectGraph.deflate(FlowerMessage(metadata: Self.metadata(type: type, group: group), content: content, error: nil))
        enqueue(root: node.id, tree: node.tree, objects: node.postOrder.map { ($0.id, $0.content) }, type: type, group: group)
        return node.id
    }

    /// Queues a message given as its parts: the root object's id, the tree the client is told,
    /// and object contents the server holds (which need not be what the tree says).
    func enqueue(root: String, tree: Flower_Fleet_ObjectTree, objects: [(String, Data)], type: String = "train", group: String = "1") {
        var message = Flower_Fleet_Message()
        message.metadata = Self.metadata(type: type, group: group)
        message.metadata.messageID = root
        lock.withLock {
            for (id, content) in objects { self.objects[id] = content }
            queue.append((message, tree))
        }
    }

    /// Metadata of an instruction from the ServerApp (node 0) to ``node``, living an hour.
    static func metadata(type: String, group: String) -> MessageMetadata {
        var metadata = MessageMetadata()
        metadata.runID = 7
        metadata.srcNodeID = 0
        metadata.dstNodeID = node
        metadata.groupID = group
        metadata.messageType = type
        metadata.createdAt = Date().timeIntervalSince1970
        metadata.ttl = 3600
        return metadata
    }

    /// The messages the client pushed (replies), in order.
    var pushed: [Flower_Fleet_Message] { lock.withLock { _pushed } }

    /// The reasons of the error replies pushed, in order.
    var errorReasons: [String] { pushed.filter(\.hasError).map(\.error.reason) }

    /// How many objects the client asked for.
    var objectPulls: Int { lock.withLock { _objectPulls } }

    /// The ids of the objects the client pushed, in the order they arrived.
    var pushedObjects: [String] { lock.withLock { _pushedObjects } }

    /// The ids the answers to PushMessages asked the client to push.
    var objectsAsked: [String] { lock.withLock { _objectsAsked } }

    /// A normal or hostile answer to `route`.
    func answer(route: String, body: Data) -> HostileSuperLink.Answer {
        let index = lock.withLock { () -> Int in
            requests += 1
            return requests - 1
        }
        if let hostile, let answer = hostile(route, body, index) { return answer }
        do {
            switch route {
            case "activate-node":
                var response = Flower_Fleet_ActivateNodeResponse()
                response.nodeID = Self.node
                return .reply(try response.serializedData())
            case "pull-messages":
                var response = Flower_Fleet_PullMessagesResponse()
                lock.withLock {
                    if !queue.isEmpty {
                        let next = queue.removeFirst()
                        response.messagesList = [next.message]
                        response.messageObjectTrees = [next.tree]
                    }
                }
                return .reply(try response.serializedData())
            case "pull-object":
                let request = try Flower_Fleet_PullObjectRequest(serializedBytes: body)
                var response = Flower_Fleet_PullObjectResponse()
                lock.withLock {
                    _objectPulls += 1
                    if let content = objects[request.objectID] {
                        response.objectFound = true
                        response.objectAvailable = true
                        response.objectContent = content
                    }
                }
                return .reply(try response.serializedData())
            case "push-messages":
                let request = try Flower_Fleet_PushMessagesRequest(serializedBytes: body)
                lock.withLock { _pushed += request.messagesList }
                var response = Flower_Fleet_PushMessagesResponse()
                func ids(_ tree: Flower_Fleet_ObjectTree) -> [String] { [tree.objectID] + tree.children.flatMap(ids) }
                response.objectsToPush = request.messageObjectTrees.flatMap(ids)
                response.sessionID = "session"
                lock.withLock { _objectsAsked += response.objectsToPush }
                return .reply(try response.serializedData())
            case "push-object":
                let request = try Flower_Fleet_PushObjectRequest(serializedBytes: body)
                lock.withLock { _pushedObjects.append(request.objectID) }
                var response = Flower_Fleet_PushObjectResponse()
                response.stored = true
                return .reply(try response.serializedData())
            default:
                // register, heartbeat, confirm, deactivate, unregister: an empty answer is theirs.
                return .reply(Data())
            }
        } catch {
            return .reply(Data("\(error)".utf8), status: 400)
        }
    }
}
