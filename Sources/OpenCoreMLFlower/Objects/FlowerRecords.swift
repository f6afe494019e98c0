import Foundation

/// An array as Flower carries it: NumPy `.npy` bytes (`stype` `numpy.ndarray`) with their dtype and
/// shape.
struct FlowerArray: Equatable {
    var dtype: String
    var shape: [Int]
    var stype: String
    var data: Data

    static let numpyStype = "numpy.ndarray"
}

/// A value of a ConfigRecord (what the server sends with an instruction, such as FedAvg's
/// `lr` or our `local-epochs`).
enum ConfigValue: Equatable {
    case double(Double), int(Int64), uint(UInt64), bool(Bool), string(String), bytes(Data)
    /// A list value; kept as its protobuf, since no instruction of ours reads one.
    case list(Flower_Fleet_ConfigRecordValue)

    /// The value as a number, when it is one.
    var number: Double? {
        switch self {
        case .double(let value): return value
        case .int(let value): return Double(value)
        case .uint(let value): return Double(value)
        default: return nil
        }
    }
}

/// A value of a MetricRecord.
enum MetricValue: Equatable {
    case double(Double), int(Int64), uint(UInt64)
    case list(Flower_Fleet_MetricRecordValue)

    var number: Double? {
        switch self {
        case .double(let value): return value
        case .int(let value): return Double(value)
        case .uint(let value): return Double(value)
        case .list: return nil
        }
    }
}

/// One record of a message's content.
enum FlowerRecord: Equatable {
    case arrays([(String, FlowerArray)])
    case metrics([(String, MetricValue)])
    case config([(String, ConfigValue)])

    static func == (a: FlowerRecord, b: FlowerRecord) -> Bool {
        switch (a, b) {
        case (.arrays(let x), .arrays(let y)): return x.map(\.0) == y.map(\.0) && x.map(\.1) == y.map(\.1)
        case (.metrics(let x), .metrics(let y)): return x.map(\.0) == y.map(\.0) && x.map(\.1) == y.map(\.1)
        case (.config(let x), .config(let y)): return x.map(\.0) == y.map(\.0) && x.map(\.1) == y.map(\.1)
        default: return false
        }
    }

    /// The class name Flower gives the record's object.
    var typeName: String {
        switch self {
        case .arrays: return "ArrayRecord"
        case .metrics: return "MetricRecord"
        case .config: return "ConfigRecord"
        }
    }
}

/// A message's content: named records, in order.
struct RecordDict: Equatable {
    var items: [(String, FlowerRecord)]

    init(_ items: [(String, FlowerRecord)] = []) { self.items = items }

    static func == (a: RecordDict, b: RecordDict) -> Bool {
        a.items.map(\.0) == b.items.map(\.0) && a.items.map(\.1) == b.items.map(\.1)
    }

    subscript(key: String) -> FlowerRecord? { items.first { $0.0 == key }?.1 }

    /// The only ArrayRecord, or nil when there is none; more than one is an error.
    func singleArrayRecord() throws -> (name: String, arrays: [(String, FlowerArray)])? {
        let found = items.compactMap { item -> (String, [(String, FlowerArray)])? in
            if case .arrays(let arrays) = item.1 { return (item.0, arrays) }
            return nil
        }
        guard found.count <= 1 else {
            throw FlowerClientError.badInstruction("the message holds \(found.count) ArrayRecords (\(found.map(\.0).joined(separator: ", "))); expected one")
        }
        return found.first.map { (name: $0.0, arrays: $0.1) }
    }

    /// The values of every ConfigRecord, later records winning.
    var config: [String: ConfigValue] {
        var result: [String: ConfigValue] = [:]
        for case (_, .config(let pairs)) in items {
            for (key, value) in pairs { result[key] = value }
        }
        return result
    }
}

/// A message's metadata, as Flower's `Metadata`.
typealias MessageMetadata = Flower_Fleet_Metadata

/// A Flower message: metadata and either content or an error.
struct FlowerMessage: Equatable {
    var metadata: MessageMetadata
    var content: RecordDict?
    var error: Flower_Fleet_Error?

    /// The reply to `instruction` carrying `content` or `error`, created `now` (seconds since 1970):
    /// from this node to the SuperLink, in the same run and group, living as long as the
    /// instruction still does.
    static func reply(to instruction: MessageMetadata, content: RecordDict?, error: Flower_Fleet_Error? = nil, now: Double) -> FlowerMessage {
        var metadata = MessageMetadata()
        metadata.runID = instruction.runID
        metadata.srcNodeID = instruction.dstNodeID
        metadata.dstNodeID = instruction.srcNodeID
        metadata.replyToMessageID = instruction.messageID
        metadata.groupID = instruction.groupID
        metadata.createdAt = now
        metadata.ttl = instruction.createdAt + instruction.ttl - now
        metadata.messageType = instruction.messageType
        if instruction.hasDstTaskID { metadata.srcTaskID = instruction.dstTaskID }
        if instruction.hasSrcTaskID { metadata.dstTaskID = instruction.srcTaskID }
        return FlowerMessage(metadata: metadata, content: content, error: error)
    }

    /// The message as a SuperNode pushes it, `id` being its object's id: the metadata with that
    /// id, and the error or an empty content (the content itself travels as objects).
    func pushed(id: String) -> Flower_Fleet_Message {
        var message = Flower_Fleet_Message()
        message.metadata = metadata
        message.metadata.messageID = id
        if let error { message.error = error } else { message.content = Flower_Fleet_RecordDict() }
        return message
    }
}
