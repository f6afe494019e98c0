import Foundation
import Testing
@testable import _OpenCoreMLEngine

/// The op families both interpreters share: reductions, softmax along any axis, normalizations.
/// Expected values are worked out by hand in the comments.
struct NormalizationOpsTests {
    private static func reduce(_ kind: Reduction.Kind, _ x: [Float], shape: [Int], axes: [Int]) -> [Float] {
        var kept = shape
        for axis in axes { kept[axis] = 1 }
        var y = [Float](repeating: -7, count: kept.reduce(1, *))
        x.withUnsafeBufferPointer { x in y.withUnsafeMutableBufferPointer { Reduction.reduce(kind, x, shape: shape, axes: axes, into: $0) } }
        return y
    }

    /// x[i][j][k] = 12i + 4j + k over [2, 3, 4].
    private static let ramp = (0..<24).map(Float.init)

    @Test func reducesSeparateRunsOfAxes() {
        // Axes 0 and 2: Σ_i Σ_k (12i + 4j + k) = (16j + 6) + (16j + 54) = 32j + 60.
        #expect(Self.reduce(.sum, Self.ramp, shape: [2, 3, 4], axes: [0, 2]) == [60, 92, 124])
        #expect(Self.reduce(.mean, Self.ramp, shape: [2, 3, 4], axes: [0, 2]) == [7.5, 11.5, 15.5])
        // The largest is at i = 1, k = 3: 15 + 4j; the smallest at i = 0, k = 0: 4j.
        #expect(Self.reduce(.max, Self.ramp, shape: [2, 3, 4], axes: [0, 2]) == [15, 19, 23])
        #expect(Self.reduce(.min, Self.ramp, shape: [2, 3, 4], axes: [0, 2]) == [0, 4, 8])
    }

    @Test func reducesMiddleAndLastAxes() {
        // Axis 1: Σ_j (12i + 4j + k) = 36i + 12 + 3k.
        #expect(Self.reduce(.sum, Self.ramp, shape: [2, 3, 4], axes: [1]) == [12, 15, 18, 21, 48, 51, 54, 57])
        #expect(Self.reduce(.max, Self.ramp, shape: [2, 3, 4], axes: [1]) == [8, 9, 10, 11, 20, 21, 22, 23])
        // Axis 2: Σ_k (12i + 4j + k) = 48i + 16j + 6.
        #expect(Self.reduce(.sum, Self.ramp, shape: [2, 3, 4], axes: [2]) == [6, 22, 38, 54, 70, 86])
        #expect(Self.reduce(.min, Self.ramp, shape: [2, 3, 4], axes: [2]) == [0, 4, 8, 12, 16, 20])
        // Every axis, and axes of size 1 only (a copy).
        #expect(Self.reduce(.sum, Self.ramp, shape: [2, 3, 4], axes: [0, 1, 2]) == [276])
        #expect(Self.reduce(.max, [1, 2, 3], shape: [1, 3, 1], axes: [0, 2]) == [1, 2, 3])
    }

    @Test func maxAndMinSkipNaNAndEmptyAxesGiveTheirStart() {
        #expect(Self.reduce(.max, [.nan, 2, 1], shape: [3], axes: [0]) == [2])
        #expect(Self.reduce(.min, [3, .nan, 1, .nan, 5, 4], shape: [3, 2], axes: [0]) == [1, 4])
        #expect(Self.reduce(.sum, [], shape: [2, 0], axes: [1]) == [0, 0])
        #expect(Self.reduce(.max, [], shape: [2, 0], axes: [1]) == [-.infinity, -.infinity])
        let means = Self.reduce(.mean, [], shape: [2, 0], axes: [1])
        #expect(means.count == 2 && means[0].isNaN && means[1].isNaN)
    }

    @Test func softmaxAlongAStridedAxis() {
        // [2, 3, 2] along axis 1: each line (x[b][0][p], x[b][1][p], x[b][2][p]).
        let x: [Float] = [0, 1, 2, 1, 4, 1, -1, 0, 0, 0, 1, 0]
        var y = [Float](repeating: 0, count: 12)
        let (blocks, length, inner) = Softmax.view([2, 3, 2], axis: 1)
        #expect((blocks, length, inner) == (2, 3, 2))
        Softmax.forward(x, &y, blocks: blocks, length: length, inner: inner)
        for b in 0..<2 {
            for p in 0..<2 {
                let line = (0..<3).map { Double(x[b * 6 + $0 * 2 + p]) }
                let total = line.map(Foundation.exp).reduce(0, +)
                for k in 0..<3 {
                    #expect(abs(Double(y[b * 6 + k * 2 + p]) - Foundation.exp(line[k]) / total) < 1e-6)
                }
            }
        }
    }

    @Test func batchAndInstanceStatistics() {
        // 2 blocks × 2 channels × planes of 3: channel 0 holds (1, 2, 3) and (4, 5, 6), channel 1
        // (0, 0, 0) and (2, 2, 2).
        let x: [Float] = [1, 2, 3, 0, 0, 0, 4, 5, 6, 2, 2, 2]
        var mean = [Float](repeating: 0, count: 4), inverse = [Float](repeating: 0, count: 4)
        let batch = Normalization.PlaneGroups(blocks: 2, channels: 2, plane: 3, perInstance: false)
        Normalization.statistics(x, batch, epsilon: 0, mean: &mean, inverseDeviation: &inverse)
        // Channel 0: mean 3.5, variance (6.25 + 2.25 + 0.25)·2/6 = 35/12; channel 1: mean 1, variance 1.
        #expect(mean[0] == 3.5 && mean[1] == 1)
        #expect(abs(inverse[0] - Float(1 / (35.0 / 12).squareRoot())) < 1e-6 && inverse[1] == 1)
        let instances = Normalization.PlaneGroups(blocks: 2, channels: 2, plane: 3, perInstance: true)
        Normalization.statistics(x, instances, epsilon: 1, mean: &mean, inverseDeviation: &inverse)
        // Planes (1, 2, 3): mean 2, variance 2/3, 1/√(2/3 + 1); (0, 0, 0): mean 0, 1/√1.
        #expect(mean == [2, 0, 5, 2])
        #expect(abs(inverse[0] - Float(1 / (5.0 / 3).squareRoot())) < 1e-6 && inverse[1] == 1)
        // γ = (2, 1), β = (0, 10): the first plane becomes 2·(−1, 0, 1)·√0.6 + 0.
        var y = [Float](repeating: 0, count: 12)
        Normalization.normalize(x, &y, instances, mean: mean, inverseDeviation: inverse, gamma: [2, 1], beta: [0, 10])
        let a = 2 * Float(0.6.squareRoot())
        #expect(abs(y[0] + a) < 1e-6 && y[1] == 0 && abs(y[2] - a) < 1e-6)
        #expect(Array(y[3...5]) == [10, 10, 10])
    }

    @Test func storedStatisticsFoldIntoScaleAndShift() {
        // μ = (1, −2), σ² = (3, 0), ε = 1, γ = (4, 1), β = (0.5, 0): scale (2, 1), shift (−1.5, 2).
        var scale = [Float](repeating: 0, count: 2), shift = [Float](repeating: 0, count: 2)
        Normalization.fold(mean: [1, -2], variance: [3, 0], gamma: [4, 1], beta: [0.5, 0], epsilon: 1, channels: 2, scale: &scale, shift: &shift)
        #expect(scale == [2, 1] && shift == [-1.5, 2])
        var y = [Float](repeating: 0, count: 4)
        Normalization.scaleAndShift([0, 1, 2, 3], &y, scale: scale, shift: shift, blocks: 1, channels: 2, plane: 2)
        #expect(y == [-1.5, 0.5, 4, 5])
    }

    @Test func layerNormOverLeadingAxes() {
        // [2, 2] over axis 0 (not the last axes): columns (1, 3) and (2, 6), means 2 and 4,
        // deviations 1 and 2, so every column becomes (−1, 1); then γ = (1, 3), β = (0, 1).
        var y = [Float](repeating: 0, count: 4)
        Normalization.layerNorm([1, 2, 3, 6], &y, shape: [2, 2], axes: [0], gamma: [1, 3], beta: [0, 1], epsilon: 0)
        #expect(y == [-1, -1, 4, 4])
        // Over the last axis (the C kernel): rows (1, 3) and (2, 6).
        Normalization.layerNorm([1, 3, 2, 6], &y, shape: [2, 2], axes: [1], gamma: nil, beta: nil, epsilon: 0)
        #expect(y == [-1, 1, -1, 1])
    }
}
