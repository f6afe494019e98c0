import CoreMLSpec

extension CoreML_Specification_Model {
    /// Sets the network's optimizer with its defaults and allowed values: `SGD(…)` or `Adam(…)`.
    ///
    /// - Parameter optimizer: The optimizer with its defaults and allowed values.
    /// - Throws: A ``ModelToolsError`` when the model is not a neural network or a default lies outside
    ///   its allowed values.
    public mutating func setOptimizer(_ optimizer: any Optimizer) throws {
        let specification: CoreML_Specification_Optimizer
        do {
            specification = try optimizer.optimizerSpecification()
        } catch let error as ModelToolsError {
            throw ModelToolsError("optimizer › \(error.location)", error.message)
        }
        try editNetwork { $0.updateParams.optimizer = specification }
    }

    /// Sets the default number of epochs and the values an app may choose: a set, a range, or
    /// (neither given) 1 up to at least 1000.
    ///
    /// - Parameters:
    ///   - epochs: The default number of epochs; at least 1.
    ///   - allowed: The epoch counts an app may choose; give this or `range`, not both.
    ///   - range: The range of epoch counts an app may choose.
    /// - Throws: A ``ModelToolsError`` when the model is not a neural network, both `allowed` and
    ///   `range` are given, or `epochs` is not among the allowed values.
    public mutating func setEpochs(_ epochs: UInt, allowed: [UInt]? = nil, range: ClosedRange<UInt>? = nil) throws {
        let parameter: CoreML_Specification_Int64Parameter
        switch (allowed, range) {
        case (let set?, nil): parameter = try .parameter("epochs", epochs, allowed: set)
        case (nil, let range?): parameter = try .parameter("epochs", epochs, range: range)
        case (nil, nil): parameter = try .parameter("epochs", epochs, range: 1...max(epochs, 1000))
        case (_?, _?): throw ModelToolsError("epochs", "give allowed values or a range, not both")
        }
        try editNetwork { $0.updateParams.epochs = parameter }
    }

    /// Whether training reshuffles the examples every epoch, and from which seed.
    ///
    /// - Parameters:
    ///   - shuffle: Whether every epoch sees the examples in a new order.
    ///   - seed: The shuffling seed; nil leaves the model's as it is.
    /// - Throws: A ``ModelToolsError`` when the model is not a neural network.
    public mutating func setShuffle(_ shuffle: Bool, seed: UInt? = nil) throws {
        try editNetwork { network in
            network.updateParams.shuffle.defaultValue = shuffle
            if let seed { network.updateParams.seed.defaultValue = Int64(seed) }
        }
    }
}
