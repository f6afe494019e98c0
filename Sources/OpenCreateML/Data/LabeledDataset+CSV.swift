import Foundation

/// Labeled rows from a CSV file, one example per line: the class index first, then the values (the
/// seed's `mnist_train.csv`). A first line whose first field is not a number (or is empty) is a header
/// and is skipped.
/// gzip-compressed files are read too.
extension LabeledDataset {
    /// The examples in the file at `path`, values multiplied by `scale` (1/255 for 8-bit pixels).
    static func csv(path: String, scale: Float, name: String? = nil) throws -> LabeledDataset {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw CreateMLError(path, "no such file")
        }
        guard !isFolder.boolValue else { throw CreateMLError(path, "a folder, not a CSV file") }
        var data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CreateMLError(path, "cannot be read (\(error.localizedDescription))")
        }
        if Gzip.isCompressed(data) { data = try Gzip.decompress(data, path: path) }
        return try parseCSV(data, path: path, scale: scale, name: name ?? URL(fileURLWithPath: path).lastPathComponent)
    }

    /// The examples in `data`, the contents of the file at `path` (named in errors).
    static func parseCSV(_ data: Data, path: String, scale: Float, name: String) throws -> LabeledDataset {
        var values: [Float] = []
        var labels: [Int] = []
        var columns: Int?  // expected per line, from the header or the first data line
        var columnsLine = 0
        var headerLine: Int?
        var isFirstLine = true
        try data.withUnsafeBytes { bytes in
            try CSVScanner.forEachLine(in: bytes) { line, lineNumber in
                defer { isFirstLine = false }
                var fieldCount = 0
                if isFirstLine {
                    var firstField = UnsafeRawBufferPointer(start: nil, count: 0)
                    CSVScanner.forEachField(in: line) { field, column in
                        if column == 1 { firstField = field }
                        fieldCount = column
                    }
                    if [.notANumber, .empty].contains(CSVScanner.number(firstField)) {
                        columns = fieldCount
                        columnsLine = lineNumber
                        headerLine = lineNumber
                        return
                    }
                }
                if let columns { values.reserveCapacity(values.count + columns - 1) }
                try CSVScanner.forEachField(in: line) { field, column in
                    fieldCount = column
                    if let columns, column > columns { return }  // reported below with the count
                    let value = try CSVScanner.finiteNumber(field, path: path, line: lineNumber, column: column)
                    if column == 1 {
                        guard value >= 0 && value == value.rounded() && value < Double(LabeledDataset.classIndexLimit) else {
                            throw CreateMLError(path, "line \(lineNumber), column 1: label \(CSVScanner.quoted(field)) is not a class index (a whole number from 0 to \(LabeledDataset.classIndexLimit - 1))")
                        }
                        labels.append(Int(value))
                    } else {
                        values.append(Float(value) * scale)
                    }
                }
                if fieldCount < 2 {
                    throw CreateMLError(path, "line \(lineNumber): a label but no values")
                }
                if let columns, fieldCount != columns {
                    let reference = headerLine == columnsLine ? "the header on line \(columnsLine)" : "line \(columnsLine)"
                    throw CreateMLError(path, "line \(lineNumber): \(fieldCount) columns, expected \(columns) like \(reference)")
                }
                if columns == nil {
                    columns = fieldCount
                    columnsLine = lineNumber
                }
            }
        }
        guard let columns, !labels.isEmpty else {
            throw CreateMLError(path, headerLine != nil ? "no data lines, only a header" : data.isEmpty ? "empty file" : "no data lines")
        }
        return LabeledDataset(name: name, count: labels.count, featureCount: columns - 1, values: values, labels: labels)
    }
}
