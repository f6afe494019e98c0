import Foundation

/// Upsampling of the last two dimensions by constant scale factors: the output is
/// `floor(H · scale_factor_height) × floor(W · scale_factor_width)`.
///
/// - `upsample_nearest_neighbor` takes input row `floor(i / scale)` for output row `i`;
/// - `upsample_bilinear` interpolates between the two nearest rows and columns. With
///   `align_corners` (the default) output `i` samples input `i · (in − 1) / (out − 1)`; otherwise,
///   with `half_pixel_centers` (iOS 16; it defaults to the opposite of `align_corners`), it samples
///   `(i + 0.5) · in / out − 0.5`, and without it `i · in / out`, clamped to the input either way.
extension MILOperations {
    static let resizing: [String: Make] = [
        "upsample_nearest_neighbor": upsample(bilinear: false), "upsample_bilinear": upsample(bilinear: true),
    ]

    /// Where output `i` of `count` samples an input of `size`.
    typealias Sampling = @Sendable (_ i: Int, _ size: Int, _ count: Int) -> Double

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
                case (true, false): sampling = { i, size, count in count > 1 ? Double(i) * Double(size - 1) / Double(count - 1) : 0 }
                case (false, true): sampling = { i, size, count in (Double(i) + 0.5) * Double(size) / Double(count) - 0.5 }
                case (false, false): sampling = { i, size, count in Double(i) * Double(size) / Double(count) }
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
                    // Per output row and column: the two input lines it reads and the second one's weight.
                    func taps(_ count: Int, _ size: Int) -> [(Int, Int, Float)] {
                        (0..<count).map { i in
                            let position = min(max(sampling(i, size, count), 0), Double(size - 1))
                            let low = Int(position.rounded(.down))
                            return (low, min(low + 1, size - 1), Float(position - Double(low)))
                        }
                    }
                    let rows = taps(oh, h), columns = taps(ow, w)
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
}
