import Foundation
import _OpenCoreMLKernels

/// The multinomial logistic-regression objective on N rows of D features and K classes:
///
///     f(W, b) = (1/N) Σᵢ [log Σₖ exp(zᵢₖ) − zᵢ,yᵢ] + (λ/2)·‖W‖²,   zᵢ = W·xᵢ + b
///
/// W is K×D (row k holds class k's weights), b the K intercepts (never penalized). The variables
/// are packed as W row by row, then b (when there is an intercept). The logits and the weight
/// gradient `(P − Y)ᵀ·X / N` are float32 GEMMs; the per-row losses, the sums and the variables are
/// float64.
public final class SoftmaxCrossEntropyObjective: DifferentiableObjective, @unchecked Sendable {
    public let rowCount: Int
    public let featureCount: Int
    public let classCount: Int
    public let fitsIntercept: Bool
    /// λ of the L2 term on W.
    public let l2: Double
    public var dimension: Int { classCount * featureCount + (fitsIntercept ? classCount : 0) }

    /// The relative rounding of the value (float32 logits), for `LBFGS.valueNoise`.
    public static let valueNoise = 1e-6

    private let features: [Float]
    private let labels: [Int32]
    private let weights: FloatBuffer
    private let weightGradient: FloatBuffer
    /// N×K logits, turned into (P − Y)/N in place.
    private let scores: FloatBuffer

    /// `features` holds `labels.count` rows of `featureCount` values; labels are in 0..<classCount
    /// (checked by the caller).
    public init(features: [Float], featureCount: Int, labels: [Int], classCount: Int, l2: Double = 0, fitsIntercept: Bool = true) {
        precondition(featureCount > 0 && classCount > 0 && features.count == labels.count * featureCount)
        rowCount = labels.count
        self.featureCount = featureCount
        self.classCount = classCount
        self.fitsIntercept = fitsIntercept
        self.l2 = l2
        self.features = features
        self.labels = labels.map { Int32($0) }
        weights = FloatBuffer(capacity: classCount * featureCount)
        weightGradient = FloatBuffer(capacity: classCount * featureCount)
        scores = FloatBuffer(capacity: rowCount * classCount)
    }

    public func value(at x: [Double], gradient: inout [Double]) -> Double {
        precondition(x.count == dimension && gradient.count == dimension)
        let n = rowCount, d = featureCount, k = classCount
        let weightCount = k * d
        for i in 0..<weightCount { weights.pointer[i] = Float(x[i]) }
        let z = scores.pointer
        features.withUnsafeBufferPointer { X in
            ocm_sgemm(false, true, Int32(n), Int32(k), Int32(d), 1, X.baseAddress!, Int32(d), weights.pointer, Int32(d), 0, z, Int32(k))
        }

        // Per row: softmax, loss, and (p − onehot)/N in place; per-chunk sums in float64.
        let chunks = chunkCount(n)
        var partialLoss = [Double](repeating: 0, count: chunks)
        var partialBias = [Double](repeating: 0, count: chunks * k)
        let bias: [Float] = fitsIntercept ? (0..<k).map { Float(x[weightCount + $0]) } : [Float](repeating: 0, count: k)
        let scale = Float(1 / Double(n))
        partialLoss.withUnsafeMutableBufferPointer { lossSums in
            partialBias.withUnsafeMutableBufferPointer { biasSums in
                labels.withUnsafeBufferPointer { labels in
                    parallelChunks(n) { chunk, rows in
                        var loss = 0.0
                        for row in rows {
                            let line = z + row * k
                            var largest = -Float.infinity
                            for c in 0..<k {
                                line[c] += bias[c]
                                largest = max(largest, line[c])
                            }
                            let label = Int(labels[row])
                            let correct = line[label]
                            var sum: Float = 0
                            for c in 0..<k {
                                let e = Foundation.exp(line[c] - largest)
                                line[c] = e
                                sum += e
                            }
                            // log Σ exp(z) − z_y = log Σ exp(z − max) + max − z_y.
                            loss += Double(Foundation.log(sum)) + Double(largest) - Double(correct)
                            let inverse = 1 / sum
                            for c in 0..<k {
                                let g = (line[c] * inverse - (c == label ? 1 : 0)) * scale
                                line[c] = g
                                biasSums[chunk * k + c] += Double(g)
                            }
                        }
                        lossSums[chunk] = loss
                    }
                }
            }
        }

        features.withUnsafeBufferPointer { X in
            ocm_sgemm(true, false, Int32(k), Int32(d), Int32(n), 1, z, Int32(k), X.baseAddress!, Int32(d), 0, weightGradient.pointer, Int32(d))
        }
        // The cross-entropy part sums to zero over the classes (adding one number to every class's
        // weight for a feature, or to every intercept, changes no probability); removing the float32
        // rounding from that sum keeps the solver from drifting along those flat directions.
        var penalty = 0.0
        for j in 0..<d {
            var mean = 0.0
            for c in 0..<k { mean += Double(weightGradient.pointer[c * d + j]) }
            mean /= Double(k)
            for c in 0..<k {
                let i = c * d + j
                gradient[i] = Double(weightGradient.pointer[i]) - mean + l2 * x[i]
                penalty += x[i] * x[i]
            }
        }
        if fitsIntercept {
            var sums = [Double](repeating: 0, count: k)
            for c in 0..<k {
                for chunk in 0..<chunks { sums[c] += partialBias[chunk * k + c] }
            }
            let mean = sums.reduce(0, +) / Double(k)
            for c in 0..<k { gradient[weightCount + c] = sums[c] - mean }
        }
        return partialLoss.reduce(0, +) / Double(n) + 0.5 * l2 * penalty
    }
}
