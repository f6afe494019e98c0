import CoreMLSpec
import Foundation

extension Network {
    /// The bytes the blobs' buffers take for `batch` examples: every blob's values and, when
    /// training, the gradients of the blobs that need one; with the blob that takes the most. Nil
    /// when the count does not fit an `Int` (a model declaring absurd sizes).
    package func bufferBytes(batch: Int, training: Bool) -> (total: Int, largest: Blob?)? {
        var total = 0
        var largest: (blob: Blob, bytes: Int)?
        for blob in blobs.values where !blob.isElided {
            var elements = batch
            for dimension in blob.shape.dims {
                let (product, overflow) = elements.multipliedReportingOverflow(by: max(dimension, 0))
                guard !overflow else { return nil }
                elements = product
            }
            let copies = training && blob.needsGradient ? 2 : 1
            let (bytes, overflow) = elements.multipliedReportingOverflow(by: 4 * copies)
            let (sum, overflowSum) = total.addingReportingOverflow(bytes)
            guard !overflow, !overflowSum else { return nil }
            total = sum
            if bytes > largest?.bytes ?? -1 { largest = (blob, bytes) }
        }
        return (total, largest?.blob)
    }

    /// Throws unless the buffers for `batch` examples fit in `limit` bytes, naming the layer whose
    /// output is the largest.
    package func checkMemory(batch: Int, training: Bool, limit: Int) throws {
        let needed = bufferBytes(batch: batch, training: training)
        if let needed, needed.total <= limit { return }
        let largest = needed?.largest ?? blobs.values.max { a, b in
            a.shape.dims.reduce(1.0) { $0 * Double(max($1, 0)) } < b.shape.dims.reduce(1.0) { $0 * Double(max($1, 0)) }
        }
        let location = largest.map { blob in
            nodes.first { $0.outputs.contains { $0 === blob } }.map { "layer '\($0.name)'" } ?? "input '\(blob.name)'"
        } ?? "model"
        let shape = largest.map { " (output '\($0.name)' of shape \($0.shape.dims))" } ?? ""
        let amount = needed.map { formatBytes($0.total) } ?? "more than \(formatBytes(Int.max))"
        throw EngineError(location, "the network needs \(amount) for a batch of \(batch)\(shape), more than the memory limit of \(formatBytes(limit))")
    }
}

extension Network {
    /// Throws unless one example's blob values, by the layer table's `shapes`, fit in `limit` bytes,
    /// naming the layer whose output is the largest (as `checkMemory` does for a built network).
    static func checkShapes(_ shapes: [String: [Int]], of network: any NeuralNetworkSpecification, limit: Int) throws {
        var total = 0, overflowed = false
        var largest: (name: String, shape: [Int], elements: Double)?
        for (name, shape) in shapes {
            let elements = shape.reduce(1.0) { $0 * Double(max($1, 0)) }
            if elements > largest?.elements ?? -1 { largest = (name, shape, elements) }
            guard let count = checkedProduct(shape.map { max($0, 0) }) else { overflowed = true; continue }
            let (bytes, overflow) = count.multipliedReportingOverflow(by: 4)
            let (sum, overflowSum) = total.addingReportingOverflow(bytes)
            if overflow || overflowSum { overflowed = true } else { total = sum }
        }
        guard overflowed || total > limit, let largest else { return }
        let location = network.layers.first { $0.output.contains(largest.name) }.map { "layer '\($0.name)'" } ?? "input '\(largest.name)'"
        let amount = overflowed ? "more than \(formatBytes(Int.max))" : formatBytes(total)
        throw EngineError(location, "the network needs \(amount) for a batch of 1 (output '\(largest.name)' of shape \(largest.shape)), more than the memory limit of \(formatBytes(limit))")
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
