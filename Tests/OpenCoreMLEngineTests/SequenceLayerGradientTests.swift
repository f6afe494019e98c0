import CoreMLSpec
import Foundation
import _OpenCoreMLEngine
import Testing
import _OpenCoreMLTestSupport

/// Embedding, LSTM and rank-N layers: forward values against small hand computations, and
/// finite-difference checks of their gradients (inputs' gradients through a trainable layer upstream).
@Suite("Sequence and rank-N layers: embedding, LSTM, softmaxND, concatND, flattenTo2D, reshapeStatic, batchedMatmul")
struct SequenceLayerGradientTests {
    // MARK: Helpers

    /// A network of `net`'s layers (no loss), under the exact mapping when asked.
    static func network(_ net: TestNetwork, exact: Bool = false) throws -> Network {
        var model = net.model
        var spec = CoreML_Specification_NeuralNetwork()
        spec.layers = net.layers
        spec.arrayInputShapeMapping = exact ? .exactArrayMapping : .rank5ArrayMapping
        model.neuralNetwork = spec
        return try Network(model: model)
    }

    static func set(_ network: Network, _ name: String, _ values: [Float]) {
        network.inputBlob(named: name)!.value.pointer.update(from: values, count: values.count)
    }

    static func values(_ network: Network, _ name: String, batch: Int = 1) -> [Float] {
        let blob = network.blobs[name]!
        return blob.value.array(batch * blob.shape.count)
    }

    static func expectClose(_ actual: [Float], _ expected: [Double], tolerance: Double = 1e-5, _ what: String = "",
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(actual.count == expected.count, "\(what): \(actual.count) values, \(expected.count) expected", sourceLocation: sourceLocation)
        for (index, (a, e)) in zip(actual, expected).enumerated() {
            #expect(abs(Double(a) - e) <= tolerance * max(1, abs(e)), "\(what)[\(index)]: \(a), expected \(e)", sourceLocation: sourceLocation)
        }
    }

    /// The error `Network(model:)` throws for `net`, as text ("" when it compiles).
    static func compileError(_ net: TestNetwork, exact: Bool = false) -> String {
        do {
            _ = try network(net, exact: exact)
            return ""
        } catch {
            return "\(error)"
        }
    }

    // MARK: Embedding

    @Test func embeddingLooksUpColumnsAndAddsBias() throws {
        var net = TestNetwork(seed: 10, shape: [4, 1, 1, 1, 1])
        var params = CoreML_Specification_EmbeddingLayerParams()
        params.inputDim = 3
        params.outputChannels = 2
        // W is [outputChannels, inputDim]: row 0 = 1 2 3, row 1 = 4 5 6.
        params.weights.floatValue = [1, 2, 3, 4, 5, 6]
        params.hasBias_p = true
        params.bias.floatValue = [0.5, -0.5]
        net.add("embed", ["x"], ["y"]) { $0.embedding = params }
        let network = try Self.network(net)
        #expect(network.blobs["y"]!.shape == TensorShape([4, 2, 1, 1]))
        network.reserve(batch: 1, training: false)
        // Index 2, 0, then 7 (out of range) and NaN: a zero vector, so the bias alone.
        Self.set(network, "x", [2, 0, 7, .nan])
        network.forward(batch: 1)
        Self.expectClose(Self.values(network, "y"), [3.5, 5.5, 1.5, 3.5, 0.5, -0.5, 0.5, -0.5], "embedding")
    }

    @Test func embeddingWeightGradientIsAScatterAdd() throws {
        var net = TestNetwork(seed: 11, shape: [5, 1, 1, 1, 1])
        var params = CoreML_Specification_EmbeddingLayerParams()
        params.inputDim = 6
        params.outputChannels = 3
        params.weights = net.weights(18)
        params.hasBias_p = true
        params.bias = net.weights(3)
        net.add("embed", ["x"], ["y"], updatable: true) { $0.embedding = params }
        net.finish(output: "y", outputShape: [5, 1, 3, 1, 1], loss: .meanSquaredError)
        try net.model.validate()
        let network = try Network(model: net.model)
        #expect(network.isTrainable)
        let batch = 3
        network.reserve(batch: batch, training: true)
        var random = TestRandom(seed: 12)
        // Indices repeat (so gradients add up) and one is out of range (no gradient).
        Self.set(network, "x", [0, 2, 2, 5, 1, 3, 3, 3, 0, 9, 4, 1, 1, 2, 5])
        Self.set(network, "target", random.floats(batch * 15))
        try GradientCheck.checkFilled(network, batch: batch, samples: 18)

        // The analytic gradient itself: column j of dW sums the output gradients of positions holding j.
        _ = try network.trainingStep(batch: batch)
        let weights = network.parameters.first { $0.name == "embed.weights" }!
        let dy = network.blobs["y"]!.gradient.array(batch * 15)
        let indices: [Int] = [0, 2, 2, 5, 1, 3, 3, 3, 0, 9, 4, 1, 1, 2, 5]
        var expected = [Double](repeating: 0, count: 18)
        for (position, index) in indices.enumerated() where index < 6 {
            for channel in 0..<3 { expected[channel * 6 + index] += Double(dy[position * 3 + channel]) }
        }
        Self.expectClose(weights.gradient.array(18), expected, tolerance: 1e-5, "dW")
    }

    @Test func embeddingFeedingAnLSTM() throws {
        var net = TestNetwork(seed: 13, input: "tokens", shape: [5, 1, 1, 1, 1])
        var params = CoreML_Specification_EmbeddingLayerParams()
        params.inputDim = 7
        params.outputChannels = 3
        params.weights = net.weights(21)
        net.add("embed", ["tokens"], ["e"], updatable: true) { $0.embedding = params }
        net.lstm("lstm", inputs: ["e"], outputs: ["y", "h", "c"], inputSize: 3, hiddenSize: 2, sequenceOutput: false)
        net.finish(output: "y", outputShape: [2], loss: .meanSquaredError)
        try net.model.validate()
        let network = try Network(model: net.model)
        let batch = 2
        network.reserve(batch: batch, training: true)
        var random = TestRandom(seed: 14)
        Self.set(network, "tokens", (0..<(batch * 5)).map { _ in Float(random.int(0..<7)) })
        Self.set(network, "target", random.floats(batch * 2))
        try GradientCheck.checkFilled(network, batch: batch)
    }

    // MARK: LSTM forward

    /// Core ML's LSTM equations in Double (sigmoid, tanh, tanh), one example.
    struct ReferenceLSTM {
        let inputSize: Int, hiddenSize: Int
        let w: [[Double]], r: [[Double]], b: [[Double]]?, p: [[Double]]?

        init(_ layer: CoreML_Specification_NeuralNetworkLayer) {
            let params = layer.uniDirectionalLstm
            let weights = params.weightParams
            inputSize = Int(params.inputVectorSize)
            hiddenSize = Int(params.outputVectorSize)
            let d: (CoreML_Specification_WeightParams) -> [Double] = { $0.floatValue.map(Double.init) }
            w = [weights.inputGateWeightMatrix, weights.forgetGateWeightMatrix, weights.blockInputWeightMatrix, weights.outputGateWeightMatrix].map(d)
            r = [weights.inputGateRecursionMatrix, weights.forgetGateRecursionMatrix, weights.blockInputRecursionMatrix, weights.outputGateRecursionMatrix].map(d)
            b = params.params.hasBiasVectors_p
                ? [weights.inputGateBiasVector, weights.forgetGateBiasVector, weights.blockInputBiasVector, weights.outputGateBiasVector].map(d) : nil
            p = params.params.hasPeepholeVectors_p
                ? [weights.inputGatePeepholeVector, weights.forgetGatePeepholeVector, weights.outputGatePeepholeVector].map(d) : nil
        }

        /// Outputs in processing order, and the final output and cell state.
        func run(_ steps: [[Double]], h0: [Double], c0: [Double], reverse: Bool) -> (ys: [[Double]], h: [Double], c: [Double]) {
            func sigmoid(_ v: Double) -> Double { 1 / (1 + exp(-v)) }
            func affine(_ gate: Int, _ x: [Double], _ h: [Double], _ j: Int) -> Double {
                var sum = b?[gate][j] ?? 0
                for k in 0..<inputSize { sum += w[gate][j * inputSize + k] * x[k] }
                for k in 0..<hiddenSize { sum += r[gate][j * hiddenSize + k] * h[k] }
                return sum
            }
            var h = h0, c = c0
            var ys: [[Double]] = []
            for x in reverse ? steps.reversed() : steps {
                var newH = [Double](repeating: 0, count: hiddenSize), newC = newH
                for j in 0..<hiddenSize {
                    let i = sigmoid(affine(0, x, h, j) + (p?[0][j] ?? 0) * c[j])
                    let f = sigmoid(affine(1, x, h, j) + (p?[1][j] ?? 0) * c[j])
                    let z = tanh(affine(2, x, h, j))
                    newC[j] = c[j] * f + i * z
                    let o = sigmoid(affine(3, x, h, j) + (p?[2][j] ?? 0) * newC[j])
                    newH[j] = o * tanh(newC[j])
                }
                h = newH
                c = newC
                ys.append(h)
            }
            return (ys, h, c)
        }
    }

    @Test func lstmSingleUnitStepByHand() throws {
        // One unit, one input, one step from zero state: every weight 0.5, no bias.
        var net = TestNetwork(seed: 20, shape: [1])
        net.lstm("lstm", inputs: ["x"], outputs: ["y", "h", "c"], inputSize: 1, hiddenSize: 1, biases: false, updatable: false)
        var layer = net.layers[0]
        var w = layer.uniDirectionalLstm.weightParams
        for keyPath in [\CoreML_Specification_LSTMWeightParams.inputGateWeightMatrix, \.forgetGateWeightMatrix, \.blockInputWeightMatrix,
                        \.outputGateWeightMatrix, \.inputGateRecursionMatrix, \.forgetGateRecursionMatrix,
                        \.blockInputRecursionMatrix, \.outputGateRecursionMatrix] {
            w[keyPath: keyPath].floatValue = [0.5]
        }
        layer.uniDirectionalLstm.weightParams = w
        net.layers[0] = layer
        let network = try Self.network(net)
        network.reserve(batch: 1, training: false)
        Self.set(network, "x", [2])
        network.forward(batch: 1)
        // Pre-activations are 0.5·2 = 1 for every gate.
        let gate = 1 / (1 + exp(-1.0))
        let c = gate * tanh(1.0)
        let y = gate * tanh(c)
        Self.expectClose(Self.values(network, "y"), [y], "y")
        Self.expectClose(Self.values(network, "h"), [y], "h")
        Self.expectClose(Self.values(network, "c"), [c], "c")
    }

    @Test(arguments: [(peepholes: false, reverse: false), (peepholes: true, reverse: false), (peepholes: true, reverse: true), (peepholes: false, reverse: true)])
    func lstmForwardMatchesReference(peepholes: Bool, reverse: Bool) throws {
        let (steps, inputSize, hidden, batch) = (4, 3, 2, 2)
        var net = TestNetwork(seed: 21, shape: [Int64(steps), 1, Int64(inputSize), 1, 1])
        net.addInput("h0", [Int64(hidden)])
        net.addInput("c0", [Int64(hidden)])
        net.lstm("lstm", inputs: ["x", "h0", "c0"], outputs: ["y", "h", "c"], inputSize: inputSize, hiddenSize: hidden,
                 sequenceOutput: true, reverse: reverse, peepholes: peepholes, updatable: false)
        net.lstm("last", inputs: ["x", "h0", "c0"], outputs: ["yLast", "hLast", "cLast"], inputSize: inputSize, hiddenSize: hidden,
                 sequenceOutput: false, reverse: reverse, peepholes: peepholes, updatable: false)
        let network = try Self.network(net)
        #expect(network.blobs["y"]!.shape == TensorShape([steps, hidden, 1, 1]))
        #expect(network.blobs["yLast"]!.shape == TensorShape([hidden, 1, 1]))
        #expect(network.blobs["c"]!.shape == TensorShape([hidden, 1, 1]))
        network.reserve(batch: batch, training: false)
        var random = TestRandom(seed: 22)
        let x = random.floats(batch * steps * inputSize), h0 = random.floats(batch * hidden), c0 = random.floats(batch * hidden)
        Self.set(network, "x", x)
        Self.set(network, "h0", h0)
        Self.set(network, "c0", c0)
        network.forward(batch: batch)
        for (layerIndex, names) in [(0, ("y", "h", "c")), (1, ("yLast", "hLast", "cLast"))] {
            let reference = ReferenceLSTM(net.layers[layerIndex])
            var expectedY: [Double] = [], expectedH: [Double] = [], expectedC: [Double] = []
            for example in 0..<batch {
                let sequence = (0..<steps).map { t in (0..<inputSize).map { Double(x[(example * steps + t) * inputSize + $0]) } }
                let result = reference.run(sequence, h0: (0..<hidden).map { Double(h0[example * hidden + $0]) },
                                           c0: (0..<hidden).map { Double(c0[example * hidden + $0]) }, reverse: reverse)
                expectedY += layerIndex == 0 ? result.ys.flatMap { $0 } : result.h
                expectedH += result.h
                expectedC += result.c
            }
            Self.expectClose(Self.values(network, names.0, batch: batch), expectedY, "\(names.0)")
            Self.expectClose(Self.values(network, names.1, batch: batch), expectedH, "\(names.1)")
            Self.expectClose(Self.values(network, names.2, batch: batch), expectedC, "\(names.2)")
        }
    }

    @Test func lstmCellClipAndCoupledGates() throws {
        // Coupled gates with empty forget weights, forget bias, and a tiny cell clip.
        var net = TestNetwork(seed: 23, shape: [3, 1, 2, 1, 1])
        net.lstm("lstm", inputs: ["x"], outputs: ["y"], inputSize: 2, hiddenSize: 2, coupled: true, cellClip: 0.05, updatable: false)
        var layer = net.layers[0]
        layer.uniDirectionalLstm.weightParams.forgetGateWeightMatrix = .init()
        layer.uniDirectionalLstm.weightParams.forgetGateRecursionMatrix = .init()
        net.layers[0] = layer
        let network = try Self.network(net)
        network.reserve(batch: 1, training: false)
        Self.set(network, "x", [1, -1, 0.5, 2, -2, 0.3])
        network.forward(batch: 1)
        // |y| = |o · tanh(c)| ≤ tanh(0.05) when |c| ≤ 0.05.
        for value in Self.values(network, "y") { #expect(abs(value) <= tanh(Float(0.05)) + 1e-6) }
    }

    // MARK: LSTM gradients

    struct LSTMCase: CustomTestStringConvertible, Sendable {
        var peepholes = false, sequenceOutput = true, reverse = false, initialStates = false
        var coupled = false, forgetBias = false, smoothAlternatives = false
        var testDescription: String {
            "peepholes \(peepholes), sequence \(sequenceOutput), reverse \(reverse), h0/c0 \(initialStates), coupled \(coupled), other activations \(smoothAlternatives)"
        }
    }

    @Test(arguments: [
        LSTMCase(),
        LSTMCase(peepholes: true),
        LSTMCase(sequenceOutput: false),
        LSTMCase(peepholes: true, sequenceOutput: false, reverse: true),
        LSTMCase(reverse: true),
        LSTMCase(initialStates: true),
        LSTMCase(peepholes: true, sequenceOutput: false, reverse: true, initialStates: true),
        LSTMCase(peepholes: true, coupled: true, forgetBias: true),
        LSTMCase(initialStates: true, smoothAlternatives: true),
    ])
    func lstmGradients(_ config: LSTMCase) throws {
        let (steps, hidden) = (4, 3)
        var net = TestNetwork(seed: 30, shape: [Int64(steps), 1, 3, 1, 1])
        // Trainable layers before every LSTM input check the gradients the LSTM passes back.
        net.innerProduct("pre", "x", "a", inputs: 3, outputs: 3)
        var inputs = ["a"]
        if config.initialStates {
            net.addInput("h0", [Int64(hidden)])
            net.addInput("c0", [Int64(hidden)])
            net.innerProduct("hpre", "h0", "h0a", inputs: hidden, outputs: hidden)
            net.innerProduct("cpre", "c0", "c0a", inputs: hidden, outputs: hidden)
            inputs += ["h0a", "c0a"]
        }
        var activations: [CoreML_Specification_ActivationParams] = []
        if config.smoothAlternatives {
            var gate = CoreML_Specification_ActivationParams(), cell = gate, output = gate
            gate.sigmoid = .init()
            cell.scaledTanh = .init()  // Core ML's 1.71·tanh(2x/3)
            output.linear.alpha = 0.8
            output.linear.beta = 0.1
            activations = [gate, cell, output]
        }
        net.lstm("lstm", inputs: inputs, outputs: ["y", "hT", "cT"], inputSize: 3, hiddenSize: hidden,
                 sequenceOutput: config.sequenceOutput, reverse: config.reverse, peepholes: config.peepholes,
                 forgetBias: config.forgetBias, coupled: config.coupled, activations: activations)
        net.finish(output: "y", outputShape: config.sequenceOutput ? [Int64(steps), 1, Int64(hidden), 1, 1] : [Int64(hidden)], loss: .meanSquaredError)
        // Losses on the final states too, so their gradients enter backward.
        net.addMeanSquaredErrorLoss(on: "hT", shape: [Int64(hidden)])
        net.addMeanSquaredErrorLoss(on: "cT", shape: [Int64(hidden)])
        try GradientCheck.check(net.model, batch: 3, samples: 10)
    }

    @Test func lstmUnderExactMappingKeepsRankFive() throws {
        var net = TestNetwork(seed: 31, shape: [3, 1, 2, 1, 1])
        net.lstm("lstm", inputs: ["x"], outputs: ["y", "h", "c"], inputSize: 2, hiddenSize: 4, updatable: false)
        let network = try Self.network(net, exact: true)
        #expect(network.blobs["y"]!.shape == TensorShape([3, 1, 4, 1, 1]))
        #expect(network.blobs["h"]!.shape == TensorShape([1, 1, 4, 1, 1]))
    }

    @Test func lstmShapeErrors() throws {
        var wrongSize = TestNetwork(seed: 32, shape: [3, 1, 5, 1, 1])
        wrongSize.lstm("lstm", inputs: ["x"], outputs: ["y"], inputSize: 2, hiddenSize: 4, updatable: false)
        #expect(Self.compileError(wrongSize).contains("inputVectorSize is 2"))

        var wrongState = TestNetwork(seed: 33, shape: [3, 1, 2, 1, 1])
        wrongState.addInput("h0", [3])
        wrongState.lstm("lstm", inputs: ["x", "h0"], outputs: ["y"], inputSize: 2, hiddenSize: 4, updatable: false)
        #expect(Self.compileError(wrongState).contains("outputVectorSize is 4"))

        var unsupported = TestNetwork(seed: 34, shape: [3, 1, 2, 1, 1])
        var elu = CoreML_Specification_ActivationParams()
        elu.elu.alpha = 1
        var sigmoid = CoreML_Specification_ActivationParams()
        sigmoid.sigmoid = .init()
        unsupported.lstm("lstm", inputs: ["x"], outputs: ["y"], inputSize: 2, hiddenSize: 4, activations: [sigmoid, elu, sigmoid], updatable: false)
        #expect(Self.compileError(unsupported).contains("not supported in an LSTM"))

        var twoActivations = TestNetwork(seed: 35, shape: [3, 1, 2, 1, 1])
        twoActivations.lstm("lstm", inputs: ["x"], outputs: ["y"], inputSize: 2, hiddenSize: 4, activations: [sigmoid, sigmoid], updatable: false)
        #expect(Self.compileError(twoActivations).contains("3 expected"))
    }

    @Test func trainedWeightsAreStoredBack() throws {
        var net = TestNetwork(seed: 36, shape: [3, 1, 2, 1, 1])
        net.lstm("lstm", inputs: ["x"], outputs: ["y"], inputSize: 2, hiddenSize: 2, sequenceOutput: false, peepholes: true)
        net.finish(output: "y", outputShape: [2], loss: .meanSquaredError)
        let network = try Network(model: net.model)
        GradientCheck.fillRandomly(network, model: net.model, batch: 2, seed: 3)
        _ = try network.trainingStep(batch: 2)
        for parameter in network.parameters where parameter.isTrainable {
            for index in 0..<parameter.count { parameter.value.pointer[index] -= parameter.gradient.pointer[index] }
        }
        var model = net.model
        network.store(in: &model)
        let w = model.neuralNetwork.layers[0].uniDirectionalLstm.weightParams
        let stored: [String: [Float]] = [
            "lstm.inputGateWeightMatrix": w.inputGateWeightMatrix.floatValue, "lstm.forgetGateRecursionMatrix": w.forgetGateRecursionMatrix.floatValue,
            "lstm.blockInputBiasVector": w.blockInputBiasVector.floatValue, "lstm.outputGatePeepholeVector": w.outputGatePeepholeVector.floatValue,
        ]
        for (name, values) in stored {
            let parameter = network.parameters.first { $0.name == name }!
            #expect(values == parameter.values, "\(name)")
        }
        #expect(w.inputGateWeightMatrix.floatValue != net.layers[0].uniDirectionalLstm.weightParams.inputGateWeightMatrix.floatValue)
    }

    // MARK: softmaxND

    @Test(arguments: [0, 1, -1, -3])
    func softmaxNDGradients(axis: Int64) throws {
        var net = TestNetwork(seed: 40, shape: [2, 3, 4])
        net.batchedMatmul("pre", "x", "a", rows: 4, columns: 4)
        net.add("softmax", ["a"], ["y"]) { $0.softmaxNd.axis = axis }
        net.finish(output: "y", outputShape: [2, 3, 4], loss: .meanSquaredError)
        net.useExactMapping()
        try GradientCheck.check(net.model, batch: 2, samples: 10)
    }

    @Test func softmaxNDNormalizesAlongTheAxis() throws {
        var net = TestNetwork(seed: 41, shape: [2, 3])
        net.add("softmax", ["x"], ["y"]) { $0.softmaxNd.axis = 0 }
        let network = try Self.network(net, exact: true)
        network.reserve(batch: 1, training: false)
        Self.set(network, "x", [0, 1, 2, 0, 3, 2])
        network.forward(batch: 1)
        // Columns: (0, 0), (1, 3), (2, 2).
        let e = exp(2.0)
        Self.expectClose(Self.values(network, "y"), [0.5, 1 / (1 + e), 0.5, 0.5, e / (1 + e), 0.5], "softmaxND")
        var bad = TestNetwork(seed: 42, shape: [2, 3])
        bad.add("softmax", ["x"], ["y"]) { $0.softmaxNd.axis = 2 }
        #expect(Self.compileError(bad, exact: true).contains("axis 2 is outside"))
    }

    // MARK: concatND

    @Test func concatNDOrder() throws {
        func concat(_ shapeA: [Int64], _ shapeB: [Int64], axis: Int64, interleave: Bool = false) throws -> (TensorShape, [Float]) {
            var net = TestNetwork(seed: 50, input: "a", shape: shapeA)
            net.addInput("b", shapeB)
            net.add("concat", ["a", "b"], ["y"]) {
                $0.concatNd.axis = axis
                $0.concatNd.interleave = interleave
            }
            let network = try Self.network(net, exact: true)
            network.reserve(batch: 2, training: false)
            let countA = Int(shapeA.reduce(1, *)), countB = Int(shapeB.reduce(1, *))
            // Example 0: a = 1, 2, …, b = 101, 102, …; example 1 adds 1000.
            Self.set(network, "a", (0..<countA).map { Float($0 + 1) } + (0..<countA).map { Float($0 + 1001) })
            Self.set(network, "b", (0..<countB).map { Float($0 + 101) } + (0..<countB).map { Float($0 + 1101) })
            network.forward(batch: 2)
            return (network.blobs["y"]!.shape, Self.values(network, "y", batch: 2))
        }
        let (rows, rowValues) = try concat([2, 2], [1, 2], axis: 0)
        #expect(rows == TensorShape([3, 2]))
        #expect(rowValues == [1, 2, 3, 4, 101, 102, 1001, 1002, 1003, 1004, 1101, 1102])
        let (columns, columnValues) = try concat([2, 2], [2, 1], axis: -1)
        #expect(columns == TensorShape([2, 3]))
        #expect(columnValues == [1, 2, 101, 3, 4, 102, 1001, 1002, 1101, 1003, 1004, 1102])
        let (middle, middleValues) = try concat([2, 1, 2], [2, 2, 2], axis: 1)
        #expect(middle == TensorShape([2, 3, 2]))
        #expect(Array(middleValues.prefix(12)) == [1, 2, 101, 102, 103, 104, 3, 4, 105, 106, 107, 108])
        let (interleaved, interleavedValues) = try concat([2, 2], [2, 2], axis: 0, interleave: true)
        #expect(interleaved == TensorShape([4, 2]))
        #expect(Array(interleavedValues.prefix(8)) == [1, 2, 101, 102, 3, 4, 103, 104])
    }

    @Test func concatNDShapeErrors() throws {
        var net = TestNetwork(seed: 51, input: "a", shape: [2, 2])
        net.addInput("b", [3, 3])
        net.add("concat", ["a", "b"], ["y"]) { $0.concatNd.axis = 0 }
        #expect(Self.compileError(net, exact: true).contains("differs from input 'a'"))
        var rank = TestNetwork(seed: 52, input: "a", shape: [2, 2])
        rank.addInput("b", [2, 2, 1])
        rank.add("concat", ["a", "b"], ["y"]) { $0.concatNd.axis = 0 }
        #expect(Self.compileError(rank, exact: true).contains("has rank 3"))
    }

    @Test(arguments: [(axis: Int64(0), interleave: false), (axis: -1, interleave: false), (axis: 1, interleave: true)])
    func concatNDGradients(axis: Int64, interleave: Bool) throws {
        var net = TestNetwork(seed: 53, shape: [2, 3])
        let second: [Int64] = interleave ? [2, 3] : axis == 0 ? [1, 3] : [2, 3]
        net.addInput("w", second)
        net.batchedMatmul("pa", "x", "a", rows: 3, columns: 4)
        net.batchedMatmul("pb", "w", "b", rows: 3, columns: axis == 0 || interleave ? 4 : 2)
        // `a` twice: the shared blob's gradient sums both slots.
        net.add("concat", ["a", "b", "a"], ["y"]) {
            $0.concatNd.axis = axis
            $0.concatNd.interleave = interleave
        }
        let outputShape: [Int64] = interleave ? [2, 12] : axis == 0 ? [5, 4] : [2, 10]
        net.finish(output: "y", outputShape: outputShape, loss: .meanSquaredError)
        net.useExactMapping()
        try GradientCheck.check(net.model, batch: 2, samples: 10)
    }

    // MARK: flattenTo2D and reshapeStatic

    @Test func flattenTo2DShapes() throws {
        let cases: [(input: [Int64], axis: Int64, output: [Int])] = [
            ([3], -1, [1, 3]), ([3], 1, [3, 1]), ([4, 3], -1, [4, 3]), ([5, 2], 0, [1, 10]), ([5, 5, 3], -2, [5, 15]), ([2, 3, 2], -1, [6, 2]),
        ]
        for (input, axis, output) in cases {
            var net = TestNetwork(seed: 60, shape: input)
            net.add("flatten", ["x"], ["y"]) { $0.flattenTo2D.axis = axis }
            let network = try Self.network(net, exact: true)
            #expect(network.blobs["y"]!.shape == TensorShape(output), "\(input) axis \(axis)")
        }
        var bad = TestNetwork(seed: 61, shape: [2, 3])
        bad.add("flatten", ["x"], ["y"]) { $0.flattenTo2D.axis = -3 }
        #expect(Self.compileError(bad, exact: true).contains("axis -3 is outside"))
    }

    @Test(arguments: [(axis: Int64(1), rows: 2, columns: 9), (axis: -1, rows: 6, columns: 3), (axis: 0, rows: 1, columns: 18), (axis: 3, rows: 18, columns: 1)])
    func flattenTo2DGradients(axis: Int64, rows: Int, columns: Int) throws {
        var net = TestNetwork(seed: 62, shape: [2, 3, 4])
        net.batchedMatmul("pre", "x", "a", rows: 4, columns: 3)
        net.add("flatten", ["a"], ["f"]) { $0.flattenTo2D.axis = axis }
        net.batchedMatmul("post", "f", "y", rows: columns, columns: 2)
        net.finish(output: "y", outputShape: [Int64(rows), 2], loss: .meanSquaredError)
        net.useExactMapping()
        try GradientCheck.check(net.model, batch: 2, samples: 10)
    }

    @Test func reshapeStaticShapesAndGradients() throws {
        var shapes = TestNetwork(seed: 70, shape: [2, 3, 4])
        shapes.add("r1", ["x"], ["y1"]) { $0.reshapeStatic.targetShape = [4, -1] }
        shapes.add("r2", ["x"], ["y2"]) { $0.reshapeStatic.targetShape = [1, 24] }
        let network = try Self.network(shapes, exact: true)
        #expect(network.blobs["y1"]!.shape == TensorShape([4, 6]))
        #expect(network.blobs["y2"]!.shape == TensorShape([1, 24]))
        network.reserve(batch: 2, training: false)
        let values = (0..<48).map(Float.init)
        Self.set(network, "x", values)
        network.forward(batch: 2)
        #expect(Self.values(network, "y1", batch: 2) == values)

        var wrong = TestNetwork(seed: 71, shape: [2, 3, 4])
        wrong.add("r", ["x"], ["y"]) { $0.reshapeStatic.targetShape = [5, 5] }
        #expect(Self.compileError(wrong, exact: true).contains("holds 25 values"))

        var net = TestNetwork(seed: 72, shape: [2, 3, 4])
        net.batchedMatmul("pre", "x", "a", rows: 4, columns: 3)
        net.add("reshape", ["a"], ["r"]) { $0.reshapeStatic.targetShape = [3, -1] }
        net.batchedMatmul("post", "r", "y", rows: 6, columns: 2)
        net.finish(output: "y", outputShape: [3, 2], loss: .meanSquaredError)
        net.useExactMapping()
        try GradientCheck.check(net.model, batch: 2, samples: 10)
    }

    // MARK: batchedMatmul

    @Test func batchedMatmulWithWeightsByHand() throws {
        var net = TestNetwork(seed: 80, shape: [2, 3])
        var params = CoreML_Specification_BatchedMatMulLayerParams()
        params.weightMatrixFirstDimension = 3
        params.weightMatrixSecondDimension = 2
        // W = [[1, 2], [3, 4], [5, 6]] (X1 × X2), stored column-major: 1 3 5, 2 4 6.
        params.weights.floatValue = [1, 3, 5, 2, 4, 6]
        params.hasBias_p = true
        params.bias.floatValue = [10, 20]
        net.add("mm", ["x"], ["y"]) { $0.batchedMatmul = params }
        let network = try Self.network(net, exact: true)
        #expect(network.blobs["y"]!.shape == TensorShape([2, 2]))
        network.reserve(batch: 1, training: false)
        Self.set(network, "x", [1, 0, -1, 2, 1, 0.5])
        network.forward(batch: 1)
        // [1, 0, -1]·W = [-4, -4]; [2, 1, 0.5]·W = [7.5, 11].
        Self.expectClose(Self.values(network, "y"), [6, 16, 17.5, 31], "a·W + b")
    }

    @Test(arguments: [(transposeA: false, transposeB: false), (transposeA: true, transposeB: false), (transposeA: false, transposeB: true), (transposeA: true, transposeB: true)])
    func batchedMatmulTwoInputsByHand(transposeA: Bool, transposeB: Bool) throws {
        // A holds op(A) = [2, 1, 3, 2] matrices of 3×2 broadcast against B's single 2×4.
        let (m, k, n) = (3, 2, 4)
        let shapeA: [Int64] = [2, 1] + (transposeA ? [Int64(k), Int64(m)] : [Int64(m), Int64(k)])
        let shapeB: [Int64] = [3] + (transposeB ? [Int64(n), Int64(k)] : [Int64(k), Int64(n)])
        var net = TestNetwork(seed: 81, input: "a", shape: shapeA)
        net.addInput("b", shapeB)
        net.add("mm", ["a", "b"], ["y"]) {
            $0.batchedMatmul.transposeA = transposeA
            $0.batchedMatmul.transposeB = transposeB
        }
        let network = try Self.network(net, exact: true)
        #expect(network.blobs["y"]!.shape == TensorShape([2, 3, m, n]))
        network.reserve(batch: 1, training: false)
        var random = TestRandom(seed: 82)
        let a = random.floats(2 * m * k), b = random.floats(3 * k * n)
        Self.set(network, "a", a)
        Self.set(network, "b", b)
        network.forward(batch: 1)
        var expected: [Double] = []
        for i in 0..<2 {
            for j in 0..<3 {
                for row in 0..<m {
                    for column in 0..<n {
                        var sum = 0.0
                        for inner in 0..<k {
                            let av = a[i * m * k + (transposeA ? inner * m + row : row * k + inner)]
                            let bv = b[j * k * n + (transposeB ? column * k + inner : inner * n + column)]
                            sum += Double(av) * Double(bv)
                        }
                        expected.append(sum)
                    }
                }
            }
        }
        Self.expectClose(Self.values(network, "y"), expected, "op(A)·op(B)")
    }

    @Test func batchedMatmulRankOneAndErrors() throws {
        var net = TestNetwork(seed: 83, input: "a", shape: [3])
        net.addInput("b", [3])
        net.add("mm", ["a", "b"], ["y"]) { $0.batchedMatmul = .init() }
        let network = try Self.network(net, exact: true)
        #expect(network.blobs["y"]!.shape == TensorShape([1, 1]))
        network.reserve(batch: 1, training: false)
        Self.set(network, "a", [1, 2, 3])
        Self.set(network, "b", [4, 5, 6])
        network.forward(batch: 1)
        #expect(Self.values(network, "y") == [32])

        var inner = TestNetwork(seed: 84, input: "a", shape: [2, 3])
        inner.addInput("b", [2, 3])
        inner.add("mm", ["a", "b"], ["y"]) { $0.batchedMatmul = .init() }
        #expect(Self.compileError(inner, exact: true).contains("inner sizes 3 and 2 differ"))

        var broadcast = TestNetwork(seed: 85, input: "a", shape: [2, 2, 3])
        broadcast.addInput("b", [3, 3, 2])
        broadcast.add("mm", ["a", "b"], ["y"]) { $0.batchedMatmul = .init() }
        #expect(Self.compileError(broadcast, exact: true).contains("do not broadcast"))

        var weights = TestNetwork(seed: 86, shape: [2, 3])
        weights.batchedMatmul("mm", "x", "y", rows: 4, columns: 2, updatable: false)
        #expect(Self.compileError(weights, exact: true).contains("weightMatrixFirstDimension (4)"))
    }

    @Test func batchedMatmulWithWeightsGradients() throws {
        var net = TestNetwork(seed: 87, shape: [2, 3, 4])
        net.batchedMatmul("first", "x", "a", rows: 4, columns: 5)
        net.add("tanh", ["a"], ["t"]) { $0.activation.tanh = .init() }
        net.batchedMatmul("second", "t", "y", rows: 5, columns: 2, bias: false)
        net.finish(output: "y", outputShape: [2, 3, 2], loss: .meanSquaredError)
        net.useExactMapping()
        try GradientCheck.check(net.model, batch: 3, samples: 10)
    }

    @Test(arguments: [(transposeA: false, transposeB: false), (transposeA: true, transposeB: false), (transposeA: false, transposeB: true), (transposeA: true, transposeB: true)])
    func batchedMatmulTwoInputGradients(transposeA: Bool, transposeB: Bool) throws {
        // op(A): [2, 1] × 3×5 (from x through a trainable matmul), op(B): [3] × 5×2, broadcast to [2, 3] × 3×2.
        var net = TestNetwork(seed: 88, shape: transposeA ? [2, 1, 5, 4] : [2, 1, 3, 4])
        net.addInput("z", transposeB ? [3, 2, 4] : [3, 5, 4])
        net.batchedMatmul("pa", "x", "a", rows: 4, columns: transposeA ? 3 : 5)
        net.batchedMatmul("pb", "z", "b", rows: 4, columns: transposeB ? 5 : 2)
        net.add("mm", ["a", "b"], ["y"]) {
            $0.batchedMatmul.transposeA = transposeA
            $0.batchedMatmul.transposeB = transposeB
        }
        net.finish(output: "y", outputShape: [2, 3, 3, 2], loss: .meanSquaredError)
        net.useExactMapping()
        try GradientCheck.check(net.model, batch: 2, samples: 10)
    }

    @Test func batchedMatmulOfABlobWithItself() throws {
        // y = A·Aᵀ: both operands are one blob, whose gradient must sum both paths.
        var net = TestNetwork(seed: 89, shape: [3, 4])
        net.batchedMatmul("pa", "x", "a", rows: 4, columns: 5)
        net.add("gram", ["a", "a"], ["y"]) { $0.batchedMatmul.transposeB = true }
        net.finish(output: "y", outputShape: [3, 3], loss: .meanSquaredError)
        net.useExactMapping()
        try GradientCheck.check(net.model, batch: 2, samples: 12)
    }
}
