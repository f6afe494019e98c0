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
        var readers: [ObjectIdentifier: [LayerNode]] = [:]
        for node in nodes {
            for input in node.inputs { readers[ObjectIdentifier(input), default: []].append(node) }
        }
        /// The one layer reading `blob`, when exactly one does (once) and the blob can go.
        func soleReader(_ blob: Blob) -> LayerNode? {
            guard !kept.contains(blob.name), let list = readers[ObjectIdentifier(blob)], list.count == 1,
                  list[0].inputs.count == 1 else { return nil }
            return list[0]
        }
        for case let convolution as ConvolutionNode in nodes where convolution.outputs.count == 1 {
            guard let reader = soleReader(convolution.output), reader.outputs.count == 1,
                  let activation = FusedActivation(reader) else { continue }
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
}
