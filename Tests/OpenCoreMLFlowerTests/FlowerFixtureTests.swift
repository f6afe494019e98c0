import Foundation
import OpenCoreML
import OpenCreateML
import SwiftProtobuf
import Testing
@testable import OpenCoreMLFlower

/// The client's encodings against what flwr 1.41.0's own code and numpy produce (Fixtures/, made
/// by make_fixtures.py): `.npy` files, content-addressed objects and their ids, the reply a
/// SuperNode builds, and signed request headers.
@Suite("Encodings against flwr's and numpy's")
struct FlowerFixtureTests {
    static let folder = Bundle.module.resourceURL!

    static func json(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(path))) as! [String: Any]
    }

    static func data(_ path: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(path)) }

    // MARK: .npy

    @Test func readsNumpysFilesAndRefusesTheLayoutsItCannotRead() throws {
        let files = try Self.json("npy/manifest.json")["files"] as! [[String: Any]]
        #expect(files.count == 11)
        for file in files {
            let name = file["file"] as! String, descr = file["descr"] as! String
            let shape = file["shape"] as! [Int], values = file["values"] as! [Double]
            let bytes = try Self.data("npy/\(name)")
            // Big-endian and Fortran-order data are refused with an error, as is an empty array
            // (MLMultiArray has no zero-sized dimensions).
            if descr.hasPrefix(">") || file["fortran_order"] as! Bool || shape.contains(0) {
                #expect(throws: (any Error).self, "\(name)") { try MLMultiArray(npyData: bytes, dataType: .double) }
                continue
            }
            let array = try MLMultiArray(npyData: bytes, dataType: .double)
            #expect(array.shape.map(\.intValue) == (shape.isEmpty ? [1] : shape), "\(name)")
            #expect((0..<array.count).map { array[$0].doubleValue } == values, "\(name)")
        }
    }

    @Test func writesFloat32ArraysByteForByteAsNumpySavesThem() throws {
        let files = try Self.json("npy/manifest.json")["files"] as! [[String: Any]]
        for name in ["f4_2d.npy", "f4_4d.npy", "f4_7.npy"] {
            let file = files.first { $0["file"] as! String == name }!
            let shape = file["shape"] as! [Int], values = file["values"] as! [Double]
            let array = try MLMultiArray(shape: shape.map { NSNumber(value: $0) }, dataType: .float32)
            for (index, value) in values.enumerated() { array[index] = NSNumber(value: Float(value)) }
            #expect(array.npyData() == (try Self.data("npy/\(name)")), "\(name)")
        }
    }

    // MARK: Objects

    static func distinct(_ ids: [String]) -> [String] {
        var seen = Set<String>()
        return ids.filter { seen.insert($0).inserted }
    }

    static func manifestObject(_ name: String) throws -> [String: Any] {
        let objects = try json("objects/manifest.json")["objects"] as! [[String: Any]]
        return objects.first { $0["case"] as! String == name }!
    }

    /// The float32 array numpy saved for `values` in `shape`, written by our `.npy` writer.
    static func array(_ values: [Float], _ shape: [Int]) throws -> FlowerArray {
        let array = try MLMultiArray(shape: shape.map { NSNumber(value: $0) }, dataType: .float32)
        for (index, value) in values.enumerated() { array[index] = NSNumber(value: value) }
        return FlowerArray(dtype: "float32", shape: shape, stype: "numpy.ndarray", data: array.npyData())
    }

    static var arrays: FlowerRecord {
        get throws {
            .arrays([("dense.weights", try array([0.5, -1, 2, 1.5, 0.25, -0.75], [2, 3])), ("dense.bias", try array([0.1, -0.2], [2]))])
        }
    }
    static let config = FlowerRecord.config([("local-epochs", .int(2)), ("learning-rate", .double(0.05)), ("batch-size", .int(32)),
                                             ("server-round", .int(3)), ("name", .string("x")), ("flag", .bool(true))])
    static let metrics = FlowerRecord.metrics([("num-examples", .int(120)), ("loss", .double(0.6931)), ("accuracy", .double(0.75))])

    static func metadata(_ name: String) throws -> MessageMetadata {
        let values = try manifestObject(name)["metadata"] as! [String: Any]
        var metadata = MessageMetadata()
        metadata.runID = UInt64(values["run_id"] as! Int)
        metadata.srcNodeID = UInt64(values["src_node_id"] as! Int)
        metadata.dstNodeID = UInt64(values["dst_node_id"] as! Int)
        metadata.replyToMessageID = values["reply_to_message_id"] as! String
        metadata.groupID = values["group_id"] as! String
        metadata.createdAt = values["created_at"] as! Double
        metadata.ttl = values["ttl"] as! Double
        metadata.messageType = values["message_type"] as! String
        // Task ids are uint64, written as decimal strings (null when unset).
        if let task = values["src_task_id"] as? String { metadata.srcTaskID = UInt64(task)! }
        if let task = values["dst_task_id"] as? String { metadata.dstTaskID = UInt64(task)! }
        return metadata
    }

    /// `node`'s bytes and id are the fixture's.
    static func expectSame(_ node: ObjectNode, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let facts = try manifestObject(name)
        #expect(node.object.content == (try data("objects/\(name).bin")), "\(name): bytes", sourceLocation: sourceLocation)
        #expect(node.id == facts["object_id"] as! String, "\(name): id", sourceLocation: sourceLocation)
        #expect(node.object.children == facts["children"] as! [String], "\(name): children", sourceLocation: sourceLocation)
    }

    @Test func arraysSplitIntoChunksAsFlowerDoesRepeatedChunksNamedOnce() throws {
        #expect(try Self.json("objects/manifest.json")["chunk_size"] as! Int == 64)
        let cases: [(String, [Float], [Int])] = [
            ("array_small", (0..<12).map(Float.init), [3, 4]),
            ("array_chunked", (0..<40).map { Float($0) / 3 }, [40]),
            ("array_repeated_chunks", (0..<64).map { $0 == 63 ? 1 : 0 }, [64]),
        ]
        for (name, values, shape) in cases {
            let node = ObjectGraph.deflate(try Self.array(values, shape), chunkSize: 64)
            try Self.expectSame(node, name)
            let chunkIDs = try Self.manifestObject(name)["chunk_ids"] as! [String]
            #expect(node.children.map(\.id) == Self.distinct(chunkIDs))
        }
    }

    @Test func atFlowersDefaultChunkSizeASmallArrayIsOneChunk() throws {
        #expect(try Self.json("objects/manifest.json")["default_chunk_size"] as! Int == ObjectGraph.defaultChunkSize)
        let node = ObjectGraph.deflate(try Self.array((0..<12).map(Float.init), [3, 4]))
        try Self.expectSame(node, "array_small_default")
        #expect(node.children.count == 1)
        try Self.expectSame(node.children[0], "chunk_small")
    }

    @Test func recordsAndRecordDictsDeflateToFlowersBytes() throws {
        try Self.expectSame(try ObjectGraph.deflate(Self.arrays, chunkSize: 64), "arrayrecord")
        try Self.expectSame(try ObjectGraph.deflate(Self.config, chunkSize: 64), "configrecord")
        try Self.expectSame(try ObjectGraph.deflate(Self.metrics, chunkSize: 64), "metricrecord")
        try Self.expectSame(try ObjectGraph.deflate(RecordDict([("arrays", Self.arrays), ("config", Self.config)]), chunkSize: 64), "recorddict")
        try Self.expectSame(try ObjectGraph.deflate(RecordDict([("arrays", Self.arrays), ("metrics", Self.metrics)]), chunkSize: 64), "recorddict_reply")
    }

    @Test func theReplyToAnInstructionIsTheMessageFlowerBuildsWithTheSameTree() throws {
        let content = RecordDict([("arrays", try Self.arrays), ("config", Self.config)])
        let train = try ObjectGraph.deflate(FlowerMessage(metadata: Self.metadata("message_train"), content: content), chunkSize: 64)
        try Self.expectSame(train, "message_train")

        // As the SuperLink delivers it: metadata with the message id; the content travels as objects.
        let delivered = try Flower_Fleet_Message(serializedBytes: Self.data("objects/message_train.proto.bin"))
        #expect(delivered.metadata.messageID == train.id)
        var objects: [String: FlowerObject] = [:]
        for (id, content) in train.postOrder { objects[id] = try FlowerObject(content: content, expectedID: id) }
        let inflated = try ObjectGraph.inflateMessage(tree: train.tree, objects: objects, metadata: delivered.metadata)
        #expect(inflated.content == content)

        let reply = FlowerMessage.reply(to: delivered.metadata, content: RecordDict([("arrays", try Self.arrays), ("metrics", Self.metrics)]),
                                        now: 1_790_000_100.5)
        let replyNode = try ObjectGraph.deflate(reply, chunkSize: 64)
        try Self.expectSame(replyNode, "message_reply")
        #expect(try replyNode.tree.serializedData() == (try Self.data("objects/message_reply.tree.bin")))
        #expect(replyNode.postOrder.map(\.id) == Self.distinct(try Self.manifestObject("message_reply")["post_order"] as! [String]))
        #expect(try reply.pushed(id: replyNode.id).serializedData() == (try Self.data("objects/message_reply.proto.bin")))
    }

    @Test func aReplyToAServerAppTaskSwapsItsTaskIDsAsFlowerDoes() throws {
        let content = RecordDict([("arrays", try Self.arrays), ("config", Self.config)])
        let train = try ObjectGraph.deflate(FlowerMessage(metadata: Self.metadata("message_train_task"), content: content), chunkSize: 64)
        try Self.expectSame(train, "message_train_task")

        let delivered = try Flower_Fleet_Message(serializedBytes: Self.data("objects/message_train_task.proto.bin"))
        #expect(delivered.metadata.messageID == train.id)
        #expect(delivered.metadata.hasSrcTaskID && !delivered.metadata.hasDstTaskID)
        let reply = FlowerMessage.reply(to: delivered.metadata, content: RecordDict([("arrays", try Self.arrays), ("metrics", Self.metrics)]),
                                        now: 1_790_000_100.5)
        #expect(reply.metadata.dstTaskID == delivered.metadata.srcTaskID && !reply.metadata.hasSrcTaskID)
        let replyNode = try ObjectGraph.deflate(reply, chunkSize: 64)
        try Self.expectSame(replyNode, "message_reply_task")
        #expect(try replyNode.tree.serializedData() == (try Self.data("objects/message_reply_task.tree.bin")))
        #expect(try reply.pushed(id: replyNode.id).serializedData() == (try Self.data("objects/message_reply_task.proto.bin")))
    }

    @Test func aPullResponseAsTheSuperLinkSendsItInflatesToTheInstruction() throws {
        let response = try Flower_Fleet_PullMessagesResponse(serializedBytes: Self.data("objects/pull_messages_response.bin"))
        #expect(response.messagesList.count == 1)
        #expect(response.messageObjectTrees.count == 1)
        let facts = try Self.manifestObject("message_train")
        let tree = response.messageObjectTrees[0]
        #expect(tree.objectID == facts["object_id"] as! String)
        #expect(try tree.serializedData() == (try Self.data("objects/message_train.tree.bin")))

        // Every object the tree names, from the fixture files, each checked against its id.
        var objects: [String: FlowerObject] = [:]
        for entry in try Self.json("objects/manifest.json")["objects"] as! [[String: Any]] {
            guard let bytes = try? Self.data("objects/\(entry["case"] as! String).bin") else { continue }
            let id = entry["object_id"] as! String
            objects[id] = try FlowerObject(content: bytes, expectedID: id)
        }
        // flwr makes the tree from the objects' heads: every node passes the client's check against
        // its head, within limits a little over the message's size.
        let (pulled, fetched) = try ObjectCache().objects(of: tree, limits: ObjectLimits(objects: 20, bytes: 1 << 16)) { id in
            try #require(objects[id]).content
        }
        #expect(fetched == pulled.count)
        let message = try ObjectGraph.inflateMessage(tree: tree, objects: objects, metadata: response.messagesList[0].metadata)
        #expect(message.metadata.messageID == facts["object_id"] as! String)
        var expected = try Self.metadata("message_train")
        expected.messageID = facts["object_id"] as! String
        #expect(message.metadata == expected)
        #expect(message.content == RecordDict([("arrays", try Self.arrays), ("config", Self.config)]))
        #expect(message.error == nil)
    }

    @Test func objectsWhoseBytesDoNotMatchTheirIdAreRefused() throws {
        let facts = try Self.manifestObject("arrayrecord")
        var bytes = try Self.data("objects/arrayrecord.bin")
        #expect(throws: Never.self) { try FlowerObject(content: bytes, expectedID: facts["object_id"] as! String) }
        bytes[bytes.count - 3] ^= 1
        #expect(throws: FlowerClientError.self) { try FlowerObject(content: bytes, expectedID: facts["object_id"] as! String) }
        let lying = FlowerObject(type: "ArrayChunk", children: [], body: Data([1, 2, 3]))
        var content = lying.content
        content.append(9)  // the body is longer than the head says
        #expect(throws: FlowerClientError.self) { try FlowerObject(content: content, expectedID: FlowerObject.id(of: content)) }
    }

    // MARK: Signatures

    @Test func signsRequestsAsAFlowerSuperNodeDoes() throws {
        let facts = try Self.json("signature/manifest.json")
        let identity = try NodeIdentity(pem: String(decoding: Self.data("signature/private_key.pem"), as: UTF8.self))
        #expect(identity.publicKeyPEM == (try Self.data("signature/public_key.pem")))
        let names = facts["header_names"] as! [String: String]
        #expect(names == ["public_key": NodeIdentity.publicKeyHeader, "signature": NodeIdentity.signatureHeader, "timestamp": NodeIdentity.timestampHeader])

        // flwr's signature verifies with our check; a signature of another time does not.
        let timestamp = facts["timestamp"] as! String
        #expect(facts["verified_by_flwr"] as! Bool)
        #expect(NodeIdentity.verify(publicKeyHeader: facts["public_key_header"] as! String, timestamp: timestamp,
                                    signatureHeader: facts["signature_header"] as! String))
        #expect(!NodeIdentity.verify(publicKeyHeader: facts["public_key_header"] as! String, timestamp: timestamp,
                                     signatureHeader: facts["other_signature_header"] as! String))

        // Our headers: the same public key header, Python's timestamp format, a signature that verifies.
        let date = Date(timeIntervalSince1970: 1_795_502_412.123456)  // 2026-11-24T06:40:12.123456Z
        #expect(NodeIdentity.timestamp(date) == timestamp)
        let headers = try identity.headers(at: date)
        #expect(headers[NodeIdentity.publicKeyHeader] == facts["public_key_header"] as? String)
        #expect(headers[NodeIdentity.timestampHeader] == timestamp)
        #expect(NodeIdentity.verify(publicKeyHeader: headers[NodeIdentity.publicKeyHeader]!, timestamp: timestamp,
                                    signatureHeader: headers[NodeIdentity.signatureHeader]!))
    }
}
