import OpenCreateML
import Testing

/// Turi Create's chunking of a session: 20 windows per chunk, zero padding, weight-0 padded
/// windows, majority labels with ties to the lowest class index.
@Suite("Activity classifier: sessions cut into chunks of prediction windows")
struct ActivityChunkTests {
    @Test func majorityTiesGoToTheLowestIndex() {
        #expect(ActivityChunk.majority([2, 1, 2, 1], classCount: 3) == 1)
        #expect(ActivityChunk.majority([0, 2, 2], classCount: 3) == 2)
        #expect(ActivityChunk.majority([2], classCount: 3) == 2)
    }

    @Test func aSessionIsCutIntoZeroPaddedChunksWithWeightZeroPadding() {
        // 2 features, windows of 3 samples, 4 windows per chunk: 12 samples per chunk. 17 samples
        // make one full chunk and one holding 5 samples (a full window and a partial one).
        let samples = (0..<17).map { [Float($0), Float(-$0)] }
        let labels = (0..<17).map { $0 < 7 ? 0 : ($0 == 7 ? 2 : 1) }
        let chunks = ActivityChunk.chunks(samples: samples, labels: labels, featureCount: 2, predictionWindow: 3,
                                          classCount: 3, windowsPerChunk: 4)
        #expect(chunks.count == 2)
        #expect(chunks[0].features.count == 24)
        #expect(chunks[0].features.prefix(4) == [0, 0, 1, -1])
        #expect(chunks[0].windowWeights == [1, 1, 1, 1])
        #expect(chunks[0].samplesPerWindow == [3, 3, 3, 3])
        // Window 2 holds samples 6, 7, 8 (labels 0, 2, 1): a three-way tie → 0.
        #expect(chunks[0].windowLabels == [0, 0, 0, 1])
        #expect(chunks[1].features.prefix(2) == [12, -12])
        #expect(chunks[1].features[10...] .allSatisfy { $0 == 0 })
        #expect(chunks[1].windowWeights == [1, 1, 0, 0])
        #expect(chunks[1].samplesPerWindow == [3, 2, 0, 0])
        #expect(chunks[1].windowLabels == [1, 1, 0, 0])
    }

    @Test func predictionChunksNeedNoLabelsAndTuriChunksHold20Windows() {
        let chunks = ActivityChunk.chunks(samples: Array(repeating: [1], count: 41), featureCount: 1, predictionWindow: 2)
        #expect(ActivityChunk.windowsPerChunk == 20)
        #expect(chunks.count == 2)
        #expect(chunks[1].windowWeights.prefix(2) == [1, 0])
        #expect(chunks[1].windowLabels.allSatisfy { $0 == 0 })
    }
}
