import CoreMLSpec

/// Core ML's classic `permute`: reorders the axes `[Seq, C, H, W]` of each example; output axis k
/// is input axis `axis[k]`. Core ML's batch axis is kept apart and never moves.
///
/// `axis` must be a permutation of `[0, 1, 2, 3]` (empty means unchanged). As an extension, a
/// permutation of `[0, 1, 2]` reorders `[C, H, W]` at every sequence position.
final class PermuteNode: IndexMapNode, @unchecked Sendable {
    let axis: [Int]

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_PermuteLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        do {
            axis = try params.classicAxes()
        } catch let error as LayerSpecificationError {
            throw EngineError("layer '\(spec.name)' (permute)", error.message)
        }
        super.init(spec, inputs: inputs, outputs: outputs)
    }

    override func prepareForShapes() throws {
        let source = input.shape.classic.array
        indexMap = axis == [0, 1, 2, 3] ? nil : Self.map(source: source, axis: axis)
    }

    /// For each output position the input position it reads.
    static func map(source: [Int], axis: [Int]) -> ClassicIndexMap {
        var strides = [Int](repeating: 1, count: 4)
        for k in (0..<3).reversed() { strides[k] = strides[k + 1] * source[k + 1] }
        let dims = axis.map { source[$0] }
        let step = axis.map { strides[$0] }
        var map = [Int](repeating: 0, count: source.reduce(1, *))
        var index = 0
        for a in 0..<dims[0] {
            for b in 0..<dims[1] {
                for c in 0..<dims[2] {
                    let base = a * step[0] + b * step[1] + c * step[2]
                    for d in 0..<dims[3] {
                        map[index] = base + d * step[3]
                        index += 1
                    }
                }
            }
        }
        return ClassicIndexMap(map: map)
    }
}
