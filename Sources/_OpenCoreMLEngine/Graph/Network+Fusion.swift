extension Network {
    /// Fuses every convolution → ReLU (→ max pooling) chain whose in-between blobs only the next
    /// layer of the chain reads and that are not in `kept` (model outputs, losses' inputs): the
    /// convolution then applies the bias, the ReLU and the pooling image by image while the image's
    /// output is still in cache, and the in-between blobs are never allocated. Results are the same
    /// as running the layers one by one (the same kernels in the same order).
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
            guard let relu = soleReader(convolution.output) as? ActivationNode, relu.isPlainReLU,
                  relu.outputs.count == 1 else { continue }
            var pool: PoolingNode?
            if let reader = soleReader(relu.output) as? PoolingNode, reader.fusesAsMaxPooling, reader.outputs.count == 1 {
                pool = reader
            }
            convolution.fuse(relu: relu, pool: pool)
            relu.fusedInto = convolution
            convolution.output.isElided = true
            if let pool {
                pool.fusedInto = convolution
                relu.output.isElided = true
            }
        }
    }
}
