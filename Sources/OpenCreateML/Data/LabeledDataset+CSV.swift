import Foundation
import _OpenCoreMLFormats

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

    /// The examples in `data`, the contents of the file at `path` (named in errors), read row by row
    /// with the one CSV reader (no spans kept: a 100 MB file is parsed as it is scanned).
    static func parseCSV(_ data: Data, path: String, scale: Float, name: String) throws -> LabeledDataset {
        var values: [Float] = []
        var labels: [Int] = []
        var columns: Int?  // expected per line, from the header or the first data line
        var columnsOffset = 0  // where the line that set `columns` starts
        var hasHeader = false
        let reader = try CreateMLError.reading { try CSVReader(location: path, options: CSVReader.numericOptions) }
        try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var tokenizer = reader.tokenizer(bytes)
            var row: [CSVReader.Span] = []
            func line(_ offset: Int) -> Int { reader.line(at: offset, in: bytes) }
            var isFirstRow = true
            while true {
                row.removeAll(keepingCapacity: true)
                tokenizer.skipBlankLines()
                let rowStart = tokenizer.position
                guard try CreateMLError.reading({ try tokenizer.nextRow(into: &row) }) else { break }
                defer { isFirstRow = false }
                if isFirstRow, [.notANumber, .empty].contains(reader.number(row[0], bytes)) {
                    // A first line whose first field is not a number is a header.
                    columns = row.count
                    columnsOffset = rowStart
                    hasHeader = true
                    continue
                }
                let fieldCount = row.count
                for column in 0..<Swift.min(fieldCount, columns ?? fieldCount) {
                    let value = try CreateMLError.reading { try reader.finiteNumber(row[column], bytes, rowStart: rowStart, column: column + 1) }
                    if column == 0 {
                        guard value >= 0 && value == value.rounded() && value < Double(LabeledDataset.classIndexLimit) else {
                            throw CreateMLError(path, "line \(line(rowStart)), column 1: label \(reader.quoted(row[0], bytes)) is not a class index (a whole number from 0 to \(LabeledDataset.classIndexLimit - 1))")
                        }
                        labels.append(Int(value))
                    } else {
                        values.append(Float(value) * scale)
                    }
                }
                if fieldCount < 2 {
                    throw CreateMLError(path, "line \(line(rowStart)): a label but no values")
                }
                if let columns, fieldCount != columns {
                    let reference = hasHeader ? "the header on line \(line(columnsOffset))" : "line \(line(columnsOffset))"
                    throw CreateMLError(path, "line \(line(rowStart)): \(fieldCount) columns, expected \(columns) like \(reference)")
                }
                if columns == nil {
                    columns = fieldCount
                    columnsOffset = rowStart
                    // Room for as many rows as the first one's length suggests (capped by the file).
                    let estimate = (bytes.count - rowStart) / Swift.max(1, tokenizer.position - rowStart) + 1
                    values.reserveCapacity(Swift.min(estimate * (fieldCount - 1), bytes.count))
                }
            }
        }
        guard let columns, !labels.isEmpty else {
            throw CreateMLError(path, hasHeader ? "no data lines, only a header" : data.isEmpty ? "empty file" : "no data lines")
        }
        return LabeledDataset(name: name, count: labels.count, featureCount: columns - 1, values: values, labels: labels)
    }
}
