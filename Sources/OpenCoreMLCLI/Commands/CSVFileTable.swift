import Foundation
import OpenCreateML

/// A CSV file read into a table (the activity and tabular commands' input), optionally sorted by a
/// time column (each session's rows keep that order), remembering each row's line in the file so
/// that errors name it.
struct CSVFileTable {
    let path: String
    let table: MLDataTable
    let columns: [String]
    /// The file line of each table row (the header is line 1).
    private let lines: [Int]

    init(path: String, timeColumn: String?) throws {
        self.path = path
        var table = try CLIError.wrapping { try MLDataTable(contentsOf: URL(fileURLWithPath: path)) }
        if let error = table.error { throw CLIError.file(path, "\(error)") }
        columns = table.columnNames.map { $0 }
        var lines = Array(2..<(table.size.rows + 2))
        if let timeColumn {
            guard columns.contains(timeColumn) else {
                throw CLIError.file(path, "there is no column '\(timeColumn)' (columns: \(columns.joined(separator: ", ")))")
            }
            let lineColumn = "\u{1}line"
            table.addColumn(MLDataColumn(lines), named: lineColumn)
            table = table.sort(columnNamed: timeColumn)
            if let error = table.error { throw CLIError.file(path, "cannot sort by '\(timeColumn)': \(error)") }
            let sortedLines = table[lineColumn].ints!
            lines = (0..<sortedLines.count).map { sortedLines[$0] }
            table.removeColumn(named: lineColumn)
        }
        self.table = table
        self.lines = lines
    }

    func line(ofRow row: Int) -> Int { row < lines.count ? lines[row] : row + 2 }

    /// The library's error as one line naming the file, the line and the column of a bad value.
    func locate(_ error: Error, validation: CSVFileTable? = nil) -> Error {
        guard let error = error as? CreateMLError else { return CLIError.wrap(error) }
        let file = error.location.hasPrefix("validationData") ? (validation ?? self) : self
        guard let row = error.row else {
            let tables = ["trainingData", "validationData", "testingData", "data"]
            return tables.contains(error.location) ? CLIError.file(file.path, error.message) : CLIError.wrap(error)
        }
        return CLIError.file("\(file.path):\(file.line(ofRow: row))", (error.column.map { "column '\($0)': " } ?? "") + error.message)
    }
}
