import _OpenCoreMLTestSupport
import Foundation
import Testing
import _OpenCoreMLKernels

/// softmax of each row, in Double.
private func referenceSoftmax(_ x: [Float], M: Int, N: Int, ld: Int) -> [Double] {
    var y = [Double](repeating: 0, count: M * ld)
    for i in 0..<M {
        let row = (0..<N).map { Double(x[i * ld + $0]) }
        let m = row.max() ?? 0
        let e = row.map { exp($0 - m) }
        let s = e.reduce(0, +)
        for j in 0..<N { y[i * ld + j] = e[j] / s }
    }
    return y
}

/// softmax then mean cross-entropy, with the kernels.
private func kernelLoss(_ logits: [Float], _ labels: [Int32], M: Int, N: Int) -> (loss: Float, grad: [Float]) {
    var probs = [Float](repeating: 0, count: M * N)
    ocm_softmax_rows(logits, &probs, Int32(M), Int32(N), Int32(N), Int32(N))
    var grad = [Float](repeating: .nan, count: M * N)
    let loss = ocm_softmax_cross_entropy_backward(probs, labels, &grad, Int32(M), Int32(N), Int32(N))
    return (loss, grad)
}

extension KernelTests {
    @Suite("Softmax and cross-entropy")
    struct Softmax {
        @Test(arguments: [(37, 53, 60), (128, 10, 10), (3, 1, 1), (5, 17, 17), (700, 100, 100)])
        func softmaxMatchesReference(_ shape: (Int, Int, Int)) {
            let (M, N, ld) = shape
            var random = TestRandom(seed: UInt64(M * N))
            var x = random.floats(M * ld, -10, 10)
            // Huge logits (stability) and a constant row.
            for j in 0..<N { x[j] += 1000 }
            if M > 1 { for j in 0..<N { x[ld + j] = -3 } }
            let expected = referenceSoftmax(x, M: M, N: N, ld: ld)
            forEachISAAndThreadCount { context in
                var y = [Float](repeating: 0, count: M * ld)
                ocm_softmax_rows(x, &y, Int32(M), Int32(N), Int32(ld), Int32(ld))
                expectClose(y, expected, relative: 1e-5, absolute: 1e-9, "\(M)×\(N) [\(context)]")
                var inPlace = x
                ocm_softmax_rows(inPlace, &inPlace, Int32(M), Int32(N), Int32(ld), Int32(ld))
                for i in 0..<M { for j in N..<ld { inPlace[i * ld + j] = 0 } }
                expectIdentical(inPlace, y, "in place \(M)×\(N) [\(context)]")
            }
        }

        /// A row whose every value is −∞ is 0/0: NaN on every instruction set (the vector exp must
        /// not turn it into a uniform row), the other rows untouched.
        @Test func aRowOfMinusInfinityIsNaNEverywhere() {
            let (M, N) = (3, 37)
            var x = [Float](repeating: -.infinity, count: M * N)
            for j in 0..<N { x[j] = Float(j % 5) }
            forEachISAAndThreadCount { context in
                var y = [Float](repeating: 0, count: M * N)
                ocm_softmax_rows(x, &y, Int32(M), Int32(N), Int32(N), Int32(N))
                #expect(y[N...].allSatisfy { $0.isNaN }, "[\(context)]")
                #expect(abs(y[..<N].reduce(0, +) - 1) < 1e-5, "[\(context)]")
            }
        }

        @Test func crossEntropyMatchesDefinition() {
            let (M, N, ld) = (37, 13, 16)
            var random = TestRandom(seed: 4)
            var probs = [Float](repeating: 0, count: M * ld)
            let logits = random.floats(M * ld, -3, 3)
            ocm_softmax_rows(logits, &probs, Int32(M), Int32(N), Int32(ld), Int32(ld))
            let labels = (0..<M).map { _ in Int32(random.int(0..<N)) }
            var expectedLoss = 0.0
            var expectedGrad = [Double](repeating: 0, count: M * ld)
            for i in 0..<M {
                expectedLoss -= log(Double(probs[i * ld + Int(labels[i])])) / Double(M)
                for j in 0..<N {
                    expectedGrad[i * ld + j] = (Double(probs[i * ld + j]) - (j == Int(labels[i]) ? 1 : 0)) / Double(M)
                }
            }
            forEachISA { isa in
                var grad = [Float](repeating: 0, count: M * ld)
                let loss = ocm_softmax_cross_entropy_backward(probs, labels, &grad, Int32(M), Int32(N), Int32(ld))
                #expect(abs(Double(loss) - expectedLoss) <= 1e-5 * expectedLoss, "loss \(loss) vs \(expectedLoss) [\(isa)]")
                expectClose(grad, expectedGrad, relative: 1e-6, absolute: 1e-9, "gradient [\(isa)]")
                // In place over the probabilities.
                var inPlace = probs
                let again = ocm_softmax_cross_entropy_backward(inPlace, labels, &inPlace, Int32(M), Int32(N), Int32(ld))
                #expect(again == loss)
                expectIdentical(inPlace, grad, "in place [\(isa)]")
            }
        }

        /// (probs − onehot)/M is the gradient of the mean loss w.r.t. the logits.
        @Test func crossEntropyGradientMatchesFiniteDifferences() {
            let (M, N) = (5, 7)
            var random = TestRandom(seed: 12)
            let logits = random.floats(M * N, -2, 2)
            let labels = (0..<M).map { _ in Int32(random.int(0..<N)) }
            forEachISA { isa in
                let (_, grad) = kernelLoss(logits, labels, M: M, N: N)
                for i in 0..<(M * N) {
                    var plus = logits, minus = logits
                    plus[i] += 0.01
                    minus[i] -= 0.01
                    let numeric = Double(kernelLoss(plus, labels, M: M, N: N).loss - kernelLoss(minus, labels, M: M, N: N).loss)
                        / (Double(plus[i]) - Double(minus[i]))
                    #expect(abs(numeric - Double(grad[i])) <= 2e-3, "∂L/∂x[\(i)]: \(numeric) vs \(grad[i]) [\(isa)]")
                }
            }
        }

        @Test func lossOfAZeroProbabilityIsFinite() {
            let probs: [Float] = [1, 0]
            var grad: [Float] = [0, 0]
            let loss = ocm_softmax_cross_entropy_backward(probs, [1], &grad, 1, 2, 2)
            #expect(loss.isFinite && loss > 80)
            #expect(grad == [1, -1])
        }
    }
}
