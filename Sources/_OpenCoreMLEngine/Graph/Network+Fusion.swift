extension Network {
    /// Fuses every convolution → ReLU (→ max pooling) and convolution → clip chain (the activations
    /// ``ActivationProducer/convolution`` absorbs) whose
    /// in-between blobs only the next layer of the chain reads and that are not in `kept` (model
    /// outputs, losses' inputs): the convolution then applies the bias, the activation and the
    /// pooling image by image while the image's output is still in cache (a depthwise convolution
    /// clamps as it stores), and the in-between blobs are never allocated. Results are the same as
    /// running the layers one by one; only a clip's gradient for an input exactly on a bound differs
    /// (see `FusedActivation`).
    static func fuseConvolutionChains(_ nodes: [LayerNode], keeping kept: Set<String>) {
        let soleReader = soleReaders(of: nodes, keeping: kept)
        for case let convolution as ConvolutionNode in nodes where convolution.outputs.count == 1 {
            guard let reader = soleReader(convolution.output), reader.outputs.count == 1,
                  let activation = FusedActivation(reader, into: .convolution) else { continue }
            var pool: PoolingNode?
            if activation.bounds == nil, let next = soleReader(reader.output) as? PoolingNode, next.fusesAsMaxPooling, next.outputs.count == 1 {
                pool = next
            }
            convolution.fuse(activation, pool: pool)
            reader.fusedInto = convolution
            convolution.output.isElided = true
            if let pool {
                pool.fusedInto = convolution
                reader.output.isElided = true
            }
        }
    }

    /// Fuses every residual `add` → activation (or clip) pair whose sum only the activation reads,
    /// that is not in `kept`, and whose activation ``ActivationProducer/residualAdd`` absorbs (none
    /// with per-channel parameters): the add applies the activation to its output in place, and
    /// the sum's blob is never allocated. While training, an activation whose derivative needs its
    /// input (``Activation/differentiatesFromOutput``) has the add keep the sum in a buffer of its
    /// own; the others differentiate from the output. Results are those of the layers one by one
    /// (a clip's gradient for a sum exactly on a bound aside, as for a convolution).
    static func fuseResidualAdds(_ nodes: [LayerNode], keeping kept: Set<String>) {
        let soleReader = soleReaders(of: nodes, keeping: kept)
        for case let add as AddNode in nodes where add.outputs.count == 1 && add.fusedInto == nil {
            guard let reader = soleReader(add.output), reader.outputs.count == 1, reader.output !== add.output,
                  let activation = FusedActivation(reader, into: .residualAdd) else { continue }
            add.fuse(activation)
            reader.fusedInto = add
            add.output.isElided = true
        }
    }

    /// Fuses every hardswish written as three classic layers — a thresholded ReLU, a hard sigmoid
    /// of its output and the product of the two (as converters write `x·relu6(x + 3)/6`) — whose
    /// in-between blobs only those layers read and that are not in `kept`: the thresholded ReLU
    /// runs ``Activation/hardSwish(threshold:alpha:beta:)`` in one pass into the product's blob,
    /// forward and backward, and the other two layers and their blobs go.
    static func fuseHardSwishes(_ nodes: [LayerNode], keeping kept: Set<String>) {
        var readers: [ObjectIdentifier: [LayerNode]] = [:]
        for node in nodes {
            for input in node.inputs { readers[ObjectIdentifier(input), default: []].append(node) }
        }
        func readersOf(_ blob: Blob) -> [LayerNode] { kept.contains(blob.name) ? [] : readers[ObjectIdentifier(blob)] ?? [] }
        for case let threshold as ActivationNode in nodes where threshold.fusedInto == nil && threshold.outputs.count == 1 && threshold.inputs.count == 1 {
            guard case .thresholdedReLU(let cut, let inclusive) = threshold.activation, cut.isFinite else { continue }
            let t = threshold.output, tReaders = readersOf(t)
            guard tReaders.count == 2,
                  let gate = tReaders.first(where: { $0 is ActivationNode }) as? ActivationNode, gate.inputs.count == 1, gate.outputs.count == 1,
                  case .sigmoidHard(let alpha, let beta) = gate.activation, alpha.isFinite, beta.isFinite,
                  let product = tReaders.first(where: { $0 is MultiplyNode }) as? MultiplyNode, product.outputs.count == 1,
                  product.inputs.count == 2, Set(product.inputs.map(ObjectIdentifier.init)) == [ObjectIdentifier(t), ObjectIdentifier(gate.output)],
                  readersOf(gate.output).count == 1 else { continue }
            // The kernel keeps x > threshold; an inclusive cut is the float just below it.
            threshold.fuse(hardSwish: .hardSwish(threshold: inclusive ? cut.nextDown : cut, alpha: alpha, beta: beta), output: product.output)
            gate.fusedInto = threshold
            product.fusedInto = threshold
            t.isElided = true
            gate.output.isElided = true
        }
    }

    /// The one layer reading a blob, when exactly one does (once, as its only input) and the blob
    /// can go (it is not in `kept`).
    private static func soleReaders(of nodes: [LayerNode], keeping kept: Set<String>) -> (Blob) -> LayerNode? {
        var readers: [ObjectIdentifier: [LayerNode]] = [:]
        for node in nodes {
            for input in node.inputs { readers[ObjectIdentifier(input), default: []].append(node) }
        }
        return { blob in
            guard !kept.contains(blob.name), let list = readers[ObjectIdentifier(blob)], list.count == 1,
                  list[0].inputs.count == 1 else { return nil }
            return list[0]
        }
    }
}
