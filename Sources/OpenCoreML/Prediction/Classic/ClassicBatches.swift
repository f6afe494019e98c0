import CoreMLSpec

/// A classic model's batch taken in chunks, so that the working memory of one chunk (its input
/// rows, kernel values, scores) stays within the memory limit.
enum ClassicBatches {
    /// The most examples computed at once.
    static let largestChunk = 256

    /// Calls `body` with consecutive chunks of `examples` and the number of each chunk's first
    /// example. A chunk holds at most `largestChunk` examples, fewer when `doublesPerExample`
    /// doubles per example would pass `memoryLimit` bytes; a single example past it is an error.
    static func forEachChunk(_ examples: [MLFeatureProvider], doublesPerExample: Int, memoryLimit: Int, modelName: String,
                             _ body: (ArraySlice<MLFeatureProvider>, Int) throws -> Void) throws {
        let (bytes, overflow) = max(doublesPerExample, 1).multipliedReportingOverflow(by: MemoryLayout<Double>.stride)
        guard !overflow, bytes <= memoryLimit else {
            throw MLModelError(.generic, "one example of \(modelName) needs \(overflow ? "more than Int.max" : "\(bytes)") bytes of working memory, more than the memory limit of \(memoryLimit) bytes")
        }
        let chunk = min(largestChunk, max(1, memoryLimit / bytes))
        var start = 0
        while start < examples.count {
            let end = min(examples.count, start + chunk)
            try body(examples[start..<end], start)
            start = end
        }
    }

    /// Refuses a model whose own arrays (`doubles` of them) pass `memoryLimit` bytes.
    static func checkModelSize(doubles: Int, memoryLimit: Int, modelName: String) throws {
        let (bytes, overflow) = doubles.multipliedReportingOverflow(by: MemoryLayout<Double>.stride)
        guard !overflow, bytes <= memoryLimit else {
            throw MLModelError(.generic, "\(modelName) holds \(doubles) values, more than the memory limit of \(memoryLimit) bytes allows")
        }
    }
}
