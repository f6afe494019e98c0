/// Sampling an N×C×H×W image at computed positions, by ``PlaneSampler``: `crop_resize` (boxes resized
/// to a fixed size), `resample` (a position per output pixel, PyTorch's `grid_sample`) and `affine`
/// (positions from a 2×3 matrix per image).
extension MILOperations {
    static let imageSampling: [String: Make] = ["crop_resize": cropResize, "resample": resample, "affine": affine]

    /// `crop_resize`: `N` boxes of `x` resized bilinearly to `target_height × target_width` (1 × 1
    /// when absent) on the grid `sampling_mode` names (``PlaneSampler/boxGrid(start:end:count:mode:)``).
    ///
    /// iOS 15 and 16 take `roi` `[N, 1, 4, 1, 1]` (every box from every image: `[N, B, C, h, w]`) or
    /// `[N, 1, 5, 1, 1]` (an image index first: `[N, 1, C, h, w]`); iOS 17 takes `boxes` `[N, 4]` and
    /// `box_indices` `[N]` (0 … N − 1 when absent): `[N, C, h, w]`. Box coordinates are as
    /// `box_coordinate_mode` says, times `spatial_scale`, and with `normalized_coordinates` times
    /// (H − 1) and (W − 1). A sample outside the image (before its first or after its last pixel
    /// centre) is `pad_value` (iOS 16; 0 before).
    ///
    /// Difference from Core ML: boxes with normalized coordinates outside [0, 1] and
    /// `UNALIGN_CORNERS` are sampled where the rule above says; Core ML's CPU gives other values
    /// for them in coremltools' iOS 15 test (an inverted box of coordinates 2 and 1).
    static let cropResize: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        let boxesArgument = arguments["boxes"]?.first, roiArgument = arguments["roi"]?.first, indicesArgument = arguments["box_indices"]?.first
        guard boxesArgument != nil || roiArgument != nil else { throw context.fail("input 'boxes' (or 'roi') is missing") }
        var target = [1, 1]
        for (index, name) in ["target_height", "target_width"].enumerated() {
            if let size = try constantInts(arguments, name, context)?.first {
                guard size > 0, size <= 1 << 24 else { throw context.fail("\(name) \(size) must be above 0") }
                target[index] = size
            }
        }
        let normalized = (try constantInts(arguments, "normalized_coordinates", context)?.first ?? 0) != 0
        let scale = Double(try constantFloat(arguments, "spatial_scale", context) ?? 1)
        let padValue = try constantFloat(arguments, "pad_value", context) ?? 0
        let mode = try constantString(arguments, "sampling_mode", context) ?? "DEFAULT"
        guard PlaneSampler.boxGrid(start: 0, end: 1, count: 1, mode: mode) != nil else { throw context.fail("sampling_mode '\(mode)' is not supported") }
        let coordinateMode = try constantString(arguments, "box_coordinate_mode", context) ?? "CORNERS_HEIGHT_FIRST"
        let order: [Int]
        switch coordinateMode {
        case "CORNERS_HEIGHT_FIRST", "CENTER_SIZE_HEIGHT_FIRST": order = [0, 1, 2, 3]
        case "CORNERS_WIDTH_FIRST", "CENTER_SIZE_WIDTH_FIRST": order = [1, 0, 3, 2]
        default: throw context.fail("box_coordinate_mode '\(coordinateMode)' is not supported")
        }
        let centered = coordinateMode.hasPrefix("CENTER")
        return { slots in
            let image = fetch(x, slots)
            guard image.shape.count == 4 else { throw context.fail("input \(image.shape) is not B×C×H×W") }
            let (b, c, h, w) = (image.shape[0], image.shape[1], image.shape[2], image.shape[3])
            // (box values, image index or nil for every image) per box.
            var crops: [(box: ArraySlice<Float>, image: Int?)] = []
            let shape: [Int]
            if let boxesArgument {
                let boxes = fetch(boxesArgument, slots)
                guard boxes.shape.count == 2, boxes.shape[1] == 4 else { throw context.fail("boxes \(boxes.shape) is not [N, 4]") }
                let n = boxes.shape[0]
                let indices = try indicesArgument.map { try integers(fetch($0, slots).values, "box_indices", context) } ?? Array(0..<n)
                guard indices.count == n else { throw context.fail("box_indices has \(indices.count) values for \(n) boxes") }
                crops = (0..<n).map { (boxes.values[($0 * 4)..<($0 * 4 + 4)], indices[$0]) }
                shape = [n, c, target[0], target[1]]
            } else {
                let roi = fetch(roiArgument!, slots)
                guard roi.shape.count == 5, [4, 5].contains(roi.shape[2]), roi.shape[1] == 1, roi.shape[3] == 1, roi.shape[4] == 1 else {
                    throw context.fail("roi \(roi.shape) is not [N, 1, 4, 1, 1] or [N, 1, 5, 1, 1]")
                }
                let n = roi.shape[0], width = roi.shape[2]
                if width == 5 {
                    crops = try (0..<n).map { (roi.values[($0 * 5 + 1)..<($0 * 5 + 5)], try integers([roi.values[$0 * 5]], "roi", context)[0]) }
                    shape = [n, 1, c, target[0], target[1]]
                } else {
                    crops = (0..<n).map { (roi.values[($0 * 4)..<($0 * 4 + 4)], nil) }
                    shape = [n, b, c, target[0], target[1]]
                }
            }
            var values = try slots.unfilledBuffer(shape, context)
            let plane = h * w, outPlane = target[0] * target[1]
            var written = 0
            // No channels or no boxes: nothing to sample (and no grid made per box for it).
            for crop in crops where !values.isEmpty {
                if let index = crop.image, index < 0 || index >= b { throw context.fail("box image index \(index) is outside the batch of \(b)") }
                let v = crop.box.map { Double($0) * scale }, box = order.map { v[$0] }
                var (y0, x0, y1, x1) = centered ? (box[0] - box[2] / 2, box[1] - box[3] / 2, box[0] + box[2] / 2, box[1] + box[3] / 2)
                    : (box[0], box[1], box[2], box[3])
                if normalized {
                    (y0, y1) = (y0 * Double(h - 1), y1 * Double(h - 1))
                    (x0, x1) = (x0 * Double(w - 1), x1 * Double(w - 1))
                }
                let rows = PlaneSampler.boxGrid(start: y0, end: y1, count: target[0], mode: mode)!
                let columns = PlaneSampler.boxGrid(start: x0, end: x1, count: target[1], mode: mode)!
                for source in crop.image.map({ [$0] }) ?? Array(0..<b) {
                    image.values.withUnsafeBufferPointer { input in
                        guard let input = input.baseAddress, plane > 0 else { return }
                        for channel in 0..<c {
                            let p = input + (source * c + channel) * plane
                            for (i, y) in rows.enumerated() {
                                for (j, x) in columns.enumerated() {
                                    let inside = y >= 0 && y <= Double(h - 1) && x >= 0 && x <= Double(w - 1)
                                    values[written + i * target[1] + j] = inside ? PlaneSampler.bilinear(p, height: h, width: w, y: y, x: x, padding: .border) : padValue
                                }
                            }
                            written += outPlane
                        }
                    }
                    if plane == 0 {
                        for index in written..<(written + c * outPlane) { values[index] = padValue }
                        written += c * outPlane
                    }
                }
            }
            slots[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }

    /// The `sampling_mode`, `padding_mode` (with `padding_value`), `coordinates_mode` and
    /// `align_corners` `resample` and `affine` share.
    private static func samplingParameters(_ arguments: Arguments, _ context: OperationContext) throws
        -> (nearest: Bool, padding: PlaneSampler.Padding, coordinates: PlaneSampler.CoordinateMode, alignCorners: Bool) {
        let nearest: Bool
        switch (try constantString(arguments, "sampling_mode", context) ?? "bilinear").lowercased() {
        case "bilinear": nearest = false
        case "nearest": nearest = true
        case let other: throw context.fail("sampling_mode '\(other)' is not one of bilinear, nearest")
        }
        let padding: PlaneSampler.Padding
        switch (try constantString(arguments, "padding_mode", context) ?? "constant").lowercased() {
        case "constant": padding = .constant(try constantFloat(arguments, "padding_value", context) ?? 0)
        case "border": padding = .border
        case "reflection": padding = .reflection
        case "symmetric": padding = .symmetric
        case let other: throw context.fail("padding_mode '\(other)' is not one of constant, border, reflection, symmetric")
        }
        let name = (try constantString(arguments, "coordinates_mode", context) ?? "normalized_minus_one_to_one").lowercased()
        guard let coordinates = PlaneSampler.CoordinateMode(rawValue: name) else {
            throw context.fail("coordinates_mode '\(name)' is not one of unnormalized, normalized_minus_one_to_one, normalized_zero_to_one")
        }
        let alignCorners = (try constantInts(arguments, "align_corners", context)?.first ?? 1) != 0
        return (nearest, padding, coordinates, alignCorners)
    }

    /// Writes `values[(image, channel, i, j)]` of an `[B, C, outH, outW]` output from `x`, image by
    /// image, sampling at `position(image, i, j)` (an (x, y) pair in `coordinates_mode`).
    private static func sample(_ image: MILTensor, into values: inout [Float], outH: Int, outW: Int,
                               _ parameters: (nearest: Bool, padding: PlaneSampler.Padding, coordinates: PlaneSampler.CoordinateMode, alignCorners: Bool),
                               position: (_ image: Int, _ i: Int, _ j: Int) -> (x: Double, y: Double)) {
        let (b, c, h, w) = (image.shape[0], image.shape[1], image.shape[2], image.shape[3])
        let outPlane = outH * outW
        image.values.withUnsafeBufferPointer { input in
            for n in 0..<b {
                for i in 0..<outH {
                    for j in 0..<outW {
                        let (cx, cy) = position(n, i, j)
                        let x = PlaneSampler.unnormalize(cx, size: w, mode: parameters.coordinates, alignCorners: parameters.alignCorners)
                        let y = PlaneSampler.unnormalize(cy, size: h, mode: parameters.coordinates, alignCorners: parameters.alignCorners)
                        for channel in 0..<c {
                            let target = (n * c + channel) * outPlane + i * outW + j
                            guard h > 0, w > 0, let base = input.baseAddress else {
                                if case .constant(let value) = parameters.padding { values[target] = value } else { values[target] = .nan }
                                continue
                            }
                            let p = base + (n * c + channel) * h * w
                            values[target] = parameters.nearest ? PlaneSampler.nearest(p, height: h, width: w, y: y, x: x, padding: parameters.padding)
                                : PlaneSampler.bilinear(p, height: h, width: w, y: y, x: x, padding: parameters.padding)
                        }
                    }
                }
            }
        }
    }

    /// `resample`: `x` `[B, C, H, W]` read at `coordinates` `[B, H2, W2, 2]` ((x, y) pairs) into
    /// `[B, C, H2, W2]` (see ``PlaneSampler``).
    static let resample: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context), coordinates = try argument(arguments, "coordinates", context)
        let parameters = try samplingParameters(arguments, context)
        return { slots in
            let image = fetch(x, slots), grid = fetch(coordinates, slots)
            guard image.shape.count == 4, grid.shape.count == 4, grid.shape[3] == 2, grid.shape[0] == image.shape[0] else {
                throw context.fail("x \(image.shape) and coordinates \(grid.shape) are not [B, C, H, W] and [B, H2, W2, 2]")
            }
            let (outH, outW) = (grid.shape[1], grid.shape[2])
            let shape = [image.shape[0], image.shape[1], outH, outW]
            var values = try slots.unfilledBuffer(shape, context)
            sample(image, into: &values, outH: outH, outW: outW, parameters) { n, i, j in
                let at = ((n * outH + i) * outW + j) * 2
                return (Double(grid.values[at]), Double(grid.values[at + 1]))
            }
            slots[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }

    /// `affine`: output pixel (i, j) of `[B, C, output_height, output_width]` at normalized
    /// position (x, y) (-1 to 1 across the output, corner to corner with `align_corners`) reads `x`
    /// at (a0·x + a1·y + a2, b0·x + b1·y + b2), `transform_matrix` `[B or 1, 6]` holding
    /// `[a0, a1, a2, b0, b1, b2]` per image, sampled as `resample` does.
    static let affine: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context), matrix = try argument(arguments, "transform_matrix", context)
        let parameters = try samplingParameters(arguments, context)
        guard let outH = try constantInts(arguments, "output_height", context)?.first,
              let outW = try constantInts(arguments, "output_width", context)?.first, outH > 0, outW > 0, outH <= 1 << 24, outW <= 1 << 24 else {
            throw context.fail("affine needs a positive constant output_height and output_width")
        }
        /// The output grid along an axis of `count` pixels, in the normalized coordinates.
        func grid(_ count: Int) -> [Double] {
            (0..<count).map { i in
                let unit = parameters.alignCorners ? (count > 1 ? Double(i) / Double(count - 1) : 0.5) : (Double(i) + 0.5) / Double(count)
                return parameters.coordinates == .zeroToOne ? unit : 2 * unit - 1
            }
        }
        return { slots in
            let image = fetch(x, slots), transform = fetch(matrix, slots)
            guard image.shape.count == 4, transform.shape.count == 2, transform.shape[1] == 6,
                  transform.shape[0] == image.shape[0] || transform.shape[0] == 1 else {
                throw context.fail("x \(image.shape) and transform_matrix \(transform.shape) are not [B, C, H, W] and [B or 1, 6]")
            }
            let shape = [image.shape[0], image.shape[1], outH, outW]
            var values = try slots.unfilledBuffer(shape, context)
            // The grids once the output is known to fit (each at most as long as the output).
            let (rows, columns) = (grid(outH), grid(outW))
            let t = transform.values.map(Double.init), perImage = transform.shape[0] > 1
            sample(image, into: &values, outH: outH, outW: outW, parameters) { n, i, j in
                let m = perImage ? n * 6 : 0, (u, v) = (columns[j], rows[i])
                return (t[m] * u + t[m + 1] * v + t[m + 2], t[m + 3] * u + t[m + 4] * v + t[m + 5])
            }
            slots[outputs[0]] = MILTensor(shape: shape, values: values)
        }
    }
}
