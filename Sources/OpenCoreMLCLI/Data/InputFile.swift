import ArgumentParser
import Foundation

/// The array in an input file for `predict`, by extension: `.npy` (see `NPYFile`), `.json` (a number or
/// rectangular nested arrays of numbers) or `.csv` (one row of numbers, shape `[n]`). Values in C order.
func loadInputArray(path: String) throws -> (values: [Double], shape: [Int]) {
    let fileExtension = URL(fileURLWithPath: path).pathExtension.lowercased()
    guard ["npy", "json", "csv"].contains(fileExtension) else {
        throw CLIError.file(path, "unsupported input file; use .npy, .json or .csv")
    }
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw CLIError.file(path, "no such file") }
    guard !isFolder.boolValue else { throw CLIError.file(path, "a folder, not an input file") }
    let data: Data
    do {
        data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw CLIError.file(path, "cannot be read (\(error.localizedDescription))")
    }
    switch fileExtension {
    case "npy": return try NPYFile.read(data, path: path)
    case "json": return try JSONArray.read(data, path: path)
    default: return try readCSVRow(data, path: path)
    }
}

/// `NAME=PATH` from an `--input` option: the model input's name and the file holding its value.
/// The name ends at the first `=`, so paths may contain `=`. Throws a usage error (exit code 2).
func parseInputAssignment(_ text: String) throws -> (name: String, path: String) {
    guard let equals = text.firstIndex(of: "=") else {
        throw ValidationError("--input '\(text)': expected NAME=PATH, e.g. image=digit.npy")
    }
    let name = String(text[..<equals]).trimmingCharacters(in: .whitespaces)
    let path = String(text[text.index(after: equals)...])
    guard !name.isEmpty else { throw ValidationError("--input '\(text)': the input name before '=' is empty") }
    guard !path.isEmpty else { throw ValidationError("--input '\(text)': the file path after '=' is empty") }
    return (name, path)
}

/// One row of comma-separated numbers.
private func readCSVRow(_ data: Data, path: String) throws -> (values: [Double], shape: [Int]) {
    var values: [Double] = []
    var rowLine: Int?
    try data.withUnsafeBytes { bytes in
        try CSVScanner.forEachLine(in: bytes) { line, lineNumber in
            if let rowLine {
                throw CLIError.file(path, "line \(lineNumber): a second row (the first is line \(rowLine)); an input .csv holds one row of numbers")
            }
            rowLine = lineNumber
            try CSVScanner.forEachField(in: line) { field, column in
                switch CSVScanner.number(field) {
                case .number(let value): values.append(value)
                case .notFinite: throw CLIError.file(path, "line \(lineNumber), column \(column): \(CSVScanner.quoted(field)) is not a finite number")
                case .notANumber: throw CLIError.file(path, "line \(lineNumber), column \(column): \(CSVScanner.quoted(field)) is not a number")
                case .empty: throw CLIError.file(path, "line \(lineNumber), column \(column): empty field")
                }
            }
        }
    }
    guard rowLine != nil else { throw CLIError.file(path, "no numbers (the file is empty)") }
    return (values, [values.count])
}
