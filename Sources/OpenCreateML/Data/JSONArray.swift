import CoreMLSpec
import Foundation
import _OpenCoreMLFormats

/// A JSON input value: a number (shape `[]`) or nested arrays of numbers, the same length at each
/// depth. NaN and infinities are values: the bare words `NaN`, `Infinity` and `-Infinity` (as
/// Python's `json` module writes them) and `null` (a missing value, as pandas writes NaN) read as
/// NaN and ±infinity.
///
/// Read by `_OpenCoreMLFormats`' `JSONReader` (our own parser, bounded in depth and in bytes read),
/// not by Foundation's `JSONDecoder` in JSON5 mode, which accepts the same words but traps on some
/// inputs that end in them.
enum JSONArray {
    /// The numbers in `data` (the contents of `path`) in C order, and the shape.
    static func read(_ data: Data, path: String) throws -> (values: [Double], shape: [Int]) {
        let root = try document(data, path: path)
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

    /// The JSON object of numbers in the file at `path`, for the dictionary input `name`: keys as
    /// they are, or as whole numbers when `int64Keys`.
    static func dictionary(path: String, int64Keys: Bool, name: String) throws -> [AnyHashable: NSNumber] {
        guard URL(fileURLWithPath: path).pathExtension.lowercased() == "json" else {
            throw CreateMLError(path, "input '\(name)' is a dictionary; give it as a .json file")
        }
        let example = int64Keys ? "{\"0\": 1.5, \"3\": 2}" : "{\"a\": 1.5, \"b\": 2}"
        guard case .object(let entries) = try document(ArrayFile.contents(path: path), path: path) else {
            throw CreateMLError(path, "input '\(name)' is a dictionary; the file must hold one JSON object of numbers, e.g. \(example)")
        }
        var dictionary: [AnyHashable: NSNumber] = [:]
        for (key, value) in entries {
            guard let number = number(value) else {
                throw CreateMLError(path, "key \"\(key)\": \(kind(value)), expected a number (input '\(name)' is a dictionary of numbers)")
            }
            if int64Keys {
                guard let integer = Int64(key) else {
                    throw CreateMLError(path, "key \"\(key)\" is not a whole number; input '\(name)' has Int64 keys")
                }
                dictionary[AnyHashable(integer)] = NSNumber(value: number)
            } else {
                dictionary[AnyHashable(key)] = NSNumber(value: number)
            }
        }
        return dictionary
    }

    /// The one JSON value in `data` (the contents of `path`), `NaN`, `Infinity` and `-Infinity` included.
    private static func document(_ data: Data, path: String) throws -> JSONValue {
        try CreateMLError.reading {
            try data.withUnsafeBytes { raw throws(FormatError) -> JSONValue in
                var reader = JSONReader(location: path, bytes: raw.bindMemory(to: UInt8.self), allowsNonFiniteNumbers: true)
                return try reader.readDocument()
            }
        }
    }

    /// A value that is not a number or an array, as an error message names it.
    private static func kind(_ value: JSONValue) -> String {
        switch value {
        case .bool: "a boolean"
        case .string: "a string"
        case .object: "an object"
        case .array: "an array"
        default: "a number"
        }
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let integer): Double(integer)
        case .double(let number): number
        case .null: .nan
        default: nil
        }
    }

    private static func flatten(_ node: JSONValue, depth: Int, index: String, shape: [Int], into values: inout [Double], path: String) throws {
        let place = index.isEmpty ? "the top-level value" : "element \(index)"
        if depth == shape.count {
            if let number = number(node) {
                values.append(number)
            } else if case .array = node {
                throw CreateMLError(path, "not rectangular: \(place) is an array, expected a number (shape \(shape) from the first elements)")
            } else {
                throw CreateMLError(path, "\(place) is \(kind(node)), expected a number")
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
        case _ where number(node) != nil:
            throw CreateMLError(path, "not rectangular: \(place) is a number, expected an array of \(shape[depth]) (shape \(shape) from the first elements)")
        default:
            throw CreateMLError(path, "\(place) is \(kind(node)), expected a number or an array")
        }
    }
}
