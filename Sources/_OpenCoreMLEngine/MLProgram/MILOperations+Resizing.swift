import Foundation

/// Resampling of trailing dimensions.
///
/// `upsample_nearest_neighbor` and `upsample_bilinear` scale the last two dimensions by constant
/// factors: the output is `floor(H · scale_factor_height) × floor(W · scale_factor_width)`.
/// - `upsample_nearest_neighbor` takes input row `floor(i / scale)` for output row `i`;
/// - `upsample_bilinear` interpolates between the two nearest rows and columns. With
///   `align_corners` (the default) output `i` samples input `i · (in − 1) / (out − 1)`; otherwise,
///   with `half_pixel_centers` (iOS 16; it defaults to the opposite of `align_corners`), it samples
///   `(i + 0.5) · in / out − 0.5`, and without it `i · in / out`, clamped to the input either way.
///
/// iOS 15's `resize_bilinear` and `resize_nearest_neighbor` resample the last two dimensions to
/// constant sizes, iOS 17's `resize` the last `resized_dims` to sizes read from the end of `shape`
/// (which may be computed, e.g. another tensor's `shape`), one dimension after the other; see
/// ``resize`` and ``resizeToTargetSize(bilinear:)``.
extension MILOperations {
    static let resizing: [String: Make] = [
        "upsample_nearest_neighbor": upsample(bilinear: false), "upsample_bilinear": upsample(bilinear: true), "resize": resize,
        "resize_bilinear": resizeToTargetSize(bilinear: true), "resize_nearest_neighbor": resizeToTargetSize(bilinear: false),
    ]

    /// Where output `i` of `count` samples an input of `size` (before clamping to the input).
    typealias Sampling = @Sendable (_ i: Int, _ size: Int, _ count: Int) -> Double

    /// The grids of iOS 15's `resize_bilinear` and iOS 17's `resize`, by `sampling_mode` (coremltools'
    /// documentation of `resize_bilinear`); `upsample_bilinear`'s three rules are the first three.
    static let samplingModes: [String: Sampling] = [
        "STRICT_ALIGN_CORNERS": { i, size, count in count > 1 ? Double(i) * Double(size - 1) / Double(count - 1) : 0 },
        "UNALIGN_CORNERS": { i, size, count in (Double(i) + 0.5) * Double(size) / Double(count) - 0.5 },
        // (in − in/out)/(out − 1) apart, which is in/out.
        "DEFAULT": { i, size, count in Double(i) * Double(size) / Double(count) },
        "ALIGN_CORNERS": { i, size, count in count > 1 ? Double(i) * Double(size - 1) / Double(count - 1) : Double(size - 1) / 2 },
        "OFFSET_CORNERS": { i, size, count in (Double(i) + 0.5) * Double(max(1, size - 1)) / Double(count) },
    ]

    /// Per output position along one dimension of `count`: the two input positions of `size` it
    /// reads and the second one's weight, the sampled position clamped to the input.
    static func linearTaps(_ count: Int, _ size: Int, _ sampling: Sampling) -> [(Int, Int, Float)] {
        (0..<count).map { i in
            let position = min(max(sampling(i, size, count), 0), Double(size - 1))
            let low = Int(position.rounded(.down))
            return (low, min(low + 1, size - 1), Float(position - Double(low)))
        }
    }

    static func upsample(bilinear: Bool) -> Make {
        { arguments, outputs, context in
            let x = try argument(arguments, "x", context)
            let scales = try ["scale_factor_height", "scale_factor_width"].map { name in
                let scale = Double(try constantFloat(arguments, name, context) ?? 1)
                guard scale.isFinite, scale > 0, scale <= 65536 else { throw context.fail("\(name) \(scale) must be above 0 and at most 65536") }
                return scale
            }
            let sampling: Sampling
            if bilinear {
                let alignCorners = (try constantInts(arguments, "align_corners", context)?.first ?? 1) != 0
                let halfPixel = (try constantInts(arguments, "half_pixel_centers", context)?.first).map { $0 != 0 } ?? !alignCorners
                switch (alignCorners, halfPixel) {
                case (true, true): throw context.fail("align_corners and half_pixel_centers cannot both be true")
                case (true, false): sampling = samplingModes["STRICT_ALIGN_CORNERS"]!
                case (false, true): sampling = samplingModes["UNALIGN_CORNERS"]!
                case (false, false): sampling = samplingModes["DEFAULT"]!
                }
            } else {
                sampling = { _, _, _ in 0 }
            }
            return { slots in
                let input = fetch(x, slots)
                let rank = input.shape.count
                guard rank >= 3 else { throw context.fail("input \(input.shape) has rank below 3") }
                let (h, w) = (input.shape[rank - 2], input.shape[rank - 1])
                let outH = Double(h) * scales[0], outW = Double(w) * scales[1]
                guard outH.rounded(.down) <= Double(context.limit), outW.rounded(.down) <= Double(context.limit) else {
                    throw context.fail("upsampling \(input.shape) by \(scales) is larger than the memory limit allows")
                }
                let shape = Array(input.shape.dropLast(2)) + [Int(outH.rounded(.down)), Int(outW.rounded(.down))]
                var values = try slots.buffer(shape, context)
                let planes = input.shape.dropLast(2).reduce(1, *), (oh, ow) = (shape[rank - 2], shape[rank - 1])
                guard h > 0 && w > 0 else {
                    slots[outputs[0]] = MILTensor(shape: shape, values: values)
                    return
                }
                if bilinear {
                    let rows = linearTaps(oh, h, sampling), columns = linearTaps(ow, w, sampling)
                    for p in 0..<planes {
                        let source = p * h * w, target = p * oh * ow
                        for (y, (y0, y1, fy)) in rows.enumerated() {
                            for (x, (x0, x1, fx)) in columns.enumerated() {
                                let top = input.values[source + y0 * w + x0] * (1 - fx) + input.values[source + y0 * w + x1] * fx
                                let bottom = input.values[source + y1 * w + x0] * (1 - fx) + input.values[source + y1 * w + x1] * fx
                                values[target + y * ow + x] = top * (1 - fy) + bottom * fy
                            }
                        }
                    }
                } else {
                    let rows = (0..<oh).map { min(Int((Double($0) / scales[0]).rounded(.down)), h - 1) }
                    let columns = (0..<ow).map { min(Int((Double($0) / scales[1]).rounded(.down)), w - 1) }
                    for p in 0..<planes {
                        let source = p * h * w, target = p * oh * ow
                        for (y, row) in rows.enumerated() {
                            for (x, column) in columns.enumerated() { values[target + y * ow + x] = input.values[source + row * w + column] }
                        }
                    }
                }
                slots[outputs[0]] = MILTensor(shape: shape, values: values)
            }
        }
    }

    /// Per output position along one dimension, for nearest-neighbour sampling: input
    /// `floor((i + 0.5) · in / out)` for output `i` (the half-pixel rule of TensorFlow's resize,
    /// which coremltools converts to `resize_nearest_neighbor` and, from iOS 17, to `resize`), read
    /// with weight 1.
    static func nearestTaps(_ count: Int, _ size: Int) -> [(Int, Int, Float)] {
        (0..<count).map { i in
            let nearest = min(Int(((Double(i) + 0.5) * Double(size) / Double(count)).rounded(.down)), size - 1)
            return (nearest, nearest, 0)
        }
    }

    /// iOS 17's `resize`: the last `resized_dims` (a constant) dimensions of `x` take their sizes
    /// from the end of `shape` (a 1-D integer tensor of at most `x`'s rank and at least
    /// `resized_dims` values, constant or computed; a 0 keeps the input's size). `interpolation_mode`
    /// `LINEAR` (the default) interpolates on the grid `sampling_mode` names (see ``samplingModes``;
    /// any number of dimensions, two being the bilinear case); `NEAREST_NEIGHBOR` samples as
    /// ``nearestTaps(_:_:)`` says, and only with the `DEFAULT` sampling mode (what nearest sampling
    /// does with the others is not documented; they are an error naming the mode).
    static let resize: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        guard let shape = try IntegerParameter(arguments, "shape", context) else { throw context.fail("input 'shape' is missing") }
        guard let resizedDims = try constantInts(arguments, "resized_dims", context)?.first, resizedDims >= 0 else {
            throw context.fail("resize needs a constant, non-negative resized_dims")
        }
        let mode = try constantString(arguments, "sampling_mode", context) ?? "DEFAULT"
        let sampling = try samplingMode(mode, context)
        let taps: Taps
        switch try constantString(arguments, "interpolation_mode", context) ?? "LINEAR" {
        case "LINEAR":
            taps = { count, size in linearTaps(count, size, sampling) }
        case "NEAREST_NEIGHBOR":
            guard mode == "DEFAULT" else { throw context.fail("NEAREST_NEIGHBOR with sampling_mode '\(mode)' is not supported (only DEFAULT)") }
            taps = nearestTaps
        case let other:
            throw context.fail("interpolation_mode '\(other)' is not one of LINEAR, NEAREST_NEIGHBOR")
        }
        return resampling(x, outputs, context, taps: taps) { slots, inputShape in
            let sizes = try shape.values("shape", slots, context)
            guard resizedDims <= sizes.count, sizes.count <= inputShape.count, sizes.allSatisfy({ $0 >= 0 }) else {
                throw context.fail("shape \(sizes) with resized_dims \(resizedDims) does not fit input \(inputShape) (resized_dims ≤ shape's size ≤ rank, no negative size)")
            }
            return Array(sizes.suffix(resizedDims))
        }
    }

    /// iOS 15's `resize_bilinear` and `resize_nearest_neighbor`: the last two dimensions of `x` (rank
    /// 3 or more) to the constant `target_size_height` × `target_size_width` (1 each when absent,
    /// which only `resize_bilinear` allows), on the grid `sampling_mode` names (`DEFAULT` when
    /// absent; `resize_bilinear` only) or with ``nearestTaps(_:_:)``.
    static func resizeToTargetSize(bilinear: Bool) -> Make {
        { arguments, outputs, context in
            let x = try argument(arguments, "x", context)
            var sizes: [Int] = []
            for name in ["target_size_height", "target_size_width"] {
                let size = try constantInts(arguments, name, context)?.first
                guard let size = size ?? (bilinear ? 1 : nil) else { throw context.fail("input '\(name)' is missing") }
                guard size > 0 else { throw context.fail("\(name) \(size) must be above 0") }
                sizes.append(size)
            }
            let sampling = try samplingMode(try constantString(arguments, "sampling_mode", context) ?? "DEFAULT", context)
            var taps: Taps = nearestTaps
            if bilinear { taps = { count, size in linearTaps(count, size, sampling) } }
            return resampling(x, outputs, context, taps: taps) { [sizes] _, inputShape in
                guard inputShape.count >= 3 else { throw context.fail("input \(inputShape) has rank below 3") }
                return sizes
            }
        }
    }

    static func samplingMode(_ mode: String, _ context: OperationContext) throws -> Sampling {
        guard let sampling = samplingModes[mode] else {
            throw context.fail("sampling_mode '\(mode)' is not one of \(samplingModes.keys.sorted().joined(separator: ", "))")
        }
        return sampling
    }

    /// The input positions and weights for `count` outputs from `size` inputs along one dimension.
    typealias Taps = @Sendable (_ count: Int, _ size: Int) -> [(Int, Int, Float)]

    /// The step that resamples the trailing dimensions of `x`, one after the other, on `taps`, to
    /// the sizes `sizes` gives when it runs (one per trailing dimension, from the frame and the
    /// input's shape; a 0 keeps that dimension's size).
    static func resampling(_ x: ProgramPlan.Argument, _ outputs: [Int], _ context: OperationContext, taps: @escaping Taps,
                           sizes: @escaping (ProgramPlan.Frame, [Int]) throws -> [Int]) -> ProgramPlan.Step {
        { slots in
            var tensor = fetch(x, slots)
            let targets = try sizes(slots, tensor.shape), rank = tensor.shape.count
            for (d, requested) in targets.enumerated() {
                let axis = rank - targets.count + d, size = tensor.shape[axis], count = requested == 0 ? size : requested
                var shape = tensor.shape
                shape[axis] = count
                var values = try slots.unfilledBuffer(shape, context)
                let outer = shape[..<axis].reduce(1, *), inner = shape[(axis + 1)...].reduce(1, *)
                if !values.isEmpty {
                    guard size > 0 else { throw context.fail("cannot resize dimension \(axis) of \(tensor.shape), which is empty, to \(count)") }
                    for (j, (low, high, weight)) in taps(count, size).enumerated() {
                        for o in 0..<outer {
                            let source = o * size * inner, target = (o * count + j) * inner
                            for i in 0..<inner {
                                let a = tensor.values[source + low * inner + i]
                                // A sample on an input position is that value exactly (an infinity too).
                                values[target + i] = weight == 0 ? a : a * (1 - weight) + tensor.values[source + high * inner + i] * weight
                            }
                        }
                    }
                }
                tensor = MILTensor(shape: shape, values: values)
            }
            slots[outputs[0]] = tensor
        }
    }
}
