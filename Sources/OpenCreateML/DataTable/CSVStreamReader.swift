import Foundation
#if canImport(Glibc)
import Glibc
#endif
import _OpenCoreMLEngine
import _OpenCoreMLFormats

/// Reads a CSV file into a table a piece at a time: the file's bytes pass through a buffer of a
/// few megabytes (whole rows of it at a time: a row cut by the buffer's end waits for the next
/// read), the complete rows are cut into fields, and the columns parse their fields of each block
/// in parallel, each column in its own ``CSVColumnBuilder``. So the peak memory holds the columns
/// and one buffer, not the file; and the numbers are parsed on every thread.
///
/// The result is the table ``CSVReader/table(_:columnTypes:blockRows:)`` makes from the whole
/// file's bytes, and anything this reader cannot do the same way it leaves to that one (``read()``
/// returns nil): a file that cannot be opened or is not a regular file (a pipe), any error in the file (so the error names its line
/// and column exactly as it did), and a row longer than the file's remaining bytes can hold. A
/// column that must become text (or doubles whose integers do not read back exactly) after its
/// first block needs the earlier rows' texts again, which are gone: the file is read again with
/// that column of that kind from its first row, which gives the same column.
struct CSVStreamReader {
    let path: String
    let reader: CSVReader
    let columnTypes: [String: MLDataValue.ValueType]
    /// The buffer's starting size, and how much is read at a time (tests use a few bytes).
    var chunkBytes = 4 << 20
    /// The most spans a block holds (a block is as many complete rows as the buffer has, up to
    /// this). Each column reads its fields of a block in turn, so a block's bytes and spans are
    /// kept small enough to stay in a core's cache while the columns pass over them: 16,384 spans
    /// (about 400 KB of spans and, at 9 significant digits, 150 KB of text).
    var blockSpans = 1 << 14
    var slots = Int(Int32.max)

    private enum Pass {
        case table(MLDataTable)
        case wholeFile
        case again([String: CSVColumnBuilder.Kind])
    }

    /// The table, or nil when the whole-file reader must read this file (see the type's doc).
    func read() -> MLDataTable? {
        // A type no column can be forced to: the whole-file reader's error.
        guard columnTypes.values.allSatisfy({ [.int, .double, .string].contains($0) }) else { return nil }
        var kinds: [String: CSVColumnBuilder.Kind] = [:]
        // Each pass that ends in `.again` widens at least one column, and a column widens at most twice.
        while true {
            switch readPass(kinds) {
            case .table(let table): return table
            case .wholeFile: return nil
            case .again(let wider):
                guard wider.contains(where: { kinds[$0.key] != $0.value }) else { return nil }
                kinds.merge(wider) { _, new in new }
            }
        }
    }

    private func readPass(_ kinds: [String: CSVColumnBuilder.Kind]) -> Pass {
        guard let file = ChunkedFile(path: path, capacity: max(16, chunkBytes)) else { return .wholeFile }
        // The header (or the first row, without one) must be whole in the first buffer.
        let names: [String], selected: [Int]
        var position: Int
        while true {
            guard file.fill() else { return .wholeFile }
            let bytes = file.bytes
            var tokenizer = reader.tokenizer(bytes)
            let firstRowStart = tokenizer.position
            var first: [CSVReader.Span] = []
            let found: Bool
            do { found = try tokenizer.nextRow(into: &first) } catch {
                if file.atEnd { return .wholeFile }
                file.grow()
                continue
            }
            if !file.atEnd, !found || tokenizer.position >= bytes.count {
                file.grow()
                continue
            }
            guard found, let header = try? reader.rows(bytes) else { return .wholeFile }
            names = header.names
            selected = header.selected
            position = reader.options.containsHeader ? tokenizer.position : firstRowStart
            break
        }

        let width = names.count, stride = selected.count
        var builders = selected.map { column in
            var builder = CSVColumnBuilder(name: names[column], forced: columnTypes[names[column]], initial: kinds[names[column]])
            builder.streaming = true
            return builder
        }
        let limit = reader.options.maxRows ?? Int.max
        let blockRows = max(1, blockSpans / max(1, stride))
        var rowCount = 0
        var spans: [CSVReader.Span] = []
        var row: [CSVReader.Span] = []
        var finished = false
        var reserved = false
        while !finished {
            spans.removeAll(keepingCapacity: true)
            let bytes = file.bytes
            var tokenizer = reader.tokenizer(bytes)
            tokenizer.position = position
            tokenizer.columnNames = names
            var count = 0
            var needsMore = false
            // Every column kept: a row's fields go straight into the block's spans.
            let direct = stride == width
            while count < blockRows, rowCount + count < limit {
                let rowStart = tokenizer.position
                let spansBefore = spans.count
                row.removeAll(keepingCapacity: true)
                let found: Bool
                do { found = direct ? try tokenizer.nextRow(into: &spans) : try tokenizer.nextRow(into: &row) } catch {
                    // A quoted field cut by the buffer's end, or an error: read on, or leave the error to the whole-file reader.
                    if file.atEnd { return .wholeFile }
                    spans.removeSubrange(spansBefore...)
                    tokenizer.position = rowStart
                    needsMore = true
                    break
                }
                if !found || (tokenizer.position >= bytes.count && !file.atEnd) {
                    spans.removeSubrange(spansBefore...)
                    tokenizer.position = rowStart
                    if file.atEnd { finished = true } else { needsMore = true }
                    break
                }
                if direct {
                    guard spans.count - spansBefore == width else { return .wholeFile }
                } else {
                    guard row.count == width else { return .wholeFile }
                    for c in selected { spans.append(row[c]) }
                }
                count += 1
            }
            if rowCount + count >= limit { finished = true }
            if count > 0 {
                let base = rowCount
                var failed = false
                builders.withUnsafeMutableBufferPointer { columns in
                    let columns = columns
                    parallelForEach(columns.count, slots: slots) { _, k in
                        do {
                            try columns[k].append(spans, stride: stride, offset: k, rows: count, base: base, reader: reader,
                                                  bytes: bytes, blockRows: blockRows)
                        } catch {
                            // Not reached (a streaming column never reads earlier blocks again); the whole-file reader would say.
                            columns[k].error = CreateMLError(reader.location, "\(error)")
                        }
                    }
                }
                for builder in builders where builder.error != nil { failed = true }
                if failed { return .wholeFile }
                let wider = builders.compactMap { builder in builder.restartAs.map { (builder.name, $0) } }
                if !wider.isEmpty { return .again(kinds.merging(wider) { _, new in new }) }
                rowCount += count
                if !reserved, !finished, let size = file.size, tokenizer.position > 0 {
                    // After the first block (each column's kind known): room for the rows the file's
                    // size implies at this block's bytes per row, and a few more.
                    let estimate = Int(Double(size) / Double(tokenizer.position) * Double(count) * 1.02) + 16
                    let rows = min(limit, estimate)
                    for k in builders.indices { builders[k].reserve(rows) }
                    reserved = true
                }
            }
            position = tokenizer.position
            if needsMore {
                guard file.refill(dropping: position) else { return .wholeFile }
                position = 0
            }
        }
        var table = MLDataTable()
        table.rowCount = rowCount
        for builder in builders {
            table.names.append(builder.name)
            table.columns.append(builder.finish())
        }
        if table.names.isEmpty { table.rowCount = 0 }
        return .table(table)
    }
}

/// A file read through one buffer: ``fill()`` reads until the buffer is full or the file ends,
/// ``refill(dropping:)`` keeps the bytes not yet used and reads after them, ``grow()`` doubles it.
private final class ChunkedFile {
    let descriptor: Int32
    private(set) var buffer: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    private(set) var filled = 0
    private(set) var atEnd = false
    /// The file's size in bytes when it was opened.
    let size: Int?

    /// Nil when `path` cannot be opened or is not a regular file (a pipe could not be read again
    /// for a second pass, nor by the whole-file reader after an error).
    init?(path: String, capacity: Int) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        size = Int(status.st_size)
        self.capacity = capacity
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        close(descriptor)
        buffer.deallocate()
    }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: buffer, count: filled) }

    /// Reads until the buffer is full or the file ends; false on a read error.
    func fill() -> Bool {
        while filled < capacity, !atEnd {
            let got = read(descriptor, buffer + filled, capacity - filled)
            if got < 0 {
                if errno == EINTR { continue }
                return false
            }
            if got == 0 { atEnd = true } else { filled += got }
        }
        return true
    }

    /// Drops the first `consumed` bytes (every row in them is read) and reads on; doubles the
    /// buffer first when nothing was dropped from a full one (a row longer than it).
    func refill(dropping consumed: Int) -> Bool {
        if consumed > 0 {
            memmove(buffer, buffer + consumed, filled - consumed)
            filled -= consumed
        } else if filled == capacity {
            grow()
        }
        return fill()
    }

    func grow() {
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
        larger.update(from: buffer, count: filled)
        buffer.deallocate()
        buffer = larger
        capacity *= 2
    }
}
