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

/// Control flow: Core ML's `branch` and `loop` layers hold whole networks, name no outputs, and
/// share one blob namespace with the network around them. A nested network reads the blobs of its
/// enclosing networks by name and writes blobs that they read afterwards; a `copy` layer is the only
/// layer that may write a blob that already exists (it overwrites it), which is how a loop body
/// updates the values it carries from one iteration to the next.
extension CoreML_Specification_NeuralNetworkLayer {
    /// Whether the layer is `branch`, `loop`, `loopBreak` or `loopContinue`: layers with no outputs.
    public var isControlFlow: Bool {
        switch layer {
        case .branch?, .loop?, .loopBreak?, .loopContinue?: return true
        default: return false
        }
    }

    /// The networks the layer holds, in the order they first run, each with its field's name: a
    /// branch's `ifBranch` and `elseBranch`, a loop's `conditionNetwork` and `bodyNetwork`.
    public var nestedNetworks: [(field: String, network: CoreML_Specification_NeuralNetwork)] {
        switch layer {
        case .branch(let p)?: return [("ifBranch", p.ifBranch), ("elseBranch", p.elseBranch)]
        case .loop(let p)?: return [("conditionNetwork", p.conditionNetwork), ("bodyNetwork", p.bodyNetwork)]
        default: return []
        }
    }

    /// The blobs the layer writes: its outputs and, for a control-flow layer, every blob a layer of
    /// its nested networks writes (at any depth), in first-written order.
    public var blobsWritten: [String] {
        var seen = Set<String>()
        var result: [String] = []
        func visit(_ layer: Self) {
            for blob in layer.output where seen.insert(blob).inserted { result.append(blob) }
            for (_, network) in layer.nestedNetworks { network.layers.forEach(visit) }
        }
        visit(self)
        return result
    }

    /// The blobs the layer reads from the networks around it: its inputs and, for a control-flow
    /// layer, each input of a nested layer that no nested layer before it (in file order, the
    /// condition network before the body) has written.
    public var blobsRead: [String] {
        var written = Set<String>()
        var seen = Set<String>()
        var result: [String] = []
        func visit(_ layer: Self) {
            for blob in layer.input where !written.contains(blob) && seen.insert(blob).inserted { result.append(blob) }
            switch layer.layer {
            case .branch?:
                // Either branch may run: what one writes is not there for the other.
                let before = written
                var after = before
                for (_, network) in layer.nestedNetworks {
                    written = before
                    network.layers.forEach(visit)
                    after.formUnion(written)
                }
                written = after
            default:
                for (_, network) in layer.nestedNetworks { network.layers.forEach(visit) }
            }
            written.formUnion(layer.output)
        }
        visit(self)
        return result
    }

    /// What is wrong with the inputs and outputs a control-flow or copy layer names (these layers
    /// are outside the layer table's `connectionCounts`): a branch takes its condition, a loop
    /// nothing or its iteration count, loopBreak and loopContinue nothing; none of them names an
    /// output. A copy takes one input and names one output with another name.
    public var controlFlowConnectionIssues: [String] {
        let inputs: ClosedRange<Int>
        switch layer {
        case .branch?: inputs = 1...1
        case .loop?: inputs = 0...1
        case .loopBreak?, .loopContinue?: inputs = 0...0
        case .copy?:
            var issues: [String] = []
            if input.count != 1 { issues.append("a copy layer takes 1 input; this one names \(input.count)") }
            if output.count != 1 { issues.append("a copy layer produces 1 output; this one names \(output.count)") }
            if input.count == 1, output.count == 1, input[0] == output[0] {
                issues.append("a copy layer's input and output must have different names; both are '\(input[0])'")
            }
            return issues
        default: return []
        }
        var issues: [String] = []
        if !inputs.contains(input.count) {
            let expected = inputs.lowerBound == inputs.upperBound ? "\(inputs.lowerBound == 0 ? "no" : "\(inputs.lowerBound)") input\(inputs.lowerBound == 1 ? "" : "s")" : "0 or 1 input"
            issues.append("a \(layerTypeName) layer takes \(expected); this one names \(input.count)")
        }
        if !output.isEmpty {
            issues.append("a \(layerTypeName) layer produces no outputs (its nested networks write blobs); this one names \(output.count)")
        }
        return issues
    }
}
