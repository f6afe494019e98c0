import COpenCoreML
import Foundation
import OpenCreateML

/// An `ocm_table`: named columns built from the caller's buffers (copied), in the order they were
/// added, as the `MLDataTable` the trainers read.
final class CTable {
    var table = MLDataTable()

    func add(_ column: MLUntypedColumn, named name: String) throws {
        guard !table.columnNames.contains(name) else { throw CInterfaceError.argument("the table already has a column '\(name)'") }
        if table.size.columns > 0, column.count != table.size.rows {
            throw CInterfaceError.argument("column '\(name)' has \(column.count) values, but the table's other columns have \(table.size.rows)")
        }
        table.addColumn(column, named: name)
        if let error = table.error { throw CInterfaceError.argument("column '\(name)': \(error)") }
    }
}

@_cdecl("ocm_table_create")
public func ocmTableCreate() -> OpaquePointer { Handle<CTable>.retain(CTable()) }

@_cdecl("ocm_table_free")
public func ocmTableFree(_ table: OpaquePointer?) { Handle<CTable>.release(table) }

@_cdecl("ocm_table_row_count")
public func ocmTableRowCount(_ table: OpaquePointer?) -> Int {
    guard let table else { return 0 }
    return Handle<CTable>.borrow(table).table.size.rows
}

/// Reads `count` flags (non-zero: missing), or none when `missing` is NULL.
private func flags(_ missing: UnsafePointer<UInt8>?, _ count: Int) -> [Bool]? {
    guard let missing else { return nil }
    return (0..<count).map { missing[$0] != 0 }
}

/// The values as a column, `.invalid` where `missing` says so.
private func column<T: MLDataValueConvertible>(_ values: [T], missing: [Bool]?) -> MLUntypedColumn {
    guard let missing, missing.contains(true) else { return MLUntypedColumn(values) }
    return MLUntypedColumn(zip(values, missing).map { $1 ? MLDataValue.invalid : $0.dataValue })
}

private func addColumn(_ table: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ count: Int, _ what: String,
                       _ error: UnsafeMutablePointer<OpaquePointer?>?, _ make: () throws -> MLUntypedColumn) -> ocm_status {
    status(error) {
        guard let table else { throw CInterfaceError.argument("\(what): table is NULL") }
        let name = try string(name, "\(what): name")
        guard count >= 0 else { throw CInterfaceError.argument("\(what): count is negative") }
        try Handle<CTable>.borrow(table).add(try make(), named: name)
    }
}

@_cdecl("ocm_table_add_doubles")
public func ocmTableAddDoubles(_ table: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ values: UnsafePointer<Double>?,
                               _ missing: UnsafePointer<UInt8>?, _ count: Int, _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    addColumn(table, name, count, "ocm_table_add_doubles", error) {
        guard let values = values ?? (count == 0 ? UnsafePointer(bitPattern: 8) : nil) else { throw CInterfaceError.argument("ocm_table_add_doubles: values is NULL") }
        let array = Array(UnsafeBufferPointer(start: values, count: count))
        // A NaN is a missing value, as in Turi Create's float columns.
        var missing = flags(missing, count) ?? [Bool](repeating: false, count: count)
        for (row, value) in array.enumerated() where value.isNaN { missing[row] = true }
        return column(array, missing: missing)
    }
}

@_cdecl("ocm_table_add_int64s")
public func ocmTableAddInt64s(_ table: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ values: UnsafePointer<Int64>?,
                              _ missing: UnsafePointer<UInt8>?, _ count: Int, _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    addColumn(table, name, count, "ocm_table_add_int64s", error) {
        guard let values = values ?? (count == 0 ? UnsafePointer(bitPattern: 8) : nil) else { throw CInterfaceError.argument("ocm_table_add_int64s: values is NULL") }
        return column(UnsafeBufferPointer(start: values, count: count).map { Int($0) }, missing: flags(missing, count))
    }
}

@_cdecl("ocm_table_add_strings")
public func ocmTableAddStrings(_ table: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ offsets: UnsafePointer<Int64>?,
                               _ bytes: UnsafePointer<UInt8>?, _ missing: UnsafePointer<UInt8>?, _ count: Int,
                               _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    addColumn(table, name, count, "ocm_table_add_strings", error) {
        guard let offsets else { throw CInterfaceError.argument("ocm_table_add_strings: offsets is NULL") }
        let end = Int(offsets[count])
        guard end == 0 || bytes != nil else { throw CInterfaceError.argument("ocm_table_add_strings: bytes is NULL") }
        var strings: [String] = []
        strings.reserveCapacity(count)
        for row in 0..<count {
            let start = Int(offsets[row]), stop = Int(offsets[row + 1])
            guard start >= 0, start <= stop, stop <= end else {
                throw CInterfaceError.argument("ocm_table_add_strings: offsets[\(row)...\(row + 1)] = \(start)...\(stop) are not increasing within 0...\(end)")
            }
            let buffer = UnsafeBufferPointer(start: bytes.map { $0 + start }, count: stop - start)
            guard let text = String(validating: buffer, as: UTF8.self) else {
                throw CInterfaceError.argument("ocm_table_add_strings: row \(row) of the column is not valid UTF-8")
            }
            strings.append(text)
        }
        return column(strings, missing: flags(missing, count))
    }
}

@_cdecl("ocm_table_add_vectors")
public func ocmTableAddVectors(_ table: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ values: UnsafePointer<Double>?, _ width: Int,
                               _ missing: UnsafePointer<UInt8>?, _ count: Int, _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    addColumn(table, name, count, "ocm_table_add_vectors", error) {
        guard width > 0 else { throw CInterfaceError.argument("ocm_table_add_vectors: width must be positive, got \(width)") }
        guard let values = values ?? (count == 0 ? UnsafePointer(bitPattern: 8) : nil) else { throw CInterfaceError.argument("ocm_table_add_vectors: values is NULL") }
        let (cells, overflow) = count.multipliedReportingOverflow(by: width)
        guard !overflow else { throw CInterfaceError.argument("ocm_table_add_vectors: \(count) × \(width) values overflow") }
        let missing = flags(missing, count)
        let cellsBuffer = UnsafeBufferPointer(start: values, count: cells)
        let boxed: [MLDataValue] = (0..<count).map { row in
            if missing?[row] == true { return .invalid }
            return .multiArray(MLDataValue.MultiArrayType(shape: [width], scalars: Array(cellsBuffer[(row * width)..<((row + 1) * width)]))!)
        }
        return MLUntypedColumn(boxed)
    }
}
