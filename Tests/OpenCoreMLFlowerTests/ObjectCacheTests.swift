import Foundation
import Testing
@testable import OpenCoreMLFlower

/// Objects kept by content id from one exchange to the next: what is held is not pulled again,
/// what changed is, and bytes that are not the object their id names are refused.
@Suite("Objects cached by id across rounds")
struct ObjectCacheTests {
    /// A SuperLink's object store for the test: contents by id, and which ids were asked for.
    final class Store {
        var contents: [String: Data] = [:]
        var asked: [String] = []

        func put(_ node: ObjectNode) {
            for object in node.postOrder { contents[object.id] = object.content }
        }

        func fetch(_ id: String) throws -> Data {
            asked.append(id)
            guard let content = contents[id] else {
                throw FlowerClientError.protocolViolation("the SuperLink has no object \(id) of the message it sent")
            }
            return content
        }
    }

    static func array(_ values: [Float]) -> FlowerArray {
        FlowerArray(dtype: "float32", shape: [values.count], stype: FlowerArray.numpyStype,
                    data: values.withUnsafeBytes { Data($0) })
    }

    /// A train instruction as FedAvg sends it: the arrays and a config record with the round.
    static func instruction(round: Int, weights: [Float], bias: [Float]) throws -> ObjectNode {
        let content = RecordDict([
            ("arrays", .arrays([("dense.weights", array(weights)), ("dense.bias", array(bias))])),
            ("config", .config([("server-round", .int(Int64(round)))])),
        ])
        var metadata = MessageMetadata()
        metadata.messageType = "train"
        metadata.groupID = String(round)
        return try ObjectGraph.deflate(FlowerMessage(metadata: metadata, content: content, error: nil))
    }

    @Test func anUnchangedObjectIsNotPulledAgainAChangedOneIs() throws {
        let store = Store()
        var cache = ObjectCache()

        // Round 1: nothing held. The tree holds 8 objects: Message, RecordDict, ArrayRecord,
        // 2 Arrays with one ArrayChunk each, ConfigRecord.
        let first = try Self.instruction(round: 1, weights: [1, 2, 3, 4], bias: [0.5])
        store.put(first)
        let (objects1, fetched1) = try cache.objects(of: first.tree, fetch: store.fetch)
        #expect(fetched1 == 8 && objects1.count == 8, "\(store.asked.count) asked")
        #expect(store.asked.count == 8)
        #expect(Set(objects1.keys) == Set(first.postOrder.map(\.id)))
        cache.keep(objects1)

        // Round 2 with the same arrays (FedAvg's next round after its evaluation): only the
        // Message, the RecordDict and the ConfigRecord (its round changed) are new; the
        // ArrayRecord, both Arrays and both chunks are taken from the cache.
        store.asked = []
        let second = try Self.instruction(round: 2, weights: [1, 2, 3, 4], bias: [0.5])
        store.put(second)
        let (objects2, fetched2) = try cache.objects(of: second.tree, fetch: store.fetch)
        #expect(fetched2 == 3)
        #expect(Set(store.asked) == Set([second.id, second.children[0].id, second.children[0].children[1].id]))
        #expect(objects2.count == 8)
        let message2 = try ObjectGraph.inflateMessage(tree: second.tree, objects: objects2, metadata: MessageMetadata())
        #expect(message2.content?["arrays"] == .arrays([("dense.weights", Self.array([1, 2, 3, 4])), ("dense.bias", Self.array([0.5]))]))
        cache.keep(objects2)

        // Round 3: one weight changed. Its ArrayChunk, its Array, the ArrayRecord, the
        // ConfigRecord, the RecordDict and the Message are new (6); the bias Array and its chunk
        // are held (2).
        store.asked = []
        let third = try Self.instruction(round: 3, weights: [1, 2, 3, 5], bias: [0.5])
        store.put(third)
        let (objects3, fetched3) = try cache.objects(of: third.tree, fetch: store.fetch)
        #expect(fetched3 == 6 && objects3.count == 8)
        let message3 = try ObjectGraph.inflateMessage(tree: third.tree, objects: objects3, metadata: MessageMetadata())
        #expect(message3.content?["arrays"] == .arrays([("dense.weights", Self.array([1, 2, 3, 5])), ("dense.bias", Self.array([0.5]))]))
    }

    @Test func objectsOfAReplyPushedAreHeldToo() throws {
        let store = Store()
        var cache = ObjectCache()
        let reply = try Self.instruction(round: 1, weights: [7, 8], bias: [9])
        cache.add(reply)
        #expect(cache.count == 8)
        // An instruction carrying exactly what was pushed needs nothing pulled.
        store.put(reply)
        let (_, fetched) = try cache.objects(of: reply.tree, fetch: store.fetch)
        #expect(fetched == 0 && store.asked.isEmpty)
        // Keeping the objects of a new message drops the rest.
        cache.keep([:])
        #expect(cache.count == 0 && !cache.contains(reply.id))
    }

    @Test func bytesThatAreNotTheObjectTheIdNamesAreRefusedAndNotKept() throws {
        let store = Store()
        let cache = ObjectCache()
        let message = try Self.instruction(round: 1, weights: [1, 2], bias: [3])
        store.put(message)
        // Corrupt the first chunk's bytes (its last value) as the SuperLink hands them out.
        let chunk = message.children[0].children[0].children[0].children[0]
        #expect(chunk.object.type == "ArrayChunk")
        var corrupt = store.contents[chunk.id]!
        corrupt[corrupt.count - 1] ^= 0x01
        store.contents[chunk.id] = corrupt
        #expect {
            _ = try cache.objects(of: message.tree, fetch: store.fetch)
        } throws: { error in
            guard case FlowerClientError.protocolViolation(let text) = error else { return false }
            return text.contains("object \(chunk.id) arrived with content whose SHA-256 is")
        }

        // An object the SuperLink does not have: its error, naming the id, comes through.
        store.contents[chunk.id] = nil
        #expect {
            _ = try cache.objects(of: message.tree, fetch: store.fetch)
        } throws: { error in
            error as? FlowerClientError == .protocolViolation("the SuperLink has no object \(chunk.id) of the message it sent")
        }
    }
}
