import CoreMLSpec
import Foundation

extension Network {
    /// One buffer the memory budget counts: a blob's shape for one example and how many float32
    /// copies of it are held (values, and a gradient when training).
    struct BudgetedBlob {
        let name: String
        let dims: [Int]
        let copies: Int
    }

    /// Throws unless the buffers for `batch` examples fit in `limit` bytes, naming the layer whose
    /// output is the largest.
    package func checkMemory(batch: Int, training: Bool, limit: Int) throws {
        let budgeted = blobs.values.filter { !$0.isElided }.map {
            BudgetedBlob(name: $0.name, dims: $0.shape.dims, copies: training && $0.needsGradient ? 2 : 1)
        }
        try Self.checkBudget(budgeted, batch: batch, limit: limit) { name in
            nodes.first { $0.outputs.contains { $0.name == name } }.map { "layer '\($0.name)'" } ?? "input '\(name)'"
        }
    }

    /// The bytes a prediction pass should keep its largest layer's input and output within: about
    /// half of a server processor's last-level cache.
    package static let inferenceCacheBytes = 16 << 20

    /// How many examples a prediction pass should take at a time, at most `limit`: as many as keep
    /// the largest blob's input and output for all of them within ``inferenceCacheBytes``, and at
    /// least one per thread (each thread then runs its own example through a convolution). A batch
    /// of large pictures goes through in small passes whose activations stay in cache, instead of
    /// one pass that streams every layer's output for every picture through memory.
    package func inferencePassSize(threads: Int, limit: Int) -> Int {
        let largest = blobs.values.filter { !$0.isElided }.map { max($0.shape.count, 1) }.max() ?? 1
        let fitting = Self.inferenceCacheBytes / (2 * 4 * largest)
        return min(limit, max(threads, fitting, 1))
    }

    /// Throws unless one example's blob values, by the layer table's `shapes`, fit in `limit` bytes.
    /// Checked before any layer is built, because layers size their own tables from the shapes.
    static func checkShapes(_ shapes: [String: [Int]], of network: any NeuralNetworkSpecification, limit: Int) throws {
        let budgeted = shapes.map { BudgetedBlob(name: $0.key, dims: $0.value, copies: 1) }
        try checkBudget(budgeted, batch: 1, limit: limit) { name in
            network.layers.first { $0.output.contains(name) }.map { "layer '\($0.name)'" } ?? "input '\(name)'"
        }
    }

    /// The budget rule both checks share: the bytes of every blob for `batch` examples (an overflow
    /// counts as more than any limit), and an error naming where the largest blob comes from.
    static func checkBudget(_ budgeted: [BudgetedBlob], batch: Int, limit: Int, locate: (String) -> String) throws {
        var total: Int? = 0
        for blob in budgeted {
            guard let sum = total, let bytes = checkedProduct([batch, 4 * blob.copies] + blob.dims.map { max($0, 0) }) else {
                total = nil
                break
            }
            let (next, overflow) = sum.addingReportingOverflow(bytes)
            total = overflow ? nil : next
        }
        if let total, total <= limit { return }
        let size = { (blob: BudgetedBlob) in blob.dims.reduce(Double(blob.copies)) { $0 * Double(max($1, 0)) } }
        guard let largest = budgeted.max(by: { size($0) < size($1) }) else { return }
        let amount = total.map(formatBytes) ?? "more than \(formatBytes(Int.max))"
        throw EngineError(locate(largest.name), "the network needs \(amount) for a batch of \(batch) (output '\(largest.name)' of shape \(largest.dims)), more than the memory limit of \(formatBytes(limit))")
    }
}

/// `5368709120` → `5.4 GB`, `1500000` → `1.5 MB` (powers of 1000).
package func formatBytes(_ bytes: Int) -> String {
    let units = ["bytes", "kB", "MB", "GB", "TB", "PB", "EB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1000, unit < units.count - 1 {
        value /= 1000
        unit += 1
    }
    return unit == 0 ? "\(bytes) bytes" : String(format: "%.1f", value) + " " + units[unit]
}
