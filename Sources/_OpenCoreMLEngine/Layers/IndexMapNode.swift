/// A layer that only moves values: each output position reads one input position, given by an index
/// map computed once from the shapes (`nil` when the order does not change, a plain copy). Forward
/// gathers by the map, backward scatters the gradient back. Permute and reshape are such layers;
/// they differ only in the map they compute in `prepareForShapes()`.
class IndexMapNode: LayerNode, @unchecked Sendable {
    var indexMap: ClassicIndexMap?

    override func forward(batch: Int, training: Bool) {
        let x = input.value.pointer, y = output.value.pointer
        if let indexMap { indexMap.gather(x, into: y, batch: batch) } else { y.update(from: x, count: batch * input.shape.count) }
    }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let dy = output.gradient.pointer
        setGradient(of: input, count: batch * input.shape.count) { dx in
            if let indexMap { indexMap.scatter(dy, into: dx, batch: batch) } else { dx.update(from: dy, count: batch * input.shape.count) }
        }
    }
}
