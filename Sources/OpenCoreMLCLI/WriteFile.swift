import Foundation

/// Writes a file the command made (a chart, generated source) atomically: a temporary file beside
/// it, then a rename, so a failure leaves the old file or none, never half of one.
func writeFile(_ data: Data, to path: String) throws {
    do {
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        throw CLIError.file(path, "could not write: \(error.localizedDescription)")
    }
}
