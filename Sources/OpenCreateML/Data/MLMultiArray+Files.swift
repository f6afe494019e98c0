import CoreMLSpec
import Foundation
import OpenCoreML
import _OpenCoreMLFormats

extension MLMultiArray {
    /// The array in a file, by its extension (an OpenCoreML addition): `.npy` (NumPy, format 1.0 to
    /// 3.0, little-endian f4, f8, i4, i8, u1 or i1, C order), `.json` (a number, or nested arrays of
    /// numbers of equal length at each depth) or `.csv` (one row of numbers, shape `[n]`). Values
    /// are stored as `dataType`. NaN and infinities are values like any other (as Core ML passes
    /// them to a model: an imputer replaces NaN, a tree sends it down its missing-value branch);
    /// JSON files may write them as `NaN`, `Infinity`, `-Infinity` (as Python's `json` does) or
    /// `null` (NaN), CSV files as `nan`, `inf`, `-inf`. Errors name the file and what is wrong.
    public convenience init(contentsOf url: URL, dataType: MLMultiArrayDataType = .float32) throws {
        let (values, shape) = try ArrayFile.read(path: url.path)
        try self.init(values: values, shape: shape, dataType: dataType, path: url.path)
    }

    /// The array in NumPy `.npy` bytes (see ``init(contentsOf:dataType:)``).
    public convenience init(npyData data: Data, dataType: MLMultiArrayDataType = .float32) throws {
        let (values, shape) = try CreateMLError.reading { try NPYFile.read(data, path: "npy data") }
        try self.init(values: values, shape: shape, dataType: dataType, path: "npy data")
    }

    private convenience init(values: [Double], shape: [Int], dataType: MLMultiArrayDataType, path: String) throws {
        try self.init(shape: (shape.isEmpty ? [1] : shape).map { NSNumber(value: $0) }, dataType: dataType)
        switch dataType {
        case .float32:
            let pointer = dataPointer.assumingMemoryBound(to: Float.self)
            for (index, value) in values.enumerated() { pointer[index] = Float(value) }
        case .double:
            dataPointer.assumingMemoryBound(to: Double.self).update(from: values, count: values.count)
        default:
            for (index, value) in values.enumerated() { self[index] = NSNumber(value: value) }
        }
    }

    /// The array as NumPy `.npy` bytes (format 1.0, C order, as `numpy.save` writes them; an
    /// OpenCoreML addition): little-endian `<f4` for float32 and float16 arrays, `<f8` for double,
    /// `<i4` for int32.
    public func npyData() -> Data {
        let shape = self.shape.map(\.intValue)
        switch dataType {
        case .double:
            let values = (0..<count).map { self[$0].doubleValue.bitPattern.littleEndian }
            return values.withUnsafeBytes { NPYFile.data(type: .float64, shape: shape, elements: $0) }
        case .int32:
            let values = (0..<count).map { self[$0].int32Value.littleEndian }
            return values.withUnsafeBytes { NPYFile.data(type: .int32, shape: shape, elements: $0) }
        default:
            let values = floatValues().map { $0.bitPattern.littleEndian }
            return values.withUnsafeBytes { NPYFile.data(type: .float32, shape: shape, elements: $0) }
        }
    }
}

extension MLFeatureValue {
    /// The value in an array file (see ``MLMultiArray/init(contentsOf:dataType:)``) for a model input
    /// described by `description` (an OpenCoreML addition; what `opencoreml predict --input` reads):
    /// a dictionary from a `.json` object of numbers (`{"a": 1.5}`; for Int64 keys the names are
    /// whole numbers, `{"3": 1}`; `NaN`, `Infinity` and `null` as in array files),
    /// one number for an integer or double input, or a multi-array: in the file's shape when the
    /// input is flexible and accepts it, else reshaped to the input's declared shape when the
    /// element counts agree. Values that are not finite pass as they are (see
    /// ``MLMultiArray/init(contentsOf:dataType:)``); an integer input needs a whole number.
    public convenience init(contentsOf url: URL, for description: MLFeatureDescription) throws {
        let path = url.path
        if description.type == .dictionary {
            try self.init(dictionary: try JSONArray.dictionary(path: path, int64Keys: description.dictionaryConstraint?.keyType == .int64,
                                                           name: description.name))
            return
        }
        let (numbers, shape) = try ArrayFile.read(path: path)
        switch description.type {
        case .int64 where numbers.count == 1:
            guard numbers[0] == numbers[0].rounded(), abs(numbers[0]) < 9.2e18 else {
                throw CreateMLError(path, "\(numbers[0]) is not a whole number for integer input '\(description.name)'")
            }
            self.init(int64: Int64(numbers[0]))
        case .double where numbers.count == 1:
            self.init(double: numbers[0])
        case .multiArray:
            let constraint = description.multiArrayConstraint
            var declared = constraint?.shape.map(\.intValue) ?? shape
            // A flexible input takes the file's own shape when it is one the input accepts.
            if let constraint, constraint.shapeConstraint.type != .unspecified, constraint.accepts(shape: shape) { declared = shape }
            guard checkedProduct(declared) == numbers.count else {
                let accepted = constraint.map { $0.shapeConstraint.type == .unspecified ? "takes shape \(declared)" : "accepts shapes \($0.acceptedShapesText)" }
                throw CreateMLError(path, "holds \(numbers.count) values (shape \(shape)); input '\(description.name)' \(accepted ?? "takes shape \(declared)")")
            }
            let array = try MLMultiArray(shape: declared.map { NSNumber(value: $0) }, dataType: .float32)
            for (index, number) in numbers.enumerated() { array[index] = NSNumber(value: number) }
            self.init(multiArray: array)
        default:
            throw CreateMLError("input '\(description.name)'", "it is a \(description.type); array files fill numbers and multi-arrays")
        }
    }
}

/// Arrays in `.npy`, `.json` and one-row `.csv` files, as numbers in C order and a shape.
enum ArrayFile {
    static func read(path: String) throws -> (values: [Double], shape: [Int]) {
        let fileExtension = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard ["npy", "json", "csv"].contains(fileExtension) else {
            throw CreateMLError(path, "unsupported array file; use .npy, .json or .csv")
        }
        let data = try contents(path: path)
        switch fileExtension {
        case "npy": return try CreateMLError.reading { try NPYFile.read(data, path: path) }
        case "json": return try JSONArray.read(data, path: path)
        default: return try readCSVRow(data, path: path)
        }
    }

    /// The bytes of the file at `path`; a missing file, a folder or a read failure is an error naming it.
    static func contents(path: String) throws -> Data {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw CreateMLError(path, "no such file") }
        guard !isFolder.boolValue else { throw CreateMLError(path, "a folder, not an array file") }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CreateMLError(path, "cannot be read (\(error.localizedDescription))")
        }
    }

    /// One row of comma-separated numbers.
    private static func readCSVRow(_ data: Data, path: String) throws -> (values: [Double], shape: [Int]) {
        let reader = try CreateMLError.reading { try CSVReader(location: path, options: CSVReader.numericOptions) }
        return try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var tokenizer = reader.tokenizer(bytes)
            var row: [CSVReader.Span] = []
            tokenizer.skipBlankLines()
            let rowStart = tokenizer.position
            guard try CreateMLError.reading({ try tokenizer.nextRow(into: &row) }) else {
                throw CreateMLError(path, "no numbers (the file is empty)")
            }
            let line = reader.line(at: rowStart, in: bytes)
            let values = try row.enumerated().map { column, span in
                try CreateMLError.reading { try reader.number(span, bytes, rowStart: rowStart, column: column + 1, finite: false) }
            }
            tokenizer.skipBlankLines()
            if tokenizer.position < bytes.count {
                throw CreateMLError(path, "line \(reader.line(at: tokenizer.position, in: bytes)): a second row (the first is line \(line)); an array .csv holds one row of numbers")
            }
            return (values, [values.count])
        }
    }
}
