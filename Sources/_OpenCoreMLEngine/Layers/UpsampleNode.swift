import CoreMLSpec
import Foundation

/// Core ML's classic `upsample`: scales H and W of every channel plane by `scalingFactor`
/// (integers, default `[1, 1]`) or `fractionalScalingFactor` (output size rounded down),
/// by nearest neighbour or bilinear interpolation.
///
/// Bilinear interpolation samples the input grid as `linearUpsampleMode` says (Core ML's
/// `DEFAULT`, `ALIGN_CORNERS_TRUE` and `ALIGN_CORNERS_FALSE` spacings). Nearest neighbour reads
/// input index ⌊i / factor⌋. Backward adds each output gradient into the input positions it
/// was read from, with the interpolation weights.
final class UpsampleNode: LayerNode, @unchecked Sendable {
    let factor: (h: Double, w: Double)
    let bilinear: Bool
    let alignment: CoreML_Specification_UpsampleLayerParams.LinearUpsampleMode

    /// For each output row (column): the two input rows (columns) read and the second one's weight.
    private struct Axis { var first: [Int] = [], second: [Int] = [], weight: [Float] = [] }
    private var rows = Axis(), columns = Axis()

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_UpsampleLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        bilinear = params.mode == .bilinear
        alignment = params.linearUpsampleMode
        do {
            let factors = try params.scalingFactors()
            factor = (factors.height, factors.width)
        } catch let error as LayerSpecificationError {
            throw EngineError("layer '\(spec.name)' (upsample)", error.message)
        }
        super.init(spec, inputs: inputs, outputs: outputs)
        if case .UNRECOGNIZED(let mode) = params.mode { throw fail("unknown interpolation mode \(mode)") }
    }

    override func prepareForShapes() throws {
        let (input, output) = (self.input.shape.classic, self.output.shape.classic)
        rows = axis(input: input.height, output: output.height, factor: factor.h)
        columns = axis(input: input.width, output: output.width, factor: factor.w)
    }

    private func axis(input size: Int, output count: Int, factor: Double) -> Axis {
        var axis = Axis()
        for i in 0..<count {
            guard bilinear else {
                axis.first.append(min(size - 1, Int((Double(i) / factor).rounded(.down))))
                axis.second.append(axis.first[i])
                axis.weight.append(0)
                continue
            }
            let xin = Double(size), xout = Double(count)
            var point: Double
            if count == 1 {
                point = 0
            } else {
                switch alignment {
                case .alignCornersTrue: point = Double(i) * (xin - 1) / (xout - 1)
                case .alignCornersFalse:
                    let spacing = xin / xout
                    point = Double(i) * spacing + 0.5 * spacing - 0.5
                default: point = Double(i) * (xin - xin / xout) / (xout - 1)
                }
            }
            point = min(xin - 1, max(0, point))
            let low = Int(point.rounded(.down))
            axis.first.append(low)
            axis.second.append(min(low + 1, size - 1))
            axis.weight.append(Float(point - Double(low)))
        }
        return axis
    }

    private func planes(_ batch: Int) -> Int {
        let dims = input.shape.classic
        return batch * dims.outer * dims.channels
    }

    override func forward(batch: Int, training: Bool) {
        let x = input.value.pointer, y = output.value.pointer
        let width = input.shape.classic.width, inPlane = input.shape.classic.plane
        let outW = columns.first.count, outPlane = rows.first.count * outW
        for plane in 0..<planes(batch) {
            let source = x + plane * inPlane, target = y + plane * outPlane
            for row in 0..<rows.first.count {
                let top = source + rows.first[row] * width, bottom = source + rows.second[row] * width
                let v = rows.weight[row]
                for column in 0..<outW {
                    let a = columns.first[column], b = columns.second[column], u = columns.weight[column]
                    let upper = top[a] + u * (top[b] - top[a]), lower = bottom[a] + u * (bottom[b] - bottom[a])
                    target[row * outW + column] = upper + v * (lower - upper)
                }
            }
        }
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let dy = output.gradient.pointer
        let width = input.shape.classic.width, inPlane = input.shape.classic.plane
        let outW = columns.first.count, outPlane = rows.first.count * outW
        let planes = planes(batch)
        setGradient(of: input, count: planes * inPlane) { dx in
            dx.update(repeating: 0, count: planes * inPlane)
            for plane in 0..<planes {
                let source = dy + plane * outPlane, target = dx + plane * inPlane
                for row in 0..<rows.first.count {
                    let top = target + rows.first[row] * width, bottom = target + rows.second[row] * width
                    let v = rows.weight[row]
                    for column in 0..<outW {
                        let a = columns.first[column], b = columns.second[column], u = columns.weight[column]
                        let g = source[row * outW + column]
                        top[a] += g * (1 - v) * (1 - u)
                        top[b] += g * (1 - v) * u
                        bottom[a] += g * v * (1 - u)
                        bottom[b] += g * v * u
                    }
                }
            }
        }
    }
}
