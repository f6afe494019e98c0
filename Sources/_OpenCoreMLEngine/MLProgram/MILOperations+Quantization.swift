/// iOS 17's `quantize` and `dequantize`: linear quantization of a tensor computed while the program
/// runs, by the formulas the constexpr weights use (``LinearQuantization``). `scale` and
/// `zero_point` are constants, one value or a vector along `axis`; values are held as Float, so
/// a quantized tensor holds whole numbers within its integer type's range.
extension MILOperations {
    static let quantization: [String: Make] = ["quantize": quantize, "dequantize": dequantize]

    /// The integer types `quantize` makes and the values each holds.
    static let quantizedRanges: [String: ClosedRange<Float>] = ["int8": -128...127, "uint8": 0...255]

    /// `quantize(input, zero_point?, scale, axis?, output_dtype)`: clamp(round(input / scale) + zero_point)
    /// to `output_dtype`'s range, rounding half to even.
    static let quantize: Make = { arguments, outputs, context in
        let dtype = try constantString(arguments, "output_dtype", context) ?? ""
        guard let range = quantizedRanges[dtype] else { throw context.fail("output_dtype '\(dtype)' is not int8 or uint8") }
        let parameters = try quantizationParameters(arguments, context)
        if parameters.scale.values.contains(where: { $0 == 0 || !$0.isFinite }) {
            throw context.fail("scale holds 0 or a value that is not finite")
        }
        let input = try argument(arguments, "input", context)
        return { frame in
            let x = fetch(input, frame)
            let quantization = try parameters.resolve(x.shape, context)
            var values = try frame.unfilledBuffer(x.shape, context)
            x.values.withUnsafeBufferPointer { source in
                values.withUnsafeMutableBufferPointer { quantization.quantize(source, into: $0, range: range) }
            }
            frame[outputs[0]] = MILTensor(shape: x.shape, values: values)
        }
    }

    /// `dequantize(input, zero_point?, scale, axis?)`: scale × (input − zero_point).
    static let dequantize: Make = { arguments, outputs, context in
        let parameters = try quantizationParameters(arguments, context)
        let input = try argument(arguments, "input", context)
        return { frame in
            let x = fetch(input, frame)
            let quantization = try parameters.resolve(x.shape, context)
            var values = try frame.unfilledBuffer(x.shape, context)
            values.withUnsafeMutableBufferPointer { output in
                x.values.withUnsafeBufferPointer { source in _ = output.update(fromContentsOf: source) }
                quantization.dequantize(output)
            }
            frame[outputs[0]] = MILTensor(shape: x.shape, values: values)
        }
    }

    /// The constant parameters of `quantize` and `dequantize`, checked against the input's shape
    /// when a step runs (the input's shape may be flexible).
    struct QuantizationParameters {
        let scale: MILTensor
        let zeroPoint: MILTensor?
        let axis: Int?

        func resolve(_ shape: [Int], _ context: OperationContext) throws -> LinearQuantization {
            try LinearQuantization(shape: shape, axis: axis, scale: scale, zeroPoint: zeroPoint, perChannelNeedsAxis: true) { context.fail($0) }
        }
    }

    static func quantizationParameters(_ arguments: Arguments, _ context: OperationContext) throws -> QuantizationParameters {
        guard let scale = try constantTensor(arguments, "scale", context) else { throw context.fail("input 'scale' is missing") }
        let axis = try constantInts(arguments, "axis", context)
        guard axis.map({ $0.count == 1 }) ?? true else { throw context.fail("input 'axis' must be one integer") }
        return QuantizationParameters(scale: scale, zeroPoint: try constantTensor(arguments, "zero_point", context), axis: axis?.first)
    }
}
