import CoreMLSpec
import _OpenCoreMLKernels

/// 2-D convolution (`conv`, any group count) and pooling (`max_pool`, `avg_pool`, `l2_pool`) over N×C×H×W
/// inputs, with `valid`, `custom`, `same` and `same_lower` padding: adapters from MIL arguments
/// onto ``Window2D``, ``Conv2DPlan`` and ``Pooling2D``.
extension MILOperations {
    /// The window of `kernel`, `stride` and `dilation` on an input plane of `size` with MIL's
    /// `pad_type` (`pad`: [top, bottom, left, right] for `custom`). With `ceilMode` (pooling's
    /// `ceil_mode`) a last window that starts inside the image or its leading padding but runs
    /// past the end counts too (``Window2D/Padding/ceil(top:bottom:left:right:)``, coremltools' rule).
    static func window(_ padType: String, pad: [Int]?, size: (Int, Int), kernel: (Int, Int), stride: (Int, Int), dilation: (Int, Int),
                       ceilMode: Bool = false, _ context: OperationContext) throws -> Window2D {
        guard kernel.0 > 0, kernel.1 > 0, stride.0 > 0, stride.1 > 0, dilation.0 > 0, dilation.1 > 0,
              kernel.0 <= 1 << 16, kernel.1 <= 1 << 16, dilation.0 <= 1 << 16, dilation.1 <= 1 << 16,
              stride.0 <= 1 << 30, stride.1 <= 1 << 30 else {
            throw context.fail("kernel \(kernel), strides \(stride) and dilations \(dilation) must be positive (kernel and dilations at most 65536)")
        }
        // An empty plane has nothing for a window to read, padded or not (its output would be
        // padding only, or nothing).
        guard size.0 > 0, size.1 > 0 else { throw context.fail("the input plane \(size.0)×\(size.1) is empty") }
        var pads = [0, 0, 0, 0]
        switch padType {
        case "valid": break
        case "custom":
            guard let pad, pad.count == 4, pad.allSatisfy({ $0 >= 0 && $0 <= 1 << 16 }) else {
                throw context.fail("custom padding needs 4 values from 0 to 65536")
            }
            pads = pad
        case "same", "same_lower": break
        default: throw context.fail("pad_type '\(padType)' is not supported")
        }
        let padding: Window2D.Padding = padType.hasPrefix("same") ? .same(topLeftHeavy: padType == "same_lower")
            : ceilMode ? .ceil(top: pads[0], bottom: pads[1], left: pads[2], right: pads[3])
            : .explicit(top: pads[0], bottom: pads[1], left: pads[2], right: pads[3])
        guard let window = Window2D(height: size.0, width: size.1, kernel: kernel, stride: stride, dilation: dilation, padding: padding),
              size.0 + window.padTop + window.padBottom >= (kernel.0 - 1) * dilation.0 + 1,
              size.1 + window.padLeft + window.padRight >= (kernel.1 - 1) * dilation.1 + 1 else {
            throw context.fail("the window is larger than the padded input \(size)")
        }
        return window
    }

    static let convolution: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        // A constant 4-D weight (and constant bias): the plan made once, here.
        guard case .constant(.tensor(let constantWeight)) = try argument(arguments, "weight", context), constantWeight.shape.count == 4,
              arguments["bias"]?.first.map({ if case .constant = $0 { return true } else { return false } }) ?? true else {
            return try convolutionOfAnyRank(arguments, outputs, context)
        }
        let (weight, bias) = try convolutionWeights(arguments, context)
        let strides = try constantInts(arguments, "strides", context) ?? [1, 1]
        let dilations = try constantInts(arguments, "dilations", context) ?? [1, 1]
        let groups = try constantInts(arguments, "groups", context)?.first ?? 1
        let padType = try constantString(arguments, "pad_type", context) ?? "valid"
        let pad = try constantInts(arguments, "pad", context)
        let (outChannels, perGroup, kh, kw) = (weight.shape[0], weight.shape[1], weight.shape[2], weight.shape[3])
        guard groups >= 1, outChannels % groups == 0, strides.count == 2, dilations.count == 2, strides.allSatisfy({ $0 > 0 }), dilations.allSatisfy({ $0 > 0 }) else {
            throw context.fail("bad strides, dilations or groups")
        }
        let layout = Conv2DPlan.Layout(outChannels: outChannels, inPerGroup: perGroup, groups: groups, kernel: (kh, kw),
                                       stride: (strides[0], strides[1]), dilation: (dilations[0], dilations[1]))
        // Weights are constant: prepared (transformed for Winograd, or packed for the GEMM) once here, not for every run.
        let plan = weight.values.withUnsafeBufferPointer { Conv2DPlan(layout, constantWeights: $0) }
        let epilogue = { (bias: UnsafePointer<Float>?) in Activation.epilogue(context.fusedActivation, rowBias: bias) }
        return { slots in
            let input = fetch(x, slots)
            guard input.shape.count == 4, input.shape[1] == layout.inChannels else {
                throw context.fail("input \(input.shape) does not have \(layout.inChannels) channels in N×C×H×W")
            }
            let n = input.shape[0]
            let window = try window(padType, pad: pad, size: (input.shape[2], input.shape[3]), kernel: layout.kernel, stride: layout.stride,
                                    dilation: layout.dilation, context)
            try slots.countMultiplyAdds(n, outChannels, window.outputPlane, perGroup, kh, kw, context: context)
            let shape = [n, outChannels, window.outputHeight, window.outputWidth]
            var values = try slots.unfilledBuffer(shape, context)
            try convolve(plan, input.values, into: &values, images: n, window: window, weight: weight.values, bias: bias?.values,
                         epilogue: epilogue, &slots, context)
            slots[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }

    /// `conv`'s constant 4-D weight (non-empty) and optional constant bias (one value per output channel).
    private static func convolutionWeights(_ arguments: Arguments, _ context: OperationContext) throws -> (weight: MILTensor, bias: MILTensor?) {
        guard case .constant(.tensor(let weight)) = try argument(arguments, "weight", context), weight.shape.count == 4 else {
            throw context.fail("conv needs a constant 4-D weight (2-D convolution; other ranks are not supported yet)")
        }
        guard !weight.shape.contains(0) else { throw context.fail("conv's weight \(weight.shape) is empty") }
        let bias = try arguments["bias"].map { _ -> MILTensor in
            guard case .constant(.tensor(let b)) = try argument(arguments, "bias", context), b.count == weight.shape[0] else {
                throw context.fail("conv's bias must be a constant of \(weight.shape[0]) values")
            }
            return b
        }
        return (weight, bias)
    }

    /// Runs `plan` over `images` images of `x` into `y`, with its scratch from the buffer pool.
    private static func convolve(_ plan: Conv2DPlan, _ x: [Float], into y: inout [Float], images: Int, window: Window2D, weight: [Float],
                                 bias: [Float]?, epilogue: (UnsafePointer<Float>?) -> ocm_gemm_epilogue,
                                 _ slots: inout ProgramPlan.Frame, _ context: OperationContext) throws {
        try x.withUnsafeBufferPointer { x in
            try weight.withUnsafeBufferPointer { weight in
                try y.withUnsafeMutableBufferPointer { y in
                    try withOptionalPointer(bias) { bias in
                        guard let xBase = x.baseAddress, let wBase = weight.baseAddress, let yBase = y.baseAddress else { return }
                        let pass = Conv2DPlan.Pass(x: xBase, y: yBase, images: images, window: window, weights: wBase, epilogue: epilogue(bias))
                        var scratch = try slots.unfilledBuffer([max(plan.scratchFloats(pass), 1)], context)
                        scratch.withUnsafeMutableBufferPointer { plan.forward(pass, scratch: $0.baseAddress) }
                        slots.recycle(scratch)
                    }
                }
            }
        }
    }

    /// `max_pool`, `avg_pool` (`kind` read for its `exclude_padding_from_average`) and `l2_pool`
    /// over N×C×H×W, or N×C×W (1-D pooling, run as planes of one row); N×C×D×H×W in
    /// MILOperations+Pooling3D.swift.
    static func pooling(_ kind: Pooling2D.Kind) -> Make {
        { arguments, outputs, context in
            let x = try argument(arguments, "x", context)
            guard let kernel = try constantInts(arguments, "kernel_sizes", context), (1...3).contains(kernel.count) else {
                throw context.fail("pooling needs one to three kernel sizes")
            }
            if kernel.count == 3 { return try pooling3D(kind, kernel: kernel, arguments, outputs, context) }
            let spatial = kernel.count
            let strides = try constantInts(arguments, "strides", context) ?? [Int](repeating: 1, count: spatial)
            guard strides.count == spatial else { throw context.fail("\(spatial)-D pooling needs \(spatial) strides") }
            let padType = try constantString(arguments, "pad_type", context) ?? "valid"
            var pad = try constantInts(arguments, "pad", context)
            if spatial == 1, let given = pad {
                guard given.count == 2 else { throw context.fail("1-D pooling needs 2 pad values") }
                pad = [0, 0] + given
            }
            let excludePadding = (try constantInts(arguments, "exclude_padding_from_average", context)?.first ?? 0) != 0
            let ceilMode = (try constantInts(arguments, "ceil_mode", context)?.first ?? 0) != 0
            let kind: Pooling2D.Kind = kind == .average(excludePadding: false) ? .average(excludePadding: excludePadding) : kind
            let (kernelHeight, kernelWidth) = spatial == 2 ? (kernel[0], kernel[1]) : (1, kernel[0])
            let (strideHeight, strideWidth) = spatial == 2 ? (strides[0], strides[1]) : (1, strides[0])
            return { slots in
                let input = fetch(x, slots)
                guard input.shape.count == spatial + 2 else { throw context.fail("input \(input.shape) is not N×C×\(spatial == 2 ? "H×W" : "W")") }
                let (n, c) = (input.shape[0], input.shape[1])
                let (height, width) = spatial == 2 ? (input.shape[2], input.shape[3]) : (1, input.shape[2])
                let window = try window(padType, pad: pad, size: (height, width), kernel: (kernelHeight, kernelWidth),
                                        stride: (strideHeight, strideWidth), dilation: (1, 1), ceilMode: ceilMode, context)
                // An average whose last window runs past the padded input would need a divisor of its own (PyTorch clips the window).
                if kind == .average(excludePadding: false) && window.overrunsPadding {
                    throw context.fail("avg_pool with ceil_mode counting the padding, where a window runs past the padded input, is not supported yet")
                }
                let shape = spatial == 2 ? [n, c, window.outputHeight, window.outputWidth] : [n, c, window.outputWidth]
                var values = try slots.unfilledBuffer(shape, context)
                input.values.withUnsafeBufferPointer { x in
                    values.withUnsafeMutableBufferPointer { y in
                        guard let x = x.baseAddress, let y = y.baseAddress else { return }
                        Pooling2D(kind, window: window).forward(x, into: y, planes: n * c)
                    }
                }
                slots[outputs[0]] = MILTensor(shape: shape, values: values)
            }
        }
    }
}

/// `conv` beyond a constant 2-D kernel: 1-D convolution (run by ``Conv2DPlan`` as 2-D with height
/// 1), 3-D convolution (``ConvolutionND``), and weights or a bias computed by the program (iOS 17
/// allows both; read at every run, the plan then unpacked).
extension MILOperations {
    static func convolutionOfAnyRank(_ arguments: Arguments, _ outputs: [Int], _ context: OperationContext) throws -> ProgramPlan.Step {
        let x = try argument(arguments, "x", context), weightArgument = try argument(arguments, "weight", context)
        let biasArgument = arguments["bias"]?.first
        let strides = try constantInts(arguments, "strides", context), dilations = try constantInts(arguments, "dilations", context)
        let groups = try constantInts(arguments, "groups", context)?.first ?? 1
        let padType = try constantString(arguments, "pad_type", context) ?? "valid"
        let pad = try constantInts(arguments, "pad", context)
        guard groups >= 1, groups <= 1 << 24 else { throw context.fail("groups \(groups) must be positive") }
        let epilogue = { (bias: UnsafePointer<Float>?) in Activation.epilogue(context.fusedActivation, rowBias: bias) }
        // A constant 1-D weight: its plan (as 2-D with height 1) made once.
        var constantPlan: Conv2DPlan?
        if case .constant(.tensor(let weight)) = weightArgument {
            try checkConvolutionWeight(weight.shape, context)
            if weight.shape.count == 3 {
                let layout = try planarLayout(weight.shape, groups: groups, strides: strides, dilations: dilations, context)
                constantPlan = weight.values.withUnsafeBufferPointer { Conv2DPlan(layout, constantWeights: $0) }
            }
        }
        return { slots in
            let input = fetch(x, slots), weight = fetch(weightArgument, slots), bias = biasArgument.map { fetch($0, slots) }
            try checkConvolutionWeight(weight.shape, context)
            let axes = weight.shape.count - 2, (outChannels, perGroup) = (weight.shape[0], weight.shape[1])
            guard input.shape.count == axes + 2, outChannels % groups == 0, input.shape[1] == perGroup * groups else {
                throw context.fail("input \(input.shape) does not fit weight \(weight.shape) with \(groups) groups (N×C×spatial, C = \(perGroup) × groups)")
            }
            if let bias, bias.count != outChannels { throw context.fail("conv's bias has \(bias.count) values, not one per the \(outChannels) output channels") }
            let n = input.shape[0]
            if axes <= 2 {
                let layout = try planarLayout(weight.shape, groups: groups, strides: strides, dilations: dilations, context)
                let plan = constantPlan ?? Conv2DPlan(layout, constantWeights: nil)
                // A 1-D pad is [left, right]; the plane's is [top, bottom, left, right].
                let planarPad = axes == 1 ? pad.map { $0.count == 2 ? [0, 0] + $0 : $0 } : pad
                let size = axes == 1 ? (1, input.shape[2]) : (input.shape[2], input.shape[3])
                let window = try window(padType, pad: planarPad, size: size, kernel: layout.kernel, stride: layout.stride,
                                        dilation: layout.dilation, context)
                try slots.countMultiplyAdds(n, outChannels, window.outputPlane, layout.patch, context: context)
                let shape = [n, outChannels] + (axes == 1 ? [window.outputWidth] : [window.outputHeight, window.outputWidth])
                var values = try slots.unfilledBuffer(shape, context)
                try convolve(plan, input.values, into: &values, images: n, window: window, weight: weight.values, bias: bias?.values,
                             epilogue: epilogue, &slots, context)
                slots[outputs[0]] = MILTensor(shape: shape, values: values)
                return
            }
            let window = try windowND(padType, pad: pad, input: Array(input.shape[2...]), kernel: Array(weight.shape[2...]), strides: strides,
                                      dilations: dilations, context)
            let convolution = ConvolutionND(inChannels: input.shape[1], outChannels: outChannels, groups: groups, window: window)
            try slots.countMultiplyAdds(n, outChannels, window.outputCount, perGroup, window.kernelCount, context: context)
            let shape = [n, outChannels] + window.output
            var values = try slots.unfilledBuffer(shape, context)
            var columns = try slots.unfilledBuffer([max(convolution.scratchFloats, 1)], context)
            convolution.run(transposed: false, input.values, weights: weight.values, bias: bias?.values, into: &values, images: n, scratch: &columns)
            if let activation = context.fusedActivation, !values.isEmpty {
                values.withUnsafeMutableBufferPointer { activation.apply($0.baseAddress!, count: $0.count) }
            }
            slots.recycle(columns)
            slots[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }

    /// A convolution weight of 1 to 3 spatial axes, none empty.
    private static func checkConvolutionWeight(_ shape: [Int], _ context: OperationContext) throws {
        guard (3...5).contains(shape.count), !shape.contains(0) else {
            throw context.fail("the weight \(shape) is not a non-empty [C_out, C_in/groups, kernel…] of 1 to 3 spatial axes")
        }
    }

    /// The ``Conv2DPlan/Layout`` of a 1-D (as 2-D with height 1) or 2-D `weight` shape.
    private static func planarLayout(_ shape: [Int], groups: Int, strides: [Int]?, dilations: [Int]?, _ context: OperationContext) throws -> Conv2DPlan.Layout {
        let axes = shape.count - 2
        let strides = strides ?? Array(repeating: 1, count: axes), dilations = dilations ?? Array(repeating: 1, count: axes)
        guard strides.count == axes, dilations.count == axes, shape[0] % groups == 0 else {
            throw context.fail("strides \(strides) and dilations \(dilations) need \(axes) values each, groups \(groups) must divide \(shape[0])")
        }
        let planar = axes == 1 ? (kernel: (1, shape[2]), stride: (1, strides[0]), dilation: (1, dilations[0]))
            : (kernel: (shape[2], shape[3]), stride: (strides[0], strides[1]), dilation: (dilations[0], dilations[1]))
        return Conv2DPlan.Layout(outChannels: shape[0], inPerGroup: shape[1], groups: groups, kernel: planar.kernel, stride: planar.stride,
                                 dilation: planar.dilation)
    }

    /// The window of a convolution over `input` (spatial sizes) with MIL's `pad_type` (`pad`: before
    /// and after each axis for `custom`; `same` pads to `ceil(input / stride)` outputs, the odd
    /// one after, `same_lower` before).
    static func windowND(_ padType: String, pad: [Int]?, input: [Int], kernel: [Int], strides: [Int]?, dilations: [Int]?,
                         _ context: OperationContext) throws -> ConvolutionND.Window {
        let axes = input.count
        let strides = strides ?? Array(repeating: 1, count: axes), dilations = dilations ?? Array(repeating: 1, count: axes)
        guard strides.count == axes, dilations.count == axes, strides.allSatisfy({ $0 > 0 && $0 <= 1 << 16 }),
              dilations.allSatisfy({ $0 > 0 && $0 <= 1 << 16 }), kernel.allSatisfy({ $0 <= 1 << 16 }) else {
            throw context.fail("strides \(strides) and dilations \(dilations) need \(axes) values from 1 to 65536")
        }
        guard input.allSatisfy({ $0 > 0 }) else { throw context.fail("the input's spatial sizes \(input) include an empty one") }
        var before = [Int](), output = [Int]()
        for axis in 0..<axes {
            let extent = (kernel[axis] - 1) * dilations[axis] + 1
            var pads = (0, 0)
            switch padType {
            case "valid": break
            case "custom":
                guard let pad, pad.count == 2 * axes, pad.allSatisfy({ $0 >= 0 && $0 <= 1 << 16 }) else {
                    throw context.fail("custom padding needs \(2 * axes) values from 0 to 65536")
                }
                pads = (pad[2 * axis], pad[2 * axis + 1])
            case "same", "same_lower":
                let count = (input[axis] + strides[axis] - 1) / strides[axis]
                let total = max(0, (count - 1) * strides[axis] + extent - input[axis])
                pads = padType == "same" ? (total / 2, total - total / 2) : (total - total / 2, total / 2)
            default: throw context.fail("pad_type '\(padType)' is not supported")
            }
            let span = input[axis] + pads.0 + pads.1 - extent
            guard span >= 0 else { throw context.fail("the window is larger than the padded input \(input)") }
            before.append(pads.0)
            output.append(span / strides[axis] + 1)
        }
        return ConvolutionND.Window(input: input, output: output, kernel: kernel, stride: strides, dilation: dilations, padBefore: before)
    }
}

/// `conv_quantized` (iOS 15, experimental in coremltools): `conv` whose constant weight is stored
/// as integers, `W = W_q · quant_scale + quant_bias` (`quantization_type` `linear`; the scale and
/// bias one value, or one per output channel). The weight is dequantized once, when the step is
/// made, and the convolution runs as `conv` with that constant weight. `lut` quantization (its
/// table layout is not documented) is an error naming it.
extension MILOperations {
    static let quantizedConvolution: Make = { arguments, outputs, context in
        let kind = try constantString(arguments, "quantization_type", context) ?? "linear"
        guard kind == "linear" else { throw context.fail("quantization_type '\(kind)' is not supported (only linear)") }
        guard let weight = try constantTensor(arguments, "weight", context), let scale = try constantTensor(arguments, "quant_scale", context),
              let bias = try constantTensor(arguments, "quant_bias", context) else {
            throw context.fail("conv_quantized needs a constant weight, quant_scale and quant_bias")
        }
        guard let channels = weight.shape.first, channels > 0 else { throw context.fail("conv_quantized's weight \(weight.shape) is empty") }
        let perChannel = weight.count / channels
        for (name, tensor) in [("quant_scale", scale), ("quant_bias", bias)] where tensor.count != 1 && tensor.count != channels {
            throw context.fail("\(name) has \(tensor.count) values: 1 or one per output channel (\(channels))")
        }
        var values = weight.values
        for index in values.indices {
            let channel = index / perChannel
            values[index] = values[index] * scale.values[scale.count == 1 ? 0 : channel] + bias.values[bias.count == 1 ? 0 : channel]
        }
        var plain = arguments
        for name in ["quantization_type", "nbits", "quant_scale", "quant_bias"] { plain[name] = nil }
        plain["weight"] = [.constant(.tensor(MILTensor(shape: weight.shape, values: values)))]
        return try convolution(plain, outputs, context)
    }
}
