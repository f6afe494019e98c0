import CoreMLSpec
import _OpenCoreMLKernels

// MARK: - Hardswish spelled as three operations

extension ProgramPlan.Builder {
    /// Hardswish as coremltools writes PyTorch's `hardswish` (MobileNetV3's activation):
    /// `t = thresholded_relu(x, alpha: a)`, `s = sigmoid_hard(t, alpha, beta)`, `y = mul(t, s)`
    /// (or `mul(s, t)`), found in a block so that it runs as one ``Activation/hardSwish(threshold:alpha:beta:)``
    /// pass instead of three passes and two intermediate tensors. `t` must be read by the hard
    /// sigmoid and the product alone, and `s` by the product alone.
    ///
    /// When `x` is made by a `conv` that nothing else reads, the convolution's step writes `y`
    /// itself: its GEMM epilogue (or the depthwise kernel, per finished plane) applies the
    /// hardswish while the block is in cache, and `x`, `t` and `s` are never made.
    struct HardSwishPattern {
        /// The operation indices the pattern covers: the product, the thresholded ReLU, the hard
        /// sigmoid, and the convolution when it makes `x`.
        let product: Int, threshold: Int, gate: Int
        let convolution: Int?
        let x: String

        /// The indices compiled later than their place (at the product), or not at all.
        var deferred: [Int] { [threshold, gate] + (convolution.map { [$0] } ?? []) }
    }

    /// Every hardswish pattern of `operations`, by its product's index (empty when the block is
    /// over the read budget, as for ``fusion(at:in:readers:)``).
    func hardSwishPatterns(in operations: [CoreML_Specification_MILSpec_Operation], readers: [String: Int]?) -> [Int: HardSwishPattern] {
        guard let readers else { return [:] }
        let producers = Self.producers(of: operations)
        /// The index of the single-output operation of `type` that makes `value`, read `reads` times.
        func producer(of value: String?, type: String, reads: Int) -> Int? {
            guard let value, readers[value] == reads, let index = producers[value], operations[index].type == type else { return nil }
            return index
        }
        var patterns: [Int: HardSwishPattern] = [:]
        for (index, product) in operations.enumerated() where product.type == "mul" && product.outputs.count == 1 && product.inputs.count == 2 {
            let operands = [Self.name(Self.binding(product, "x")), Self.name(Self.binding(product, "y"))]
            for (t, s) in [(operands[0], operands[1]), (operands[1], operands[0])] {
                guard let gate = producer(of: s, type: "sigmoid_hard", reads: 1), Self.name(Self.binding(operations[gate], "x")) == t,
                      let threshold = producer(of: t, type: "thresholded_relu", reads: 2), threshold < gate,
                      let x = Self.name(Self.binding(operations[threshold], "x")) else { continue }
                // x read by the thresholded ReLU alone: a convolution making it runs the hardswish itself.
                let convolution = producer(of: x, type: "conv", reads: 1).flatMap { $0 < threshold ? $0 : nil }
                patterns[index] = HardSwishPattern(product: index, threshold: threshold, gate: gate, convolution: convolution, x: x)
                break
            }
        }
        return patterns
    }

    /// The one step of `pattern` (its product's output the step's), nil when its constants do not
    /// make a hardswish: the thresholded ReLU's alpha and the hard sigmoid's alpha and beta must be
    /// single finite constants.
    mutating func hardSwishStep(_ pattern: HardSwishPattern, in operations: [CoreML_Specification_MILSpec_Operation],
                                place: (Int) -> String) throws -> ProgramPlan.Step? {
        /// The single finite constant bound to `parameter` of operation `index`.
        func constant(_ index: Int, _ parameter: String) -> Float? {
            guard let binding = Self.binding(operations[index], parameter), let value = constantValue(binding, at: place(index)),
                  value.count == 1, value.values[0].isFinite else { return nil }
            return value.values[0]
        }
        guard let cut = constant(pattern.threshold, "alpha"), let alpha = constant(pattern.gate, "alpha"),
              let beta = constant(pattern.gate, "beta") else { return nil }
        // MIL's thresholded ReLU keeps x ≥ alpha; the kernel keeps x > threshold, the same for the
        // float just below alpha (NaN fails both).
        let activation = Activation.hardSwish(threshold: cut.nextDown, alpha: alpha, beta: beta)
        let output = operations[pattern.product].outputs[0]
        if let convolution = pattern.convolution {
            return try compile(operations[convolution], fusing: (activation, output), at: place(convolution))
        }
        return try elementwiseStep(reading: pattern.x, writing: operations[pattern.product], at: place(pattern.product)) { x, y, shape, _ in
            activation.forward(x, y, count: shape.reduce(1, *))
        }
    }
}

// MARK: - Reading a block's operations

extension ProgramPlan.Builder {
    /// The index of the operation that makes each value, for the single-output operations without
    /// nested blocks.
    static func producers(of operations: [CoreML_Specification_MILSpec_Operation]) -> [String: Int] {
        var producers: [String: Int] = [:]
        for (index, operation) in operations.enumerated() where operation.outputs.count == 1 && operation.blocks.isEmpty {
            producers[operation.outputs[0].name] = index
        }
        return producers
    }

    /// The single argument bound to `parameter` of `operation`.
    static func binding(_ operation: CoreML_Specification_MILSpec_Operation, _ parameter: String) -> CoreML_Specification_MILSpec_Argument.Binding? {
        guard let arguments = operation.inputs[parameter]?.arguments, arguments.count == 1 else { return nil }
        return arguments[0]
    }

    /// The name `binding` reads, nil for a value bound in place.
    static func name(_ binding: CoreML_Specification_MILSpec_Argument.Binding?) -> String? {
        if case .name(let name)? = binding?.binding { return name }
        return nil
    }
}
