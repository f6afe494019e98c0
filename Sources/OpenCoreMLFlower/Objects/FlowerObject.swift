import Crypto
import Foundation

/// One of Flower's content-addressed objects, as a SuperNode pushes and pulls them: a head
/// `"<Type> <child id>,<child id>,… <body length>"`, a zero byte, then the body. The object's id is
/// the SHA-256 (lowercase hex) of those bytes, so an object names its children by their content.
///
/// Types: `Message` (body: the message's protobuf with metadata and error, no content),
/// `RecordDict`, `ArrayRecord` (bodies: JSON maps from names to child ids), `ConfigRecord`,
/// `MetricRecord` (bodies: protobuf), `Array` (body: JSON with dtype, shape, stype and chunk
/// indices) and `ArrayChunk` (body: raw bytes of the array's `.npy` data).
struct FlowerObject: Equatable {
    /// The class name in the head, e.g. `ArrayRecord`.
    var type: String
    /// The ids of the object's distinct children, in order.
    var children: [String]
    /// What follows the head.
    var body: Data

    /// The bytes that travel and that the id hashes.
    var content: Data {
        var data = Data("\(type) \(children.joined(separator: ",")) \(body.count)".utf8)
        data.append(0)
        data.append(body)
        return data
    }

    /// The object's id: SHA-256 of ``content``, lowercase hex.
    var id: String { Self.id(of: content) }

    /// SHA-256 of `content`, lowercase hex (64 characters).
    static func id(of content: Data) -> String {
        SHA256.hash(data: content).map { String(format: "%02x", $0) }.joined()
    }

    init(type: String, children: [String], body: Data) {
        self.type = type
        self.children = children
        self.body = body
    }

    /// Parses pulled bytes, checking that they are what `expectedID` names and that the head is
    /// well formed (three parts, 64-hex child ids, the stated body length).
    init(content: Data, expectedID: String) throws {
        let actual = Self.id(of: content)
        guard actual == expectedID else {
            throw FlowerClientError.protocolViolation("object \(expectedID) arrived with content whose SHA-256 is \(actual)")
        }
        guard let divider = content.firstIndex(of: 0) else {
            throw FlowerClientError.protocolViolation("object \(expectedID) has no head")
        }
        let head = String(decoding: content[content.startIndex..<divider], as: UTF8.self)
        let parts = head.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, let length = Int(parts[2]) else {
            throw FlowerClientError.protocolViolation("object \(expectedID) has a malformed head '\(head.prefix(200))'")
        }
        let children = parts[1].isEmpty ? [] : parts[1].split(separator: ",").map(String.init)
        guard children.allSatisfy(Self.isObjectID) else {
            throw FlowerClientError.protocolViolation("object \(expectedID) names a child that is not a SHA-256 id")
        }
        let body = content[content.index(after: divider)...]
        guard body.count == length else {
            throw FlowerClientError.protocolViolation("object \(expectedID) says its body has \(length) bytes but has \(body.count)")
        }
        self.init(type: String(parts[0]), children: children, body: Data(body))
    }

    /// Whether `text` looks like an object id: 64 hexadecimal digits.
    static func isObjectID(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }
    }
}
