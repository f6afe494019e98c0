import Foundation
import OpenCoreML
import OpenCreateML
import SwiftProtobuf
import Testing
@testable import OpenCoreMLFlower

/// What a compromised or buggy SuperLink could send, from an in-process Fleet API on loopback
/// (``HostileSuperLink``). Each case ends with one clear ``FlowerClientError`` — an error reply to
/// the instruction (the client goes on), or giving up on the SuperLink after the retries — the
/// model file byte for byte as it was, and nothing taken in beyond the client's limits.
@Suite("A hostile SuperLink", .serialized, .timeLimit(.minutes(3)))
struct HostileSuperLinkTests {
    /// One client of ``SmallNetwork``, loaded from a model file, against a ``HostileSuperLink``
    /// serving a ``FakeFleet``.
    final class Trial: @unchecked Sendable {
        let fleet = FakeFleet()
        let server: HostileSuperLink
        let client: FlowerClient
        let modelFile: URL
        let fileBytes: Data
        /// The model's arrays before the client ran.
        let arrays: [(String, FlowerArray)]
        let events = FederationTests.Events()

        /// A client that polls every 0.05 s, waits `requestTimeout` for an answer, gives up after
        /// `maximumWait` s of an unusable SuperLink and returns after 1.5 s without instructions;
        /// with `keepAlive`, the server keeps its connections open between answers.
        init(requestTimeout: Double = 2, maximumWait: Double = 2, keepAlive: Bool = false) throws {
            let fleet = self.fleet
            server = try HostileSuperLink(keepAlive: keepAlive) { route, body in fleet.answer(route: route, body: body) }
            modelFile = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString).mlmodel")
            try SmallNetwork.specification().write(to: modelFile)
            fileBytes = try Data(contentsOf: modelFile)
            let model = try MLModel(contentsOf: modelFile)
            arrays = try ModelArrays.arrays(of: model)
            client = try FlowerClient(
                model: model, trainingData: LabeledDataset.generatedDigits(40).batchProvider(for: model),
                testData: LabeledDataset.generatedDigits(10, seed: 2).batchProvider(for: model),
                configuration: .init(superlink: server.address, heartbeatInterval: 60, pollInterval: 0.05, maximumWait: maximumWait,
                                     maximumIdle: 1.5, requestTimeout: requestTimeout))
        }

        /// Stops the server and removes the model file.
        func finish() {
            client.stop()
            server.stop()
            try? FileManager.default.removeItem(at: modelFile)
        }

        /// Runs the client until it returns or `seconds` pass (then it is asked to stop); returns
        /// what `run` threw and whether it ended by itself in time.
        func run(within seconds: Double = 40) -> (error: Error?, ended: Bool) {
            let outcome = Outcome()
            let client = client, events = events
            let thread = Thread {
                do { try client.run { events.append($0) } } catch { outcome.error = error }
                outcome.done = true
            }
            thread.start()
            let deadline = Date().addingTimeInterval(seconds)
            while !outcome.done, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            let ended = outcome.done
            if !ended {
                client.stop()
                let grace = Date().addingTimeInterval(15)
                while !outcome.done, Date() < grace { Thread.sleep(forTimeInterval: 0.05) }
            }
            return (outcome.error, ended)
        }

        /// The model file byte for byte as it was, and the client's model still holding its arrays.
        func expectModelUntouched(sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(try Data(contentsOf: modelFile) == fileBytes, "the model file changed", sourceLocation: sourceLocation)
            #expect(try ModelArrays.arrays(of: client.model).map(\.1) == arrays.map(\.1), "the model's arrays changed",
                    sourceLocation: sourceLocation)
        }

        /// Expects the run to have ended by itself with one error reply per instruction, each
        /// reason holding the texts of `expected` (in order), and the model as it was.
        func expectErrorReplies(_ expected: [[String]], sourceLocation: SourceLocation = #_sourceLocation) throws {
            let (error, ended) = run()
            #expect(ended, "the client did not end within its time; events: \(events.all)", sourceLocation: sourceLocation)
            #expect(error == nil, "run threw \(String(describing: error))", sourceLocation: sourceLocation)
            let reasons = events.failures
            #expect(reasons.count == expected.count, "failures: \(reasons); events: \(events.all)", sourceLocation: sourceLocation)
            #expect(fleet.errorReasons.count == expected.count, "error replies: \(fleet.errorReasons)", sourceLocation: sourceLocation)
            for (reason, texts) in zip(reasons, expected) {
                for text in texts {
                    #expect(reason.contains(text), "'\(text)' is not in: \(reason)", sourceLocation: sourceLocation)
                }
            }
            try expectModelUntouched(sourceLocation: sourceLocation)
        }

        /// Expects the run to have ended with ``FlowerClientError/superlinkGone(address:seconds:lastError:)``
        /// naming the server's address, its last error holding `texts`, within `seconds`.
        func expectGivingUp(_ texts: [String], within seconds: Double = 40, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let started = Date()
            let (error, ended) = run(within: seconds)
            #expect(ended, "the client did not give up within \(Int(seconds)) s; events: \(events.all.suffix(5))", sourceLocation: sourceLocation)
            guard case .superlinkGone(let address, _, let last)? = error as? FlowerClientError else {
                Issue.record("expected superlinkGone, got \(String(describing: error))", sourceLocation: sourceLocation)
                return
            }
            #expect(address == server.address, sourceLocation: sourceLocation)
            #expect("\(error!)".contains(server.address), sourceLocation: sourceLocation)
            for text in texts { #expect(last.contains(text), "'\(text)' is not in: \(last)", sourceLocation: sourceLocation) }
            #expect(Date().timeIntervalSince(started) < seconds, sourceLocation: sourceLocation)
            try expectModelUntouched(sourceLocation: sourceLocation)
        }
    }

    /// What a client thread left behind.
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var _error: Error?
        private var _done = false
        var error: Error? {
            get { lock.withLock { _error } }
            set { lock.withLock { _error = newValue } }
        }
        var done: Bool {
            get { lock.withLock { _done } }
            set { lock.withLock { _done = newValue } }
        }
    }

    // MARK: Building hostile instructions

    /// `.npy` bytes with a header as NumPy writes it but any `descr` and `shape`, then `payload`.
    static func npy(_ descr: String, _ shape: [Int], _ payload: Data) -> Data {
        let shapeText = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        var header = "{'descr': '\(descr)', 'fortran_order': False, 'shape': \(shapeText), }"
        header += String(repeating: " ", count: (64 - (10 + header.utf8.count + 1) % 64) % 64) + "\n"
        var data = Data([0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59, 1, 0, UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)])
        data.append(Data(header.utf8))
        data.append(payload)
        return data
    }

    /// `count` little-endian float32 values of 0.25.
    static func floats(_ count: Int) -> Data {
        Data([Float](repeating: 0.25, count: count).flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) })
    }

    /// A float32 array of `shape` as Flower carries it, its `.npy` header saying `header` (default: `shape`).
    static func float32(_ shape: [Int], header: [Int]? = nil) -> FlowerArray {
        FlowerArray(dtype: "float32", shape: shape, stype: FlowerArray.numpyStype,
                    data: npy("<f4", header ?? shape, floats(shape.reduce(1, *))))
    }

    /// A train instruction's content: `arrays` and a config record.
    static func content(_ arrays: [(String, FlowerArray)], config: [(String, ConfigValue)] = [("local-epochs", .int(1))]) -> RecordDict {
        RecordDict([("arrays", .arrays(arrays)), ("config", .config(config))])
    }

    /// The model's arrays with the one named `name` replaced by `array`.
    static func replacing(_ name: String, with array: FlowerArray, in arrays: [(String, FlowerArray)]) -> [(String, FlowerArray)] {
        arrays.map { $0.0 == name ? (name, array) : $0 }
    }

    /// A Message object over a RecordDict object naming `records`, as flwr builds them.
    static func message(_ records: [(String, ObjectNode)], type: String = "train", group: String) throws -> ObjectNode {
        let body = PythonJSON.dumps(.object(records.map { ($0.0, .string($0.1.id)) }))
        let children = ObjectNode.distinct(records.map(\.1))
        let dict = ObjectNode(FlowerObject(type: "RecordDict", children: children.map(\.id), body: Data(body.utf8)), children: children)
        var proto = Flower_Fleet_Message()
        proto.metadata = FakeFleet.metadata(type: type, group: group)
        return ObjectNode(FlowerObject(type: "Message", children: [dict.id], body: try proto.serializedData()), children: [dict])
    }

    /// Queues the message `root` with exactly the objects of its subtree and its own tree.
    static func enqueue(_ root: ObjectNode, in fleet: FakeFleet, group: String) {
        fleet.enqueue(root: root.id, tree: root.tree, objects: root.postOrder.map { ($0.id, $0.content) }, group: group)
    }

    // MARK: 1. Shapes

    /// Arrays that do not fit the layer: another shape in the Array's body and its `.npy` header;
    /// the right shape in the body but another one (the same 240 values) in the `.npy` header;
    /// the packed form one value short. Each gets an error reply naming the array and the shapes.
    @Test func arraysOfTheWrongShapeForALayerGetAnErrorReplyNamingTheArray() throws {
        let trial = try Trial()
        defer { trial.finish() }
        try trial.fleet.enqueue(Self.content(Self.replacing("dense2.weights", with: Self.float32([24, 10]), in: trial.arrays)), group: "1")
        try trial.fleet.enqueue(Self.content(Self.replacing("dense2.weights", with: Self.float32([10, 24], header: [24, 10]), in: trial.arrays)), group: "2")
        try trial.fleet.enqueue(Self.content([(ModelArrays.packedName, Self.float32([19_137]))]), group: "3")
        try trial.expectErrorReplies([["dense2.weights", "[24, 10]", "[10, 24]"], ["dense2.weights", "[24, 10]", "[10, 24]"],
                                      ["'packed'", "19137"]])
    }

    // MARK: 2. Element types

    /// Arrays of the wrong element type: int64 (the Array says so too), float16 values in an Array
    /// that says float32, a dtype NumPy has no name for in the `.npy` header, and an int64 packed
    /// array. Each gets an error reply naming the array and the type.
    @Test func arraysOfTheWrongElementTypeGetAnErrorReplyNamingTheArrayAndTheType() throws {
        let trial = try Trial()
        defer { trial.finish() }
        let int64 = FlowerArray(dtype: "int64", shape: [10], stype: FlowerArray.numpyStype, data: Self.npy("<i8", [10], Data(count: 80)))
        let halves = FlowerArray(dtype: "float32", shape: [10], stype: FlowerArray.numpyStype, data: Self.npy("<f2", [10], Data(count: 20)))
        let bogus = FlowerArray(dtype: "float32", shape: [10], stype: FlowerArray.numpyStype, data: Self.npy("<x9", [10], Data(count: 90)))
        let packed = FlowerArray(dtype: "int64", shape: [19_138], stype: FlowerArray.numpyStype, data: Self.npy("<i8", [19_138], Data(count: 8 * 19_138)))
        for (group, array) in [("1", int64), ("2", halves), ("3", bogus)] {
            try trial.fleet.enqueue(Self.content(Self.replacing("dense2.bias", with: array, in: trial.arrays)), group: group)
        }
        try trial.fleet.enqueue(Self.content([(ModelArrays.packedName, packed)]), group: "4")
        try trial.expectErrorReplies([["dense2.bias", "int64"], ["dense2.bias", "float16", "float32"], ["dense2.bias", "<x9"],
                                      ["'packed'", "int64"]])
    }

    // MARK: 3. Declared sizes

    /// Sizes that would not fit in memory: a `.npy` header claiming 2^40 values, an Array whose
    /// body claims 2^40, a ConfigRecord whose protobuf has a length field of 2^62, an object head
    /// saying its body is 2^62 bytes. Each gets an error reply naming what, nothing is allocated
    /// for the size claimed.
    @Test func sizesClaimedBeyondMemoryGetAnErrorReplyNamingWhat() throws {
        let trial = try Trial()
        defer { trial.finish() }
        let huge = 1 << 40
        let claiming = FlowerArray(dtype: "float32", shape: [10], stype: FlowerArray.numpyStype, data: Self.npy("<f4", [huge], Self.floats(10)))
        try trial.fleet.enqueue(Self.content(Self.replacing("dense2.bias", with: claiming, in: trial.arrays)), group: "1")
        let body = FlowerArray(dtype: "float32", shape: [huge], stype: FlowerArray.numpyStype, data: Self.npy("<f4", [huge], Self.floats(10)))
        try trial.fleet.enqueue(Self.content([(ModelArrays.packedName, body)]), group: "2")

        let arrays = try ObjectGraph.deflate(FlowerRecord.arrays(trial.arrays))
        // ConfigRecord.items (field 1, length-delimited) of 2^62 bytes: 0x0A, then the varint.
        var lengthField = Data([0x0A])
        var length: UInt64 = 1 << 62
        while length >= 0x80 { lengthField.append(UInt8(length & 0x7F) | 0x80); length >>= 7 }
        lengthField.append(UInt8(length))
        lengthField.append(contentsOf: [1, 2, 3])
        let config = ObjectNode(FlowerObject(type: "ConfigRecord", children: [], body: lengthField), children: [])
        Self.enqueue(try Self.message([("arrays", arrays), ("config", config)], group: "3"), in: trial.fleet, group: "3")

        // An object whose head says 2^62 body bytes (its id is still the hash of what it is).
        var lying = Data("ConfigRecord  \(1 << 62)".utf8)
        lying.append(0)
        lying.append(contentsOf: [1, 2, 3])
        let lyingID = FlowerObject.id(of: lying)
        let honest = try Self.message([("arrays", arrays)], group: "4")
        // The same message with the lying object as a second record; the tree and heads agree.
        let dictBody = PythonJSON.dumps(.object([("arrays", .string(arrays.id)), ("config", .string(lyingID))]))
        let dict = FlowerObject(type: "RecordDict", children: [arrays.id, lyingID], body: Data(dictBody.utf8))
        let root = FlowerObject(type: "Message", children: [dict.id], body: honest.object.body)
        var dictTree = Flower_Fleet_ObjectTree()
        dictTree.objectID = dict.id
        var lyingTree = Flower_Fleet_ObjectTree()
        lyingTree.objectID = lyingID
        dictTree.children = [arrays.tree, lyingTree]
        var tree = Flower_Fleet_ObjectTree()
        tree.objectID = root.id
        tree.children = [dictTree]
        trial.fleet.enqueue(root: root.id, tree: tree,
                            objects: arrays.postOrder.map { ($0.id, $0.content) } + [(lyingID, lying), (dict.id, dict.content), (root.id, root.content)],
                            group: "4")
        try trial.expectErrorReplies([["dense2.bias", "1099511627776"], ["'packed'", "1099511627776"], ["ConfigRecord"],
                                      ["\(1 << 62)"]])
    }

    /// A PullMessages answer whose protobuf has a length field of 2^62: the SuperLink's answers
    /// are unusable, so the client retries and then gives up naming the address and the route.
    @Test func aPullAnswerClaimingTwoToTheSixtySecondBytesEndsInGivingUpNamingTheAddress() throws {
        let trial = try Trial()
        defer { trial.finish() }
        trial.fleet.hostile = { route, _, _ in
            route == "pull-messages" ? .reply(Data([0x0A, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40, 1, 2, 3])) : nil
        }
        try trial.expectGivingUp(["pull-messages"])
    }

    // MARK: 4. Endless object lists

    /// A message whose object graph has 100 000 children (real objects, each pulled on its own):
    /// refused before any is pulled, naming the count and the limit.
    @Test func aMessageWithAHundredThousandOfObjectsIsRefusedBeforePullingThem() throws {
        let trial = try Trial()
        defer { trial.finish() }
        let chunks = (0..<100_000).map { index in
            ObjectNode(FlowerObject(type: "ArrayChunk", children: [], body: withUnsafeBytes(of: index) { Data($0) }), children: [])
        }
        var proto = Flower_Fleet_Message()
        proto.metadata = FakeFleet.metadata(type: "train", group: "1")
        let root = ObjectNode(FlowerObject(type: "Message", children: chunks.map(\.id), body: try proto.serializedData()), children: chunks)
        Self.enqueue(root, in: trial.fleet, group: "1")
        try trial.expectErrorReplies([["100001 objects", "limit"]])
        #expect(trial.fleet.objectPulls < 10, "\(trial.fleet.objectPulls) objects pulled")
    }

    /// Object trees that loop: the message's tree again under an array chunk (fifteen times
    /// over), and an Array listing its one 64 KiB chunk 4 000 times (256 MiB once assembled).
    /// Each is refused naming the object, before anything is assembled.
    @Test func objectTreesThatLoopOrRepeatAChunkAreRefusedNamingTheObject() throws {
        let trial = try Trial()
        defer { trial.finish() }
        let honest = try Self.message([("arrays", try ObjectGraph.deflate(FlowerRecord.arrays(trial.arrays)))], group: "1")
        // Under the first leaf (an ArrayChunk, which has no children), the whole tree again.
        func looping(_ depth: Int) -> Flower_Fleet_ObjectTree {
            var tree = honest.tree
            if depth > 0 { tree.children[0].children[0].children[0].children[0].children = [looping(depth - 1)] }
            return tree
        }
        trial.fleet.enqueue(root: honest.id, tree: looping(15), objects: honest.postOrder.map { ($0.id, $0.content) }, group: "1")

        let chunk = ObjectNode(FlowerObject(type: "ArrayChunk", children: [], body: Data(count: 65_536)), children: [])
        let arrayBody = PythonJSON.dumps(.object([
            ("dtype", .string("float32")), ("shape", .array([.integer(24), .integer(784)])), ("stype", .string(FlowerArray.numpyStype)),
            ("arraychunk_ids", .array(Array(repeating: .integer(0), count: 4_000))),
        ]))
        let array = ObjectNode(FlowerObject(type: "Array", children: [chunk.id], body: Data(arrayBody.utf8)), children: [chunk])
        let recordBody = PythonJSON.dumps(.object([("dense1.weights", .string(array.id))]))
        let record = ObjectNode(FlowerObject(type: "ArrayRecord", children: [array.id], body: Data(recordBody.utf8)), children: [array])
        Self.enqueue(try Self.message([("arrays", record)], group: "2"), in: trial.fleet, group: "2")
        try trial.expectErrorReplies([["ArrayChunk", "children"], ["dense1.weights", "limit"]])
    }

    // MARK: 5. An answer that never completes

    /// The SuperLink sends the head and 10 of 1 000 body bytes of every PullMessages answer, then
    /// nothing: each ask times out after the request timeout (1 s), the client retries and gives
    /// up after its maximum wait, naming the address.
    @Test func anAnswerThatStallsTimesOutAndTheClientGivesUpNamingTheAddress() throws {
        let trial = try Trial(requestTimeout: 1, maximumWait: 2)
        defer { trial.finish() }
        trial.fleet.hostile = { route, _, _ in
            route == "pull-messages" ? .stall(HostileSuperLink.head(contentLength: 1_000) + Data(count: 10)) : nil
        }
        try trial.expectGivingUp(["timed out"], within: 30)
    }

    // MARK: 6. Answers larger than memory

    /// A PullMessages answer announcing 100 GB: the client stops at the Content-Length, before
    /// taking in the body, retries, and gives up naming the size and its limit.
    @Test func anAnswerAnnouncingHundredGigabytesIsRefusedAtItsHead() throws {
        let trial = try Trial()
        defer { trial.finish() }
        trial.fleet.hostile = { route, _, _ in
            route == "pull-messages"
                ? .endless(head: HostileSuperLink.head(contentLength: 100_000_000_000), chunk: Data(count: 65_536), cap: 160 << 20) : nil
        }
        try trial.expectGivingUp(["100000000000", "limit"])
        #expect(trial.server.endlessBytes < 32 << 20, "the client took in \(trial.server.endlessBytes) bytes")
    }

    /// An object whose answer is a chunked body that never ends: the client stops at its answer
    /// limit (64 MiB by default) and replies with an error naming the object and the limit.
    @Test func anEndlessChunkedObjectStopsAtTheLimitWithAnErrorReply() throws {
        let trial = try Trial()
        defer { trial.finish() }
        try trial.fleet.enqueue(Self.content(trial.arrays), group: "1")
        trial.fleet.hostile = { route, _, _ in
            route == "pull-object" ? .endless(head: HostileSuperLink.chunkedHead, chunk: HostileSuperLink.zeroChunk, cap: 160 << 20) : nil
        }
        try trial.expectErrorReplies([["pull-object", "limit"]])
        #expect(trial.server.endlessBytes < 100 << 20, "the client took in \(trial.server.endlessBytes) bytes")
    }

    // MARK: 7. Config values of the wrong type

    /// Config values a train instruction cannot use: `local-epochs` negative, NaN, 1e18 and a
    /// string, `learning-rate` a string and 1e30, `batch-size` negative. Each gets an error reply
    /// naming the key; a `server-round` that is a string only names the round by the group.
    @Test func configValuesOfTheWrongTypeOrRangeGetAnErrorReplyNamingTheKey() throws {
        let trial = try Trial()
        defer { trial.finish() }
        let configs: [[(String, ConfigValue)]] = [
            [("local-epochs", .int(-1))], [("local-epochs", .double(.nan))], [("local-epochs", .double(1e18))],
            [("local-epochs", .string("3"))], [("learning-rate", .string("fast"))], [("learning-rate", .double(1e30))],
            [("batch-size", .int(-5))],
        ]
        for (index, config) in configs.enumerated() {
            try trial.fleet.enqueue(Self.content(trial.arrays, config: config), group: String(index + 1))
        }
        try trial.fleet.enqueue(Self.content(trial.arrays, config: [("server-round", .string("three")), ("local-epochs", .int(1))]), group: "8")
        let (error, ended) = trial.run()
        #expect(ended && error == nil, "\(String(describing: error)); events: \(trial.events.all)")
        let reasons = trial.events.failures
        let keys = ["local-epochs", "local-epochs", "local-epochs", "local-epochs", "learning-rate", "learning-rate", "batch-size"]
        #expect(reasons.count == keys.count, "\(reasons)")
        for (reason, key) in zip(reasons, keys) { #expect(reason.contains(key), "'\(key)' is not in: \(reason)") }
        #expect(trial.events.trainedRounds == ["8"], "\(trial.events.all)")
        #expect(try Data(contentsOf: trial.modelFile) == trial.fileBytes)
    }

    // MARK: 8. A SuperLink that disappears mid-round

    /// The SuperLink hands out an instruction, then hangs up on the first object pull and stops
    /// listening: the client retries (the SuperLink does not answer), then gives up after its
    /// maximum wait naming the address; no reply, the model as it was.
    @Test func aSuperLinkThatDisappearsAfterThePullEndsInGivingUpNamingTheAddress() throws {
        let trial = try Trial()
        defer { trial.finish() }
        try trial.fleet.enqueue(Self.content(trial.arrays), group: "1")
        let server = trial.server
        trial.fleet.hostile = { route, _, _ in
            guard route == "pull-object" else { return nil }
            server.disappear()
            return .hangUp
        }
        try trial.expectGivingUp([])
        #expect(trial.fleet.pushed.isEmpty)
        #expect(trial.events.all.contains { if case .retrying = $0 { true } else { false } })
    }
}
