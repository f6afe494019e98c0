extension CoreML_Specification_NeuralNetworkLayer {
    /// How many inputs and outputs a layer of this type names, as Core ML's validator counts them;
    /// nil for layer types outside the layer table (those the engine does not run yet, and those
    /// the schema does not model). An upper bound of `Int.max` means "no limit".
    ///
    /// A convolution or batchedMatmul takes its weights as a second input when it has one; a
    /// loadConstant takes none; add and multiply take one or more; concat and concatND two or more.
    ///
    /// Difference from Core ML: an LSTM may name 1 to 3 outputs (the sequence, then the final output
    /// and cell state), where Core ML asks for all three.
    public var connectionCounts: (inputs: ClosedRange<Int>, outputs: ClosedRange<Int>)? {
        switch layer {
        case .convolution?, .batchedMatmul?: return (1...2, 1...1)
        case .add?, .multiply?: return (1...Int.max, 1...1)
        case .concat?, .concatNd?: return (2...Int.max, 1...1)
        case .loadConstant?: return (0...0, 1...1)
        case .uniDirectionalLstm?: return (1...3, 1...3)
        case nil: return nil
        case .mvn?, .lrn?, .crop?, .resizeBilinear?, .cropResize?, .average?, .max?, .min?, .dot?, .reduce?, .split?,
             .sequenceRepeat?, .reorganizeData?, .slice?, .simpleRecurrent?, .gru?, .biDirectionalLstm?, .custom?,
             .copy?, .branch?, .loop?, .loopBreak?, .loopContinue?, .rangeStatic?, .rangeDynamic?, .ceil?,
             .floor?, .sign?, .round?, .exp2?, .sin?, .cos?, .tan?, .asin?, .acos?, .atan?, .sinh?, .cosh?,
             .tanh?, .asinh?, .acosh?, .atanh?, .erf?, .gelu?, .equal?, .notEqual?, .lessThan?, .lessEqual?,
             .greaterThan?, .greaterEqual?, .logicalOr?, .logicalXor?, .logicalNot?, .logicalAnd?,
             .modBroadcastable?, .minBroadcastable?, .maxBroadcastable?, .addBroadcastable?, .powBroadcastable?,
             .divideBroadcastable?, .floorDivBroadcastable?, .multiplyBroadcastable?, .subtractBroadcastable?,
             .tile?, .stack?, .gather?, .scatter?, .gatherNd?, .scatterNd?, .gatherAlongAxis?, .scatterAlongAxis?,
             .reverse?, .reverseSeq?, .splitNd?, .transpose?, .sliceStatic?, .sliceDynamic?, .slidingWindows?,
             .topK?, .argMin?, .argMax?, .embeddingNd?, .getShape?, .loadConstantNd?, .fillLike?, .fillStatic?,
             .fillDynamic?, .broadcastToLike?, .broadcastToStatic?, .broadcastToDynamic?, .squeeze?, .expandDims?,
             .reshapeLike?, .reshapeDynamic?, .rankPreservingReshape?, .constantPad?, .randomNormalLike?,
             .randomNormalStatic?, .randomNormalDynamic?, .randomUniformLike?, .randomUniformStatic?,
             .randomUniformDynamic?, .randomBernoulliLike?, .randomBernoulliStatic?, .randomBernoulliDynamic?,
             .categoricalDistribution?, .reduceL1?, .reduceL2?, .reduceMax?, .reduceMin?, .reduceSum?,
             .reduceProd?, .reduceMean?, .reduceLogSum?, .reduceSumSquare?, .reduceLogSumExp?, .whereNonZero?,
             .matrixBandPart?, .lowerTriangular?, .upperTriangular?, .whereBroadcastable?, .layerNormalization?,
             .nonMaximumSuppression?, .oneHot?, .cumSum?, .clampedReLu?, .argSort?, .pooling3D?,
             .globalPooling3D?, .sliceBySize?, .convolution3D?:
            return nil
        case .pooling?, .activation?, .innerProduct?, .embedding?, .batchnorm?, .l2Normalize?, .softmax?, .padding?,
             .upsample?, .unary?, .scale?, .bias?, .reshape?, .flatten?, .permute?, .clip?, .softmaxNd?, .flattenTo2D?,
             .reshapeStatic?:
            return (1...1, 1...1)
        }
    }

    /// What is wrong with the number of inputs and outputs the layer names, by `connectionCounts`:
    /// `"a flatten layer takes 1 input; this one names 2"`. Empty when both fit.
    public var connectionCountIssues: [String] {
        connectionCountIssues(inputs: input.count, outputs: output.count)
    }

    /// `connectionCountIssues` for a layer that names `inputCount` inputs and `outputCount` outputs.
    func connectionCountIssues(inputs inputCount: Int, outputs outputCount: Int) -> [String] {
        guard let counts = connectionCounts else { return [] }
        func describe(_ range: ClosedRange<Int>, _ noun: String) -> String {
            let plural = range.upperBound == 1 ? noun : noun + "s"
            if range.upperBound == 0 { return "no \(noun)s" }
            if range.lowerBound == range.upperBound { return "\(range.lowerBound) \(plural)" }
            if range.upperBound == .max { return "at least \(range.lowerBound) \(range.lowerBound == 1 ? noun : noun + "s")" }
            return "\(range.lowerBound) to \(range.upperBound) \(plural)"
        }
        var issues: [String] = []
        for (verb, noun, range, count) in [("takes", "input", counts.inputs, inputCount), ("produces", "output", counts.outputs, outputCount)]
        where !range.contains(count) {
            let article = layerTypeName.first.map { "aeio".contains($0) } == true ? "an" : "a"
            issues.append("\(article) \(layerTypeName) layer \(verb) \(describe(range, noun)); this one names \(count)")
        }
        return issues
    }
}
