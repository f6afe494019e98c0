import CoreMLSpec
import Foundation

/// A JSON input value: a number (shape `[]`) or nested arrays of numbers, the same length at each depth.
enum JSONArray {
    /// The numbers in `data` (the contents of `path`) in C order, and the shape.
    static func read(_ data: Data, path: String) throws -> (values: [Double], shape: [Int]) {
        let root: Node
        do {
            root = try JSONDecoder().decode(Node.self, from: data)
        } catch {
            throw CreateMLError(path, "not valid JSON (\(reason(error)))")
        }
        var shape: [Int] = []
        var node = root
        while case .array(let items) = node {
            shape.append(items.count)
            guard let first = items.first else { break }
            node = first
        }
        var values: [Double] = []
        // The first items' lengths promise this many numbers; the file cannot hold more than one per byte.
        values.reserveCapacity(min(checkedProduct(shape) ?? 0, data.count))
        try flatten(root, depth: 0, index: "", shape: shape, into: &values, path: path)
        return (values, shape)
    }

    /// A decoded JSON value, reduced to what matters here.
    private indirect enum Node: Decodable {
        case number(Double)
        case array([Node])
        case other(String)

        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .other("null")
            } else if (try? container.decode(Bool.self)) != nil {
                self = .other("a boolean")
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let items = try? container.decode([Node].self) {
                self = .array(items)
            } else if (try? container.decode(String.self)) != nil {
                self = .other("a string")
            } else {
                self = .other("an object")
            }
        }
    }

    private static func flatten(_ node: Node, depth: Int, index: String, shape: [Int], into values: inout [Double], path: String) throws {
        let place = index.isEmpty ? "the top-level value" : "element \(index)"
        if depth == shape.count {
            switch node {
            case .number(let value): values.append(value)
            case .array: throw CreateMLError(path, "not rectangular: \(place) is an array, expected a number (shape \(shape) from the first elements)")
            case .other(let kind): throw CreateMLError(path, "\(place) is \(kind), expected a number")
            }
            return
        }
        switch node {
        case .array(let items) where items.count == shape[depth]:
            for (position, item) in items.enumerated() {
                try flatten(item, depth: depth + 1, index: index + "[\(position)]", shape: shape, into: &values, path: path)
            }
        case .array(let items):
            throw CreateMLError(path, "not rectangular: \(place) has \(items.count) items, expected \(shape[depth]) (shape \(shape) from the first elements)")
        case .number:
            throw CreateMLError(path, "not rectangular: \(place) is a number, expected an array of \(shape[depth]) (shape \(shape) from the first elements)")
        case .other(let kind):
            throw CreateMLError(path, "\(place) is \(kind), expected a number or an array")
        }
    }

    private static func reason(_ error: Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }
}
