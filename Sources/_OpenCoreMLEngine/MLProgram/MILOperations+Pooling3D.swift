/// `max_pool` and `avg_pool` over N×C×D×H×W (three kernel sizes): each output the largest or the
/// mean of its window, the padding (MIL's `pad_type`, `pad` as before and after each axis) taking
/// no part in a maximum and counting in a mean unless `exclude_padding_from_average`.
extension MILOperations {
    static func pooling3D(_ kind: Pooling2D.Kind, kernel: [Int], _ arguments: Arguments, _ outputs: [Int], _ context: OperationContext) throws -> ProgramPlan.Step {
        let x = try argument(arguments, "x", context)
        guard kind != .l2 else { throw context.fail("3-D l2_pool is not supported") }
        guard kernel.allSatisfy({ $0 > 0 && $0 <= 1 << 16 }) else { throw context.fail("kernel_sizes \(kernel) need values from 1 to 65536") }
        let strides = try constantInts(arguments, "strides", context)
        let padType = try constantString(arguments, "pad_type", context) ?? "valid"
        let pad = try constantInts(arguments, "pad", context)
        guard (try constantInts(arguments, "ceil_mode", context)?.first ?? 0) == 0 else { throw context.fail("3-D pooling with ceil_mode is not supported") }
        let excludePadding = (try constantInts(arguments, "exclude_padding_from_average", context)?.first ?? 0) != 0
        return { slots in
            let input = fetch(x, slots)
            guard input.shape.count == 5 else { throw context.fail("input \(input.shape) is not N×C×D×H×W") }
            let window = try windowND(padType, pad: pad, input: Array(input.shape[2...]), kernel: kernel, strides: strides, dilations: nil, context)
            let planes = input.shape[0] * input.shape[1]
            try slots.countMultiplyAdds(planes, window.outputCount, window.kernelCount, context: context)
            let shape = Array(input.shape[..<2]) + window.output
            var values = try slots.unfilledBuffer(shape, context)
            let (inD, inH, inW) = (window.input[0], window.input[1], window.input[2])
            let (outD, outH, outW) = (window.output[0], window.output[1], window.output[2])
            let isMax = kind == .max
            input.values.withUnsafeBufferPointer { source in
                values.withUnsafeMutableBufferPointer { result in
                    var index = 0
                    for plane in 0..<planes {
                        let base = plane * inD * inH * inW
                        for od in 0..<outD {
                            let d0 = od * window.stride[0] - window.padBefore[0]
                            for oh in 0..<outH {
                                let h0 = oh * window.stride[1] - window.padBefore[1]
                                for ow in 0..<outW {
                                    let w0 = ow * window.stride[2] - window.padBefore[2]
                                    var accumulated: Float = isMax ? -.infinity : 0, counted = 0
                                    for d in max(d0, 0)..<min(d0 + window.kernel[0], inD) {
                                        for h in max(h0, 0)..<min(h0 + window.kernel[1], inH) {
                                            let row = base + (d * inH + h) * inW
                                            for w in max(w0, 0)..<min(w0 + window.kernel[2], inW) {
                                                let value = source[row + w]
                                                accumulated = isMax ? max(accumulated, value) : accumulated + value
                                                counted += 1
                                            }
                                        }
                                    }
                                    if isMax {
                                        result[index] = counted > 0 ? accumulated : 0
                                    } else {
                                        let divisor = excludePadding ? counted : window.kernelCount
                                        result[index] = divisor > 0 ? accumulated / Float(divisor) : 0
                                    }
                                    index += 1
                                }
                            }
                        }
                    }
                }
            }
            slots[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }
}
