import _OpenCoreMLEngine
import Foundation
import _OpenCoreMLKernels

/// The multinomial logistic-regression objective on N rows of D features and K classes:
///
///     f(W, b) = (1/N) Σᵢ [log Σₖ exp(zᵢₖ) − zᵢ,yᵢ] + (λ/2)·‖W‖²,   zᵢ = W·(xᵢ − μ) + b
///
/// W is K×D (row k holds class k's weights), b the K intercepts (never penalized) and μ optional
/// feature centers (zero by default): centering with an intercept is the same model, better
/// conditioned, and costs no copy of the data. The variables are packed as W row by row, then b
/// (when there is an intercept).
///
/// One pass over the data per evaluation: each thread takes a run of rows and, block by block
/// (a block of X stays in cache), computes the logits `X·Wᵀ` and accumulates the weight gradient
/// `(P − Y)ᵀ·X / N` with float32 GEMMs. Per-row losses, all sums and the variables are float64.
package final class SoftmaxCrossEntropyObjective: DifferentiableObjective, @unchecked Sendable {
    package let rowCount: Int
    package let featureCount: Int
    package let classCount: Int
    package let fitsIntercept: Bool
    /// λ of the L2 term on W.
    package let l2: Double
    /// μ, or nil for none.
    package let centers: [Double]?
    package var dimension: Int { classCount * featureCount + (fitsIntercept ? classCount : 0) }

    /// The relative rounding of the value (float32 logits), for `LBFGS.valueNoise`.
    package static let valueNoise = 1e-6

    private let features: [Float]
    private let labels: [Int32]
    private let weights: FloatBuffer
    /// Per thread: a K×D weight gradient, then a block's logits.
    private let scratch = FloatBuffer()
    private let blockRows: Int

    /// `features` holds `labels.count` rows of `featureCount` values; labels are in 0..<classCount
    /// (checked by the caller).
    package init(features: [Float], featureCount: Int, labels: [Int], classCount: Int, l2: Double = 0, fitsIntercept: Bool = true,
                centers: [Double]? = nil) {
        precondition(featureCount > 0 && classCount > 0 && features.count == labels.count * featureCount)
        precondition(centers == nil || centers!.count == featureCount)
        rowCount = labels.count
        self.featureCount = featureCount
        self.classCount = classCount
        self.fitsIntercept = fitsIntercept
        self.l2 = l2
        self.centers = centers
        self.features = features
        self.labels = labels.map { Int32($0) }
        weights = FloatBuffer(capacity: classCount * featureCount)
        // About 512 KB of X per block; few enough rows for the GEMM's unpacked dot-product path
        // (rows·K ≤ 4096) when K is small.
        let byCache = max(8, 131_072 / featureCount)
        blockRows = classCount <= 12 ? min(byCache, 4096 / classCount) : byCache
    }

    package func value(at x: [Double], gradient: inout [Double]) -> Double {
        precondition(x.count == dimension && gradient.count == dimension)
        let n = rowCount, d = featureCount, k = classCount
        let weightCount = k * d
        for i in 0..<weightCount { weights.pointer[i] = Float(x[i]) }
        // z = W·x + (b − W·μ).
        var shift = [Double](repeating: 0, count: k)
        for c in 0..<k {
            shift[c] = fitsIntercept ? x[weightCount + c] : 0
            if let centers {
                for j in 0..<d { shift[c] -= x[c * d + j] * centers[j] }
            }
        }
        let bias = shift.map { Float($0) }

        let chunks = chunkCount(n)
        let stride = weightCount + blockRows * k
        scratch.reserve(chunks * stride)
        var partialLoss = [Double](repeating: 0, count: chunks)
        var partialBias = [Double](repeating: 0, count: chunks * k)
        let scale = Float(1 / Double(n))
        let blockRows = blockRows, w = weights.pointer, buffer = scratch.pointer
        partialLoss.withUnsafeMutableBufferPointer { lossSums in
            partialBias.withUnsafeMutableBufferPointer { biasSums in
                labels.withUnsafeBufferPointer { labels in
                    features.withUnsafeBufferPointer { features in
                        parallelChunks(n, chunks: chunks) { chunk, rows in
                            let weightGradient = buffer + chunk * stride
                            let z = weightGradient + weightCount
                            var loss = 0.0
                            for start in Swift.stride(from: rows.lowerBound, to: rows.upperBound, by: blockRows) {
                                let m = min(blockRows, rows.upperBound - start)
                                let block = features.baseAddress! + start * d
                                ocm_sgemm(false, true, Int32(m), Int32(k), Int32(d), 1, block, Int32(d), w, Int32(d), 0, z, Int32(k))
                                for r in 0..<m {
                                    loss += Self.rowLossAndGradient(z + r * k, classes: k, bias: bias, label: Int(labels[start + r]),
                                                                    scale: scale, biasSums: biasSums.baseAddress! + chunk * k)
                                }
                                ocm_sgemm(true, false, Int32(k), Int32(d), Int32(m), 1, z, Int32(k), block, Int32(d),
                                          start == rows.lowerBound ? 0 : 1, weightGradient, Int32(d))
                            }
                            lossSums[chunk] = loss
                        }
                    }
                }
            }
        }

        var interceptGradient = [Double](repeating: 0, count: k)
        for c in 0..<k {
            for chunk in 0..<chunks { interceptGradient[c] += partialBias[chunk * k + c] }
        }
        // The cross-entropy part sums to zero over the classes (adding one number to every class's
        // weight for a feature, or to every intercept, changes no probability); removing the float32
        // rounding from that sum keeps the solver from drifting along those flat directions.
        var penalty = 0.0
        var column = [Double](repeating: 0, count: k)
        for j in 0..<d {
            var mean = 0.0
            for c in 0..<k {
                var sum = 0.0
                for chunk in 0..<chunks { sum += Double(buffer[chunk * stride + c * d + j]) }
                if let centers { sum -= interceptGradient[c] * centers[j] }
                column[c] = sum
                mean += sum
            }
            mean /= Double(k)
            for c in 0..<k {
                let i = c * d + j
                gradient[i] = column[c] - mean + l2 * x[i]
                penalty += x[i] * x[i]
            }
        }
        if fitsIntercept {
            let mean = interceptGradient.reduce(0, +) / Double(k)
            for c in 0..<k { gradient[weightCount + c] = interceptGradient[c] - mean }
        }
        return partialLoss.reduce(0, +) / Double(n) + 0.5 * l2 * penalty
    }

    /// Adds the bias to one row of logits, returns the row's loss `log Σ exp(z) − z_y` and leaves
    /// `(softmax(z) − onehot(y))·scale` in its place, added into `biasSums`.
    @inline(__always)
    private static func rowLossAndGradient(_ line: UnsafeMutablePointer<Float>, classes k: Int, bias: [Float], label: Int,
                                           scale: Float, biasSums: UnsafeMutablePointer<Double>) -> Double {
        var largest = -Float.infinity
        for c in 0..<k {
            line[c] += bias[c]
            largest = max(largest, line[c])
        }
        let correct = line[label]
        var sum: Float = 0
        for c in 0..<k {
            let e = Foundation.exp(line[c] - largest)
            line[c] = e
            sum += e
        }
        let inverse = 1 / sum
        for c in 0..<k {
            let g = (line[c] * inverse - (c == label ? 1 : 0)) * scale
            line[c] = g
            biasSums[c] += Double(g)
        }
        // log Σ exp(z) − z_y = log Σ exp(z − max) + max − z_y.
        return Double(Foundation.log(sum)) + Double(largest) - Double(correct)
    }
}
