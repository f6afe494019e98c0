import _OpenCoreMLTestSupport
import Foundation
import Testing
import _OpenCoreMLKernels

/// Parameter counts around the vector widths plus one split over threads.
private let counts = [1, 37, 1000, 70_001]

/// torch.optim.SGD's step (no dampening, no Nesterov, no weight decay), in Double.
private func pytorchSGD(w: inout [Double], g: [Double], buffer: inout [Double]?, lr: Double, momentum: Double) {
    if momentum == 0 {
        for i in 0..<w.count { w[i] -= lr * g[i] }
        return
    }
    if var b = buffer {  // buf = momentum·buf + g (dampening 0); the first step takes buf = g
        for i in 0..<b.count { b[i] = momentum * b[i] + g[i] }
        buffer = b
    } else {
        buffer = g
    }
    for i in 0..<w.count { w[i] -= lr * buffer![i] }
}

/// torch.optim.Adam's step (amsgrad off, no weight decay), in Double.
private func pytorchAdam(w: inout [Double], g: [Double], m: inout [Double], v: inout [Double], step: Int,
                         lr: Double, beta1: Double, beta2: Double, eps: Double) {
    let bias1 = 1 - pow(beta1, Double(step)), bias2 = 1 - pow(beta2, Double(step))
    for i in 0..<w.count {
        m[i] = beta1 * m[i] + (1 - beta1) * g[i]
        v[i] = beta2 * v[i] + (1 - beta2) * g[i] * g[i]
        let denom = (v[i].squareRoot() / bias2.squareRoot()) + eps
        w[i] -= (lr / bias1) * m[i] / denom
    }
}

/// Gradients for `steps` steps.
private func gradients(_ n: Int, steps: Int, seed: UInt64) -> [[Float]] {
    var random = TestRandom(seed: seed)
    return (0..<steps).map { _ in random.floats(n) }
}

extension KernelTests {
    @Suite("Optimizers")
    struct Optimizers {
        @Test(arguments: [Float(0.9), 0])
        func sgdMatchesPyTorch(momentum: Float) {
            let lr: Float = 0.05
            for n in counts {
                var random = TestRandom(seed: UInt64(n))
                let w0 = random.floats(n), grads = gradients(n, steps: 4, seed: UInt64(n) + 1)
                var expected = w0.map(Double.init)
                var buffer: [Double]? = nil
                for g in grads {
                    pytorchSGD(w: &expected, g: g.map(Double.init), buffer: &buffer, lr: Double(lr), momentum: Double(momentum))
                }
                forEachISAAndThreadCount { context in
                    var w = w0
                    var velocity = [Float](repeating: 0, count: n)
                    for g in grads { ocm_sgd_update(&w, g, &velocity, n, lr, momentum) }
                    expectClose(w, expected, relative: 1e-5, absolute: 1e-6, "SGD momentum \(momentum) n=\(n) [\(context)]")
                    if momentum == 0 {
                        #expect(velocity.allSatisfy { $0 == 0 }, "velocity untouched without momentum")
                        var w2 = w0
                        for g in grads { ocm_sgd_update(&w2, g, nil, n, lr, 0) }  // no buffer needed
                        expectIdentical(w2, w, "SGD without a velocity buffer [\(context)]")
                    } else {
                        expectClose(velocity, buffer!, relative: 1e-5, absolute: 1e-6, "SGD velocity n=\(n) [\(context)]")
                    }
                }
            }
        }

        @Test func adamMatchesPyTorch() {
            let (lr, beta1, beta2, eps): (Float, Float, Float, Float) = (1e-3, 0.9, 0.999, 1e-8)
            for n in counts {
                var random = TestRandom(seed: UInt64(n) + 5)
                let w0 = random.floats(n), grads = gradients(n, steps: 5, seed: UInt64(n) + 6)
                var expected = w0.map(Double.init)
                var m = [Double](repeating: 0, count: n), v = m
                for (t, g) in grads.enumerated() {
                    pytorchAdam(w: &expected, g: g.map(Double.init), m: &m, v: &v, step: t + 1, lr: Double(lr),
                                beta1: Double(beta1), beta2: Double(beta2), eps: Double(eps))
                }
                forEachISAAndThreadCount { context in
                    var w = w0
                    var mk = [Float](repeating: 0, count: n), vk = mk
                    for (t, g) in grads.enumerated() {
                        ocm_adam_update(&w, g, &mk, &vk, n, lr, beta1, beta2, eps, t + 1)
                    }
                    // The update moves w by ~lr per step: compare the displacement closely.
                    let moved = (0..<n).map { Double(w[$0]) - Double(w0[$0]) }
                    let expectedMoved = (0..<n).map { expected[$0] - Double(w0[$0]) }
                    expectClose(moved.map { Float($0) }, expectedMoved, relative: 1e-3, absolute: 1e-6,
                                "Adam displacement n=\(n) [\(context)]")
                    expectClose(mk, m, relative: 1e-5, absolute: 1e-7, "Adam m n=\(n) [\(context)]")
                    expectClose(vk, v, relative: 1e-5, absolute: 1e-9, "Adam v n=\(n) [\(context)]")
                }
            }
        }
    }
}
