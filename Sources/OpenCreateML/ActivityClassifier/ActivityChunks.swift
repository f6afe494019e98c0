/// A session cut the way Turi Create's activity classifier feeds its network: consecutive chunks of
/// `windowsPerChunk` prediction windows (`predictionWindow × windowsPerChunk` samples), the last one
/// zero-padded. Each window has one label, the majority of its samples' labels (a tie goes to the
/// lowest class index), and a weight for the loss: 1 for a window holding at least one sample
/// (including a session's last, partly filled window), 0 for a window of padding only.
package struct ActivityChunk: Equatable, Sendable {
    /// `predictionWindow × windowsPerChunk × featureCount` values, sample-major, zero-padded.
    package var features: [Float]
    /// One class index per window (0 for padded windows).
    package var windowLabels: [Int]
    /// One loss weight per window: 1 with samples, 0 padding only.
    package var windowWeights: [Float]
    /// How many of the session's samples each window holds (0 for padded windows).
    package var samplesPerWindow: [Int]

    /// Turi Create's number of prediction windows per chunk (the LSTM's steps in training).
    package static let windowsPerChunk = 20

    /// Cuts one session, given in time order as `samples` rows of `featureCount` values and, when
    /// training or evaluating, one class index per sample.
    package static func chunks(
        samples: [[Float]], labels: [Int]? = nil, featureCount: Int, predictionWindow: Int, classCount: Int = 1,
        windowsPerChunk: Int = windowsPerChunk
    ) -> [ActivityChunk] {
        precondition(predictionWindow > 0 && windowsPerChunk > 0)
        let chunkSamples = predictionWindow * windowsPerChunk
        var result: [ActivityChunk] = []
        var start = 0
        while start < samples.count {
            var chunk = ActivityChunk(
                features: [Float](repeating: 0, count: chunkSamples * featureCount),
                windowLabels: [Int](repeating: 0, count: windowsPerChunk),
                windowWeights: [Float](repeating: 0, count: windowsPerChunk),
                samplesPerWindow: [Int](repeating: 0, count: windowsPerChunk))
            let end = min(start + chunkSamples, samples.count)
            for sample in start..<end {
                let row = samples[sample]
                let offset = (sample - start) * featureCount
                for feature in 0..<min(featureCount, row.count) { chunk.features[offset + feature] = row[feature] }
            }
            for window in 0..<windowsPerChunk {
                let first = start + window * predictionWindow
                let last = min(first + predictionWindow, end)
                guard first < last else { break }
                chunk.samplesPerWindow[window] = last - first
                chunk.windowWeights[window] = 1
                if let labels {
                    chunk.windowLabels[window] = majority(labels[first..<last], classCount: classCount)
                }
            }
            result.append(chunk)
            start = end
        }
        return result
    }

    /// The most frequent class index; a tie goes to the lowest index (0 for no labels).
    ///
    /// Counts the window's labels in sorted order, so the time depends on the window's length, not
    /// on the number of classes (`classCount` is not needed).
    package static func majority(_ labels: ArraySlice<Int>, classCount: Int) -> Int {
        let sorted = labels.sorted()
        var best = 0, bestCount = 0
        var start = sorted.startIndex
        while start < sorted.endIndex {
            var end = start + 1
            while end < sorted.endIndex && sorted[end] == sorted[start] { end += 1 }
            // Runs come in increasing label order: only a strictly longer run wins, so ties keep the lowest.
            if end - start > bestCount { best = sorted[start]; bestCount = end - start }
            start = end
        }
        return best
    }
}
