import _OpenCoreMLKernels

/// Transposed convolution (`conv_transpose`: the adjoint of `conv`, as decoders upsample with
/// it; 1-D as 2-D with height 1, 2-D by the C kernels, 3-D by ``ConvolutionND``; the weight may be
/// computed, as iOS 17 allows) and `crop` (what coremltools puts after one converted from PyTorch's `padding`), over
/// N×C×H×W inputs.
///
/// Input position i of a spatial axis feeds output positions i·stride + k·dilation − pad_before for
/// every kernel tap k. Each image and group is one matrix product, columns = Wᵀ·X (a column per
/// input position, a row per output channel and tap), which `ocm_col2im` adds into the output: the
/// transpose of `conv`'s im2col and product.
extension MILOperations {
    static let convolutionTranspose: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context), weightArgument = try argument(arguments, "weight", context)
        let biasArgument = arguments["bias"]?.first
        let groups = try constantInts(arguments, "groups", context)?.first ?? 1
        let strides = try constantInts(arguments, "strides", context), dilations = try constantInts(arguments, "dilations", context)
        let padType = try constantString(arguments, "pad_type", context) ?? "valid"
        let pad = try constantInts(arguments, "pad", context)
        let outputShape = try constantInts(arguments, "output_shape", context)
        guard groups >= 1, groups <= 1 << 24 else { throw context.fail("groups \(groups) must be positive") }
        // same_lower (the odd padding row at the start) is not MIL's: a lowered classic deconvolution with TOP_LEFT_HEAVY padding uses it.
        guard ["valid", "custom", "same", "same_lower"].contains(padType) else { throw context.fail("pad_type '\(padType)' is not supported") }
        if case .constant(.tensor(let weight)) = weightArgument { try checkTransposeWeight(weight.shape, groups: groups, context) }
        return { slots in
            let input = fetch(x, slots), weight = fetch(weightArgument, slots), bias = biasArgument.map { fetch($0, slots) }
            try checkTransposeWeight(weight.shape, groups: groups, context)
            let axes = weight.shape.count - 2, inChannels = weight.shape[0], outChannels = weight.shape[1] * groups
            guard input.shape.count == axes + 2, input.shape[1] == inChannels else {
                throw context.fail("input \(input.shape) does not have \(inChannels) channels in N×C×spatial (\(axes) spatial axes)")
            }
            if let bias, bias.count != outChannels { throw context.fail("conv_transpose's bias has \(bias.count) values, not \(outChannels)") }
            let strides = strides ?? Array(repeating: 1, count: axes), dilations = dilations ?? Array(repeating: 1, count: axes)
            let kernel = Array(weight.shape[2...]), sizes = Array(input.shape[2...])
            guard strides.count == axes, dilations.count == axes, strides.allSatisfy({ $0 > 0 && $0 <= 1 << 16 }),
                  dilations.allSatisfy({ $0 > 0 && $0 <= 1 << 16 }), kernel.allSatisfy({ $0 <= 1 << 16 }), sizes.allSatisfy({ $0 <= 1 << 24 }) else {
                throw context.fail("strides and dilations need \(axes) values from 1 to 65536")
            }
            let pad = pad ?? Array(repeating: 0, count: 2 * axes)
            guard pad.count == 2 * axes, pad.allSatisfy({ $0 >= 0 && $0 <= 1 << 16 }) else {
                throw context.fail("pad needs \(2 * axes) values from 0 to 65536")
            }
            if let outputShape, outputShape.count != axes + 2 || outputShape[1] != outChannels || outputShape[2...].contains(where: { $0 < 1 || $0 > 1 << 24 }) {
                throw context.fail("output_shape \(outputShape) is not [n, \(outChannels), spatial…] with positive sizes")
            }
            // The full output of every tap, then the padding taken off its start (and end).
            var before = [Int](), size = [Int]()
            for axis in 0..<axes {
                let full = (sizes[axis] - 1) * strides[axis] + (kernel[axis] - 1) * dilations[axis] + 1
                switch padType {
                case "custom": (before, size) = (before + [pad[2 * axis]], size + [full - pad[2 * axis] - pad[2 * axis + 1]])
                case "same", "same_lower":
                    let extra = max(full - sizes[axis] * strides[axis], 0)
                    (before, size) = (before + [padType == "same" ? extra / 2 : extra - extra / 2], size + [sizes[axis] * strides[axis]])
                default: (before, size) = (before + [0], size + [full])
                }
            }
            if let outputShape { size = Array(outputShape[2...]) }
            guard size.allSatisfy({ $0 > 0 }), sizes.allSatisfy({ $0 > 0 }) else { throw context.fail("the padding leaves no output of input \(input.shape)") }
            let n = input.shape[0], shape = [n, outChannels] + size
            try slots.countMultiplyAdds(n, inChannels, sizes.reduce(1, *), outChannels / groups, kernel.reduce(1, *), context: context)
            var values: [Float]
            if axes == 3 {
                guard n > 0 else {
                    slots[outputs[0]] = MILTensor(shape: shape, values: [])
                    return
                }
                let window = ConvolutionND.Window(input: size, output: sizes, kernel: kernel, stride: strides, dilation: dilations, padBefore: before)
                let transpose = ConvolutionND(inChannels: inChannels, outChannels: outChannels, groups: groups, window: window)
                values = try slots.unfilledBuffer(shape, context)
                var columns = try slots.unfilledBuffer([max(transpose.transposeScratchFloats, 1)], context)
                transpose.run(transposed: true, input.values, weights: weight.values, bias: bias?.values, into: &values, images: n, scratch: &columns)
                slots.recycle(columns)
            } else {
                // 1-D as 2-D with height 1.
                let planar = axes == 1 ? (h: 1, w: sizes[0], kh: 1, kw: kernel[0], sh: 1, sw: strides[0], dh: 1, dw: dilations[0],
                                          before: (0, before[0]), size: (1, size[0]))
                    : (h: sizes[0], w: sizes[1], kh: kernel[0], kw: kernel[1], sh: strides[0], sw: strides[1], dh: dilations[0], dw: dilations[1],
                       before: (before[0], before[1]), size: (size[0], size[1]))
                values = try transposed2D(input.values, weight.values, bias: bias?.values, images: n, inChannels: inChannels, outChannels: outChannels,
                                          groups: groups, planar, &slots, context)
            }
            slots[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }

    /// A `conv_transpose` weight: `[C_in, C_out/groups, kernel…]` of 1 to 3 spatial axes, none empty,
    /// `groups` dividing `C_in`.
    private static func checkTransposeWeight(_ shape: [Int], groups: Int, _ context: OperationContext) throws {
        guard (3...5).contains(shape.count), !shape.contains(0) else {
            throw context.fail("conv_transpose's weight \(shape) is not a non-empty [C_in, C_out/groups, kernel…] of 1 to 3 spatial axes")
        }
        guard shape[0] % groups == 0 else { throw context.fail("groups \(groups) does not divide the \(shape[0]) input channels") }
    }

    /// A 2-D transposed convolution (`planar`: the plane's sizes, kernel, strides, dilations, the
    /// padding taken off the start and the output size) by the C kernels.
    private static func transposed2D(_ source: [Float], _ weight: [Float], bias: [Float]?, images n: Int, inChannels: Int, outChannels: Int, groups: Int,
                                     _ planar: (h: Int, w: Int, kh: Int, kw: Int, sh: Int, sw: Int, dh: Int, dw: Int, before: (Int, Int), size: (Int, Int)),
                                     _ slots: inout ProgramPlan.Frame, _ context: OperationContext) throws -> [Float] {
        let (h, w, kh, kw, size, before) = (planar.h, planar.w, planar.kh, planar.kw, planar.size, planar.before)
        let perGroup = inChannels / groups, outPerGroup = outChannels / groups, rows = outPerGroup * kh * kw
        let plane = h * w, outPlane = size.0 * size.1
        var values = try slots.buffer([n, outChannels, size.0, size.1], context)
        var columns = try slots.buffer([rows, h, w], context)
        source.withUnsafeBufferPointer { source in
            weight.withUnsafeBufferPointer { kernel in
                values.withUnsafeMutableBufferPointer { result in
                    for image in 0..<n {
                        for group in 0..<groups {
                            // columns (C_out/g·kH·kW × H·W) = W_gᵀ · X_g, W_g being C_in/g × (C_out/g·kH·kW).
                            ocm_sgemm(true, false, Int32(rows), Int32(plane), Int32(perGroup), 1, kernel.baseAddress! + group * perGroup * rows,
                                      Int32(rows), source.baseAddress! + (image * inChannels + group * perGroup) * plane, Int32(plane), 0,
                                      &columns, Int32(plane))
                            ocm_col2im(columns, Int32(outPerGroup), Int32(size.0), Int32(size.1), Int32(kh), Int32(kw),
                                       Int32(planar.sh), Int32(planar.sw), Int32(planar.dh), Int32(planar.dw),
                                       Int32(before.0), Int32(before.1), Int32(h), Int32(w),
                                       result.baseAddress! + (image * outChannels + group * outPerGroup) * outPlane)
                        }
                    }
                }
            }
        }
        if let bias {
            for image in 0..<n {
                for channel in 0..<outChannels {
                    let base = (image * outChannels + channel) * outPlane
                    for index in 0..<outPlane { values[base + index] += bias[channel] }
                }
            }
        }
        slots.recycle(columns)
        return values
    }

    /// `crop`: takes `crop_height` = [top, bottom] rows and `crop_width` = [left, right] columns off
    /// the last two axes.
    static let crop: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        guard let height = try constantInts(arguments, "crop_height", context), height.count == 2,
              let width = try constantInts(arguments, "crop_width", context), width.count == 2,
              (height + width).allSatisfy({ $0 >= 0 }) else {
            throw context.fail("crop needs crop_height and crop_width of two non-negative values each")
        }
        return { slots in
            let input = fetch(x, slots)
            guard input.shape.count >= 2 else { throw context.fail("input \(input.shape) has fewer than two axes") }
            let (h, w) = (input.shape[input.shape.count - 2], input.shape[input.shape.count - 1])
            let (outH, outW) = (h - height[0] - height[1], w - width[0] - width[1])
            guard outH > 0, outW > 0 else { throw context.fail("cropping \(height) × \(width) leaves nothing of \(input.shape)") }
            let planes = input.shape.dropLast(2).reduce(1, *)
            var values = try slots.unfilledBuffer(Array(input.shape.dropLast(2)) + [outH, outW], context)
            for p in 0..<planes {
                for row in 0..<outH {
                    let from = (p * h + row + height[0]) * w + width[0], to = (p * outH + row) * outW
                    for column in 0..<outW { values[to + column] = input.values[from + column] }
                }
            }
            slots[outputs[0]] = MILTensor(shape: Array(input.shape.dropLast(2)) + [outH, outW], values: values)
        }
    }
}
