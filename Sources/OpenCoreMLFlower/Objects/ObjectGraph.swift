import Foundation
import SwiftProtobuf

/// A deflated object with its subtree: how a message becomes the objects a SuperNode pushes, and
/// pulled objects become a message again. Children are distinct (an object named twice is one
/// child), in the order they first appear, as Flower's object tree lists them.
struct ObjectNode {
    let object: FlowerObject
    let id: String
    let children: [ObjectNode]
    /// The object's bytes (head and body), made once: they are hashed for the id and pushed.
    let content: Data

    init(_ object: FlowerObject, children: [ObjectNode]) {
        self.object = object
        content = object.content
        id = FlowerObject.id(of: content)
        self.children = children
    }

    /// Flower's tree of ids for this node.
    var tree: Flower_Fleet_ObjectTree {
        var tree = Flower_Fleet_ObjectTree()
        tree.objectID = id
        tree.children = children.map(\.tree)
        return tree
    }

    /// Every object of the subtree once, children before parents (the order to push them in).
    var postOrder: [(id: String, content: Data)] {
        var seen = Set<String>()
        var result: [(String, Data)] = []
        func visit(_ node: ObjectNode) {
            for child in node.children { visit(child) }
            if seen.insert(node.id).inserted { result.append((node.id, node.content)) }
        }
        visit(self)
        return result
    }

    /// `nodes` without repeats, first occurrence first.
    static func distinct(_ nodes: [ObjectNode]) -> [ObjectNode] {
        var seen = Set<String>()
        return nodes.filter { seen.insert($0.id).inserted }
    }
}

/// Deflating records and messages into objects, exactly as flwr 1.41 does, so that ids agree.
enum ObjectGraph {
    /// Flower's largest array chunk (`FLWR_PRIVATE_MAX_ARRAY_CHUNK_SIZE`, 5 MiB by default).
    static let defaultChunkSize = 5 * 1024 * 1024

    static func deflate(_ array: FlowerArray, chunkSize: Int = defaultChunkSize) -> ObjectNode {
        var chunks: [ObjectNode] = []
        var start = array.data.startIndex
        while start < array.data.endIndex {
            let end = min(start + chunkSize, array.data.endIndex)
            chunks.append(ObjectNode(FlowerObject(type: "ArrayChunk", children: [], body: Data(array.data[start..<end])), children: []))
            start = end
        }
        let distinct = ObjectNode.distinct(chunks)
        let position = Dictionary(distinct.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        let body = PythonJSON.dumps(.object([
            ("dtype", .string(array.dtype)),
            ("shape", .array(array.shape.map { .integer($0) })),
            ("stype", .string(array.stype)),
            ("arraychunk_ids", .array(chunks.map { .integer(position[$0.id]!) })),
        ]))
        return ObjectNode(FlowerObject(type: "Array", children: distinct.map(\.id), body: Data(body.utf8)), children: distinct)
    }

    static func deflate(_ record: FlowerRecord, chunkSize: Int = defaultChunkSize) throws -> ObjectNode {
        switch record {
        case .arrays(let arrays):
            let nodes = arrays.map { deflate($0.1, chunkSize: chunkSize) }
            return referencing(type: "ArrayRecord", names: arrays.map(\.0), nodes: nodes)
        case .config(let pairs):
            var proto = Flower_Fleet_ConfigRecord()
            proto.items = pairs.map { key, value in
                var item = Flower_Fleet_ConfigRecord.Item()
                item.key = key
                item.value = value.proto
                return item
            }
            return ObjectNode(FlowerObject(type: "ConfigRecord", children: [], body: try proto.serializedData()), children: [])
        case .metrics(let pairs):
            var proto = Flower_Fleet_MetricRecord()
            proto.items = pairs.map { key, value in
                var item = Flower_Fleet_MetricRecord.Item()
                item.key = key
                item.value = value.proto
                return item
            }
            return ObjectNode(FlowerObject(type: "MetricRecord", children: [], body: try proto.serializedData()), children: [])
        }
    }

    static func deflate(_ content: RecordDict, chunkSize: Int = defaultChunkSize) throws -> ObjectNode {
        let nodes = try content.items.map { try deflate($0.1, chunkSize: chunkSize) }
        return referencing(type: "RecordDict", names: content.items.map(\.0), nodes: nodes)
    }

    /// A message's object: its metadata (message id left empty) and error as protobuf, its content
    /// as the one child.
    static func deflate(_ message: FlowerMessage, chunkSize: Int = defaultChunkSize) throws -> ObjectNode {
        var proto = Flower_Fleet_Message()
        proto.metadata = message.metadata
        proto.metadata.messageID = ""
        if let error = message.error { proto.error = error }
        let content = try message.content.map { try deflate($0, chunkSize: chunkSize) }
        let body = try proto.serializedData()
        return ObjectNode(FlowerObject(type: "Message", children: content.map { [$0.id] } ?? [], body: body),
                          children: content.map { [$0] } ?? [])
    }

    /// A record dictionary or array record: a JSON body mapping each name to its child's id.
    private static func referencing(type: String, names: [String], nodes: [ObjectNode]) -> ObjectNode {
        let body = PythonJSON.dumps(.object(zip(names, nodes).map { ($0, .string($1.id)) }))
        let distinct = ObjectNode.distinct(nodes)
        return ObjectNode(FlowerObject(type: type, children: distinct.map(\.id), body: Data(body.utf8)), children: distinct)
    }

    // MARK: Inflating

    /// The message whose objects are `objects` (by id), rooted at `tree`, with `metadata` as the
    /// SuperLink delivered it (message id set).
    ///
    /// `limits`: a record or array body may list at most ``ObjectLimits/objects`` entries, and the
    /// arrays once assembled may hold at most ``ObjectLimits/bytes`` together (an array listing one
    /// chunk many times is refused before its bytes are put together).
    static func inflateMessage(tree: Flower_Fleet_ObjectTree, objects: [String: FlowerObject], metadata: MessageMetadata,
                               limits: ObjectLimits = .none) throws -> FlowerMessage {
        let root = try object(tree.objectID, in: objects, type: "Message")
        let proto: Flower_Fleet_Message = try decode(root.body, "Message \(tree.objectID)")
        var message = FlowerMessage(metadata: metadata, content: nil, error: proto.hasError ? proto.error : nil)
        if !proto.hasError {
            guard root.children.count == 1 else {
                throw FlowerClientError.protocolViolation("message \(tree.objectID) has \(root.children.count) children; expected its content")
            }
            var budget = ByteBudget(limits.bytes)
            message.content = try inflateRecordDict(root.children[0], objects: objects, limits: limits, budget: &budget)
        }
        return message
    }

    static func inflateRecordDict(_ id: String, objects: [String: FlowerObject], limits: ObjectLimits, budget: inout ByteBudget) throws -> RecordDict {
        let object = try object(id, in: objects, type: "RecordDict")
        var items: [(String, FlowerRecord)] = []
        for (name, childID) in try references(object, id: id, limits: limits) {
            let child = try self.object(childID, in: objects, type: nil)
            switch child.type {
            case "ArrayRecord":
                items.append((name, .arrays(try inflateArrayRecord(childID, objects: objects, limits: limits, budget: &budget))))
            case "ConfigRecord":
                let proto: Flower_Fleet_ConfigRecord = try decode(child.body, "ConfigRecord \(childID) ('\(name)')")
                try limits.checkEntries(proto.items.count, of: "ConfigRecord \(childID) ('\(name)')")
                items.append((name, .config(proto.items.map { ($0.key, ConfigValue($0.value)) })))
            case "MetricRecord":
                let proto: Flower_Fleet_MetricRecord = try decode(child.body, "MetricRecord \(childID) ('\(name)')")
                try limits.checkEntries(proto.items.count, of: "MetricRecord \(childID) ('\(name)')")
                items.append((name, .metrics(proto.items.map { ($0.key, MetricValue($0.value)) })))
            default:
                throw FlowerClientError.protocolViolation("record '\(name)' is a \(child.type), not a record")
            }
        }
        return RecordDict(items)
    }

    /// The arrays of an ArrayRecord; an error about one names it.
    static func inflateArrayRecord(_ id: String, objects: [String: FlowerObject], limits: ObjectLimits,
                                   budget: inout ByteBudget) throws -> [(String, FlowerArray)] {
        let object = try object(id, in: objects, type: "ArrayRecord")
        var arrays: [(String, FlowerArray)] = []
        for (name, arrayID) in try references(object, id: id, limits: limits) {
            do {
                arrays.append((name, try inflateArray(arrayID, objects: objects, limits: limits, budget: &budget)))
            } catch FlowerClientError.protocolViolation(let text) {
                throw FlowerClientError.protocolViolation("array '\(name)': \(text)")
            }
        }
        return arrays
    }

    /// An Array: its chunks put together once their sizes, added up, fit in `budget`.
    static func inflateArray(_ id: String, objects: [String: FlowerObject], limits: ObjectLimits, budget: inout ByteBudget) throws -> FlowerArray {
        let object = try object(id, in: objects, type: "Array")
        guard case .object(let fields) = try PythonJSON.parse(object.body) else {
            throw FlowerClientError.protocolViolation("array \(id): the body is not a JSON object")
        }
        let values = Dictionary(fields, uniquingKeysWith: { _, last in last })
        guard case .string(let dtype)? = values["dtype"], case .string(let stype)? = values["stype"],
              case .array(let shapeItems)? = values["shape"], case .array(let chunkItems)? = values["arraychunk_ids"] else {
            throw FlowerClientError.protocolViolation("array \(id): the body lacks dtype, shape, stype or arraychunk_ids")
        }
        var shape: [Int] = []
        for case .integer(let size) in shapeItems { shape.append(size) }
        guard shape.count == shapeItems.count else { throw FlowerClientError.protocolViolation("array \(id): the shape holds a non-integer") }
        try limits.checkEntries(chunkItems.count, of: "array \(id)'s chunk list")
        var chunks: [Data] = []
        var total = 0
        for item in chunkItems {
            guard case .integer(let index) = item, object.children.indices.contains(index) else {
                throw FlowerClientError.protocolViolation("array \(id): a chunk index is not one of its \(object.children.count) children")
            }
            // Data shares the chunk's bytes: nothing is copied until the sizes are known to fit.
            let chunk = try self.object(object.children[index], in: objects, type: "ArrayChunk").body
            chunks.append(chunk)
            total = total.addingReportingOverflow(chunk.count).overflow ? .max : total + chunk.count
        }
        try budget.spend(total, on: "array \(id) (\(chunks.count) chunks, \(total) bytes once put together)", total: limits.bytes)
        // One chunk (every array up to 5 MiB) is the data itself: shared, not copied.
        var data = chunks.count == 1 ? chunks[0] : Data()
        if chunks.count > 1 {
            data.reserveCapacity(total)
            for chunk in chunks { data.append(chunk) }
        }
        return FlowerArray(dtype: dtype, shape: shape, stype: stype, data: data)
    }

    /// `body` as a `Message`, or an error naming `what` it is the body of.
    private static func decode<Message: SwiftProtobuf.Message>(_ body: Data, _ what: String) throws -> Message {
        do {
            return try Message(serializedBytes: body)
        } catch {
            throw FlowerClientError.protocolViolation("\(what): the body is not a \(Message.protoMessageName) protobuf (\(error))")
        }
    }

    private static func object(_ id: String, in objects: [String: FlowerObject], type: String?) throws -> FlowerObject {
        guard let object = objects[id] else { throw FlowerClientError.protocolViolation("object \(id) was not pulled") }
        if let type, object.type != type {
            throw FlowerClientError.protocolViolation("object \(id) is a \(object.type), expected a \(type)")
        }
        return object
    }

    /// The `name → child id` pairs of a RecordDict or ArrayRecord body, each id one of the object's children.
    private static func references(_ object: FlowerObject, id: String, limits: ObjectLimits) throws -> [(String, String)] {
        guard case .object(let pairs) = try PythonJSON.parse(object.body) else {
            throw FlowerClientError.protocolViolation("\(object.type) \(id): the body is not a JSON object")
        }
        try limits.checkEntries(pairs.count, of: "\(object.type) \(id)")
        let children = Set(object.children)
        return try pairs.map { name, value in
            guard case .string(let childID) = value, children.contains(childID) else {
                throw FlowerClientError.protocolViolation("\(object.type) \(id): '\(name)' does not name one of its children")
            }
            return (name, childID)
        }
    }
}

extension ConfigValue {
    init(_ proto: Flower_Fleet_ConfigRecordValue) {
        switch proto.value {
        case .double(let value)?: self = .double(value)
        case .sint64(let value)?: self = .int(value)
        case .uint64(let value)?: self = .uint(value)
        case .bool(let value)?: self = .bool(value)
        case .string(let value)?: self = .string(value)
        case .bytes(let value)?: self = .bytes(value)
        default: self = .list(proto)
        }
    }

    var proto: Flower_Fleet_ConfigRecordValue {
        var proto = Flower_Fleet_ConfigRecordValue()
        switch self {
        case .double(let value): proto.double = value
        case .int(let value): proto.sint64 = value
        case .uint(let value): proto.uint64 = value
        case .bool(let value): proto.bool = value
        case .string(let value): proto.string = value
        case .bytes(let value): proto.bytes = value
        case .list(let list): proto = list
        }
        return proto
    }
}

extension MetricValue {
    init(_ proto: Flower_Fleet_MetricRecordValue) {
        switch proto.value {
        case .double(let value)?: self = .double(value)
        case .sint64(let value)?: self = .int(value)
        case .uint64(let value)?: self = .uint(value)
        default: self = .list(proto)
        }
    }

    var proto: Flower_Fleet_MetricRecordValue {
        var proto = Flower_Fleet_MetricRecordValue()
        switch self {
        case .double(let value): proto.double = value
        case .int(let value): proto.sint64 = value
        case .uint(let value): proto.uint64 = value
        case .list(let list): proto = list
        }
        return proto
    }
}
