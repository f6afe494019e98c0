import CoreMLSpec

extension LayerLowering {
    /// A `custom` layer: one `custom_layer` operation that the implementation the app registered
    /// for the layer's class computes (``CustomOperation``, found by the layer's name when the
    /// program compiles).
    ///
    /// The implementation sees what Core ML shows it: under `RANK5_ARRAY_MAPPING` every input as
    /// `[Seq, Batch, C, H, W]` (a `[C, H, W]` blob as `[1, 1, C, H, W]`) and every output read back
    /// the same way (its batch must be 1, and its sequence too when the first input had none);
    /// under the exact mapping the values as they are, whose output ranks are then known only
    /// when the layer runs.
    mutating func custom(_ layer: CoreML_Specification_NeuralNetworkLayer, _ inputs: [Value]) throws -> [Value] {
        guard !layer.output.isEmpty else { throw LayerSpecificationError("a custom layer needs at least one output") }
        var arguments: [String] = []
        for x in inputs {
            guard !exactMapping else { arguments.append(x.name); continue }
            guard x.rank == 3 || x.rank == 4 else {
                throw LayerSpecificationError("under the rank-5 mapping a custom layer's inputs are [C, H, W] or [Seq, C, H, W] (an input has rank \(x.rank))")
            }
            arguments.append(expandDims(x.name, x.rank == 4 ? [1] : [0, 1]))
        }
        let names = layer.output.map { _ in emitter.name("custom") }
        emitter.operation("custom_layer", ["x": arguments, "layer": [emitter.string(layer.name)]], outputs: names)
        guard !exactMapping else { return names.map { Value(name: $0, rank: Self.unknownRank) } }
        let sequence = inputs.first?.rank == 4
        return names.map { name in
            let withoutBatch = squeeze(name, [1])
            return sequence ? Value(name: withoutBatch, rank: 4) : Value(name: squeeze(withoutBatch, [0]), rank: 3)
        }
    }
}
