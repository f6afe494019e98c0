import _OpenCoreMLKernels

/// 2-D transposed convolution (`conv_transpose`: the adjoint of `conv`, as decoders upsample with
/// it) and `crop` (what coremltools puts after one converted from PyTorch's `padding`), over
/// N×C×H×W inputs.
///
/// Input position i of a spatial axis feeds output positions i·stride + k·dilation − pad_before for
/// every kernel tap k. Each image and group is one matrix product, columns = Wᵀ·X (a column per
/// input position, a row per output channel and tap), which `ocm_col2im` adds into the output: the
/// transpose of `conv`'s im2col and product.
extension MILOperations {
    static let convolutionTranspose: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        guard case .constant(.tensor(let weight)) = try argument(arguments, "weight", context), weight.shape.count == 4,
              !weight.shape.contains(0) else {
            throw context.fail("conv_transpose needs a constant 4-D weight [C_in, C_out/groups, kH, kW] (2-D only)")
        }
        let groups = try constantInts(arguments, "groups", context)?.first ?? 1
        let (inChannels, outPerGroup, kh, kw) = (weight.shape[0], weight.shape[1], weight.shape[2], weight.shape[3])
        guard groups >= 1, inChannels % groups == 0 else { throw context.fail("groups \(groups) does not divide the \(inChannels) input channels") }
        let outChannels = outPerGroup * groups
        let bias = try arguments["bias"].map { _ -> MILTensor in
            guard case .constant(.tensor(let b)) = try argument(arguments, "bias", context), b.count == outChannels else {
                throw context.fail("conv_transpose's bias must be a constant of \(outChannels) values")
            }
            return b
        }
        let strides = try constantInts(arguments, "strides", context) ?? [1, 1]
        let dilations = try constantInts(arguments, "dilations", context) ?? [1, 1]
        let padType = try constantString(arguments, "pad_type", context) ?? "valid"
        let pad = try constantInts(arguments, "pad", context) ?? [0, 0, 0, 0]
        let outputShape = try constantInts(arguments, "output_shape", context)
        guard strides.count == 2, dilations.count == 2, strides.allSatisfy({ $0 > 0 && $0 <= 1 << 16 }),
              dilations.allSatisfy({ $0 > 0 && $0 <= 1 << 16 }), kh <= 1 << 16, kw <= 1 << 16 else {
            throw context.fail("strides and dilations need two values from 1 to 65536")
        }
        guard pad.count == 4, pad.allSatisfy({ $0 >= 0 && $0 <= 1 << 16 }) else { throw context.fail("pad needs 4 values from 0 to 65536") }
        guard ["valid", "custom", "same"].contains(padType) else { throw context.fail("pad_type '\(padType)' is not supported") }
        if let outputShape, outputShape.count != 4 || outputShape[1] != outChannels || outputShape[2...].contains(where: { $0 < 1 || $0 > 1 << 24 }) {
            throw context.fail("output_shape \(outputShape) is not [n, \(outChannels), H, W] with positive sizes")
        }
        let perGroup = inChannels / groups, rows = outPerGroup * kh * kw
        return { slots in
            let input = fetch(x, slots)
            guard input.shape.count == 4, input.shape[1] == inChannels else {
                throw context.fail("input \(input.shape) does not have \(inChannels) channels in N×C×H×W")
            }
            let (n, h, w) = (input.shape[0], input.shape[2], input.shape[3])
            // The full output of every tap, then the padding taken off its start (and end).
            let full = ((h - 1) * strides[0] + (kh - 1) * dilations[0] + 1, (w - 1) * strides[1] + (kw - 1) * dilations[1] + 1)
            var before = (0, 0), size = full
            switch padType {
            case "custom":
                before = (pad[0], pad[2])
                size = (full.0 - pad[0] - pad[1], full.1 - pad[2] - pad[3])
            case "same":
                size = (h * strides[0], w * strides[1])
                before = (max(full.0 - size.0, 0) / 2, max(full.1 - size.1, 0) / 2)
            default: break
            }
            if let outputShape { size = (outputShape[2], outputShape[3]) }
            guard size.0 > 0, size.1 > 0 else { throw context.fail("the padding leaves no output of input \(input.shape)") }
            let plane = h * w, outPlane = size.0 * size.1
            try slots.countMultiplyAdds(n, inChannels, plane, outPerGroup, kh, kw, context: context)
            var values = try slots.buffer([n, outChannels, size.0, size.1], context)
            var columns = try slots.buffer([rows, h, w], context)
            input.values.withUnsafeBufferPointer { source in
                weight.values.withUnsafeBufferPointer { kernel in
                    values.withUnsafeMutableBufferPointer { result in
                        for image in 0..<n {
                            for group in 0..<groups {
                                // columns (C_out/g·kH·kW × H·W) = W_gᵀ · X_g, W_g being C_in/g × (C_out/g·kH·kW).
                                ocm_sgemm(true, false, Int32(rows), Int32(plane), Int32(perGroup), 1, kernel.baseAddress! + group * perGroup * rows,
                                          Int32(rows), source.baseAddress! + (image * inChannels + group * perGroup) * plane, Int32(plane), 0,
                                          &columns, Int32(plane))
                                ocm_col2im(columns, Int32(outPerGroup), Int32(size.0), Int32(size.1), Int32(kh), Int32(kw),
                                           Int32(strides[0]), Int32(strides[1]), Int32(dilations[0]), Int32(dilations[1]),
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
                        for index in 0..<outPlane { values[base + index] += bias.values[channel] }
                    }
                }
            }
            slots.recycle(columns)
            slots[outputs[0]] = MILTensor(shape: [n, outChannels, size.0, size.1], values: values)
        }
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
