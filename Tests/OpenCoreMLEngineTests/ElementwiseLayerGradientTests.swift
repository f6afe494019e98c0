import CoreMLSpec
import Foundation
import _OpenCoreMLEngine
import Testing
import _OpenCoreMLTestSupport

/// Forward values (hand-computed) and finite-difference gradients of the classic elementwise,
/// normalization and shape layers: add, multiply, concat, reshape, permute, padding, bias, scale,
/// batchnorm, l2normalize, upsample, unary, clip and loadConstant.
@Suite("Elementwise and shape layers: forward values and gradients")
struct ElementwiseLayerGradientTests {
    // MARK: - Helpers

    /// Runs `net` (its layers so far) forward on `inputs` and returns the output blob's shape and values.
    static func run(
        _ net: TestNetwork, _ inputs: [String: [Float]], output: String, batch: Int = 1
    ) throws -> (dims: [Int], values: [Float]) {
        let network = try Network(model: partial(net))
        network.reserve(batch: batch, training: false)
        for (name, values) in inputs {
            let blob = try #require(network.inputBlob(named: name))
            try #require(values.count == batch * blob.shape.count, "input '\(name)' needs \(batch * blob.shape.count) values")
            blob.value.pointer.update(from: values, count: values.count)
        }
        network.forward(batch: batch)
        let blob = try #require(network.blobs[output])
        return (blob.shape.dims, blob.value.array(batch * blob.shape.count))
    }

    /// The model holding the layers added so far, without update parameters.
    static func partial(_ net: TestNetwork) -> CoreML_Specification_Model {
        var model = net.model
        model.neuralNetwork.layers = net.layers
        model.isUpdatable = false
        return model
    }

    /// A network with extra model inputs `name: shape` besides the default one.
    static func network(seed: UInt64 = 1, _ inputs: [(String, [Int64])]) -> TestNetwork {
        var net = TestNetwork(seed: seed, input: inputs[0].0, shape: inputs[0].1)
        for (name, shape) in inputs.dropFirst() { net.model.description_p.input.append(TestNetwork.array(name, shape)) }
        return net
    }

    static func expectClose(
        _ actual: [Float], _ expected: [Float], tolerance: Float = 1e-5, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(actual.count == expected.count, "\(actual.count) values, \(expected.count) expected", sourceLocation: sourceLocation)
        let worst = zip(actual, expected).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? 0
        #expect(worst <= tolerance, "got \(actual), expected \(expected)", sourceLocation: sourceLocation)
    }

    /// Whether compiling `net` fails with a message containing `fragment`.
    static func expectCompileError(_ net: TestNetwork, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try Network(model: partial(net))
            Issue.record("the network compiled, an error mentioning '\(fragment)' was expected", sourceLocation: sourceLocation)
        } catch {
            #expect("\(error)".contains(fragment), "error: \(error)", sourceLocation: sourceLocation)
        }
    }

    static func padding(_ top: Int, _ bottom: Int, _ left: Int, _ right: Int) -> CoreML_Specification_BorderAmounts {
        var height = CoreML_Specification_BorderAmounts.EdgeSizes(), width = CoreML_Specification_BorderAmounts.EdgeSizes()
        height.startEdgeSize = UInt64(top); height.endEdgeSize = UInt64(bottom)
        width.startEdgeSize = UInt64(left); width.endEdgeSize = UInt64(right)
        var amounts = CoreML_Specification_BorderAmounts()
        amounts.borderAmounts = [height, width]
        return amounts
    }

    static func weights(_ values: [Float], updatable: Bool = true) -> CoreML_Specification_WeightParams {
        var weights = CoreML_Specification_WeightParams()
        weights.floatValue = values
        weights.isUpdatable = updatable
        return weights
    }

    static func globalAveragePooling() -> CoreML_Specification_PoolingLayerParams {
        var pooling = CoreML_Specification_PoolingLayerParams()
        pooling.type = .average
        pooling.globalPooling = true
        pooling.valid = .init()
        return pooling
    }

    // MARK: - Forward values

    @Test func addBroadcastsOverAxesOfSizeOne() throws {
        var net = Self.network([("a", [2, 1, 2]), ("b", [1, 1, 2]), ("c", [2])])
        net.add("add", ["a", "b", "c"], ["y"]) { $0.add = .init() }
        let (dims, values) = try Self.run(net, ["a": [1, 2, 3, 4], "b": [10, 20], "c": [100, 200]], output: "y")
        #expect(dims == [2, 1, 2])
        Self.expectClose(values, [111, 122, 213, 224])

        var single = Self.network([("x", [3])])
        single.add("add", ["x"], ["y"]) { $0.add.alpha = 0.5 }
        let (_, shifted) = try Self.run(single, ["x": [1, -2, 3, 0, 0, 0]], output: "y", batch: 2)
        Self.expectClose(shifted, [1.5, -1.5, 3.5, 0.5, 0.5, 0.5])
    }

    @Test func addOutputTakesTheLargestSizeOfEveryAxis() throws {
        // [1, H, W] + [C, 1, 1] → [C, H, W]
        var net = Self.network([("a", [1, 2, 2]), ("b", [3])])
        net.add("add", ["a", "b"], ["y"]) { $0.add = .init() }
        let (dims, values) = try Self.run(net, ["a": [1, 2, 3, 4], "b": [0, 10, 20]], output: "y")
        #expect(dims == [3, 2, 2])
        Self.expectClose(values, [1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24])
    }

    @Test func multiplyBroadcastsOverAxesOfSizeOne() throws {
        var net = Self.network([("a", [2, 1, 2]), ("b", [1, 1, 2]), ("c", [2])])
        net.add("mul", ["a", "b", "c"], ["y"]) { $0.multiply = .init() }
        let (dims, values) = try Self.run(net, ["a": [1, 2, 3, 4], "b": [10, 20], "c": [100, 200]], output: "y")
        #expect(dims == [2, 1, 2])
        Self.expectClose(values, [1000, 4000, 6000, 16000])

        var single = Self.network([("x", [2])])
        single.add("mul", ["x"], ["y"]) { $0.multiply.alpha = -3 }
        Self.expectClose(try Self.run(single, ["x": [1, 0.5]], output: "y").values, [-3, -1.5])
    }

    @Test func addAndMultiplyRejectShapesThatDoNotBroadcast() {
        var add = Self.network([("a", [2, 1, 2]), ("b", [3, 1, 2])])
        add.add("add", ["a", "b"], ["y"]) { $0.add = .init() }
        Self.expectCompileError(add, "does not broadcast")
        var multiply = Self.network([("a", [2, 2, 2]), ("b", [2, 1, 3])])
        multiply.add("mul", ["a", "b"], ["y"]) { $0.multiply = .init() }
        Self.expectCompileError(multiply, "does not broadcast")
    }

    @Test func concatAlongChannelsKeepsInputOrderPerExample() throws {
        var net = Self.network([("a", [1, 1, 2]), ("b", [2, 1, 2])])
        net.add("concat", ["a", "b"], ["y"]) { $0.concat = .init() }
        let (dims, values) = try Self.run(net, ["a": [1, 2, 7, 8], "b": [3, 4, 5, 6, 9, 10, 11, 12]], output: "y", batch: 2)
        #expect(dims == [3, 1, 2])
        Self.expectClose(values, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    }

    @Test func concatAlongTheSequence() throws {
        // Rank-5 inputs [Seq, 1, C, H, W]: a has one position, b two.
        var net = Self.network([("a", [1, 1, 2, 1, 1]), ("b", [2, 1, 2, 1, 1])])
        net.add("concat", ["a", "b"], ["y"]) { $0.concat.sequenceConcat = true }
        let (dims, values) = try Self.run(net, ["a": [1, 2], "b": [3, 4, 5, 6]], output: "y")
        #expect(dims == [3, 2, 1, 1])
        Self.expectClose(values, [1, 2, 3, 4, 5, 6])
    }

    @Test func concatRejectsMismatchedSizes() {
        var net = Self.network([("a", [1, 2, 2]), ("b", [1, 2, 3])])
        net.add("concat", ["a", "b"], ["y"]) { $0.concat = .init() }
        Self.expectCompileError(net, "channel concat needs equal")
        var sequence = Self.network([("a", [1, 1, 2, 1, 1]), ("b", [1, 1, 3, 1, 1])])
        sequence.add("concat", ["a", "b"], ["y"]) { $0.concat.sequenceConcat = true }
        Self.expectCompileError(sequence, "sequence concat needs equal")
    }

    @Test func reshapeChannelFirstCopiesAndChannelLastReorders() throws {
        // x[c][w]: c0 = [0, 1, 2], c1 = [3, 4, 5] (C = 2, H = 1, W = 3).
        let x: [Float] = [0, 1, 2, 3, 4, 5]
        var first = Self.network([("x", [2, 1, 3])])
        first.add("reshape", ["x"], ["y"]) { $0.reshape.targetShape = [3, 2, 1]; $0.reshape.mode = .channelFirst }
        let (dims, values) = try Self.run(first, ["x": x], output: "y")
        #expect(dims == [3, 2, 1])
        Self.expectClose(values, x)

        // H, W, C stream: [0, 3, 1, 4, 2, 5]; as [H=2, W=1, C=3]: h0 = (0, 3, 1), h1 = (4, 2, 5).
        var last = Self.network([("x", [2, 1, 3])])
        last.add("reshape", ["x"], ["y"]) { $0.reshape.targetShape = [3, 2, 1]; $0.reshape.mode = .channelLast }
        Self.expectClose(try Self.run(last, ["x": x], output: "y").values, [0, 4, 3, 2, 1, 5])
    }

    @Test func reshapeToANewSequenceLength() throws {
        var net = Self.network([("x", [2, 1, 2])])
        net.add("reshape", ["x"], ["y"]) { $0.reshape.targetShape = [2, 1, 1, 2] }
        let (dims, values) = try Self.run(net, ["x": [1, 2, 3, 4, 5, 6, 7, 8]], output: "y", batch: 2)
        #expect(dims == [2, 1, 1, 2])
        Self.expectClose(values, [1, 2, 3, 4, 5, 6, 7, 8])

        var wrong = Self.network([("x", [2, 1, 2])])
        wrong.add("reshape", ["x"], ["y"]) { $0.reshape.targetShape = [3, 1, 1] }
        Self.expectCompileError(wrong, "cannot reshape")
    }

    @Test func permuteReordersAxes() throws {
        // x[c][h][w] = 6c + 3h + w with C = 2, H = 2, W = 3; axis [0, 3, 1, 2] gives [Seq, W, C, H].
        var net = Self.network([("x", [2, 2, 3])])
        net.add("permute", ["x"], ["y"]) { $0.permute.axis = [0, 3, 1, 2] }
        let (dims, values) = try Self.run(net, ["x": (0..<12).map(Float.init)], output: "y")
        #expect(dims == [3, 2, 2])
        Self.expectClose(values, [0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11])

        // Moving the sequence axis: [Seq=2, C=1, H=1, W=3] with axis [3, 1, 2, 0] → [3, 1, 1, 2].
        var sequence = Self.network([("x", [2, 1, 1, 1, 3])])
        sequence.add("permute", ["x"], ["y"]) { $0.permute.axis = [3, 1, 2, 0] }
        let moved = try Self.run(sequence, ["x": [0, 1, 2, 3, 4, 5]], output: "y")
        #expect(moved.dims == [3, 1, 1, 2])
        Self.expectClose(moved.values, [0, 3, 1, 4, 2, 5])

        var bad = Self.network([("x", [2, 2, 3])])
        bad.add("permute", ["x"], ["y"]) { $0.permute.axis = [0, 1, 1, 2] }
        Self.expectCompileError(bad, "permutation")
    }

    /// The example of Core ML's specification: a 3×4 plane padded top 2, left 2.
    @Test(arguments: ["constant", "reflection", "replication"])
    func paddingMatchesTheSpecificationExample(mode: String) throws {
        var net = Self.network([("x", [1, 3, 4])])
        net.add("pad", ["x"], ["y"]) {
            var p = CoreML_Specification_PaddingLayerParams()
            switch mode {
            case "constant": p.constant.value = 0
            case "reflection": p.reflection = .init()
            default: p.replication = .init()
            }
            p.paddingAmounts = Self.padding(2, 0, 2, 0)
            $0.padding = p
        }
        let (dims, values) = try Self.run(net, ["x": (1...12).map(Float.init)], output: "y")
        #expect(dims == [1, 5, 6])
        let expected: [Float]
        switch mode {
        case "constant":
            expected = [0, 0, 0, 0, 0, 0,
                        0, 0, 0, 0, 0, 0,
                        0, 0, 1, 2, 3, 4,
                        0, 0, 5, 6, 7, 8,
                        0, 0, 9, 10, 11, 12]
        case "reflection":
            expected = [11, 10, 9, 10, 11, 12,
                        7, 6, 5, 6, 7, 8,
                        3, 2, 1, 2, 3, 4,
                        7, 6, 5, 6, 7, 8,
                        11, 10, 9, 10, 11, 12]
        default:
            expected = [1, 1, 1, 2, 3, 4,
                        1, 1, 1, 2, 3, 4,
                        1, 1, 1, 2, 3, 4,
                        5, 5, 5, 6, 7, 8,
                        9, 9, 9, 10, 11, 12]
        }
        Self.expectClose(values, expected)
    }

    @Test func paddingBottomRightWithAConstant() throws {
        var net = Self.network([("x", [1, 2, 2])])
        net.add("pad", ["x"], ["y"]) {
            $0.padding.constant.value = -1
            $0.padding.paddingAmounts = Self.padding(0, 1, 0, 1)
        }
        let (dims, values) = try Self.run(net, ["x": [1, 2, 3, 4]], output: "y")
        #expect(dims == [1, 3, 3])
        Self.expectClose(values, [1, 2, -1, 3, 4, -1, -1, -1, -1])

        var tooWide = Self.network([("x", [1, 2, 2])])
        tooWide.add("pad", ["x"], ["y"]) {
            $0.padding.reflection = .init()
            $0.padding.paddingAmounts = Self.padding(0, 0, 2, 0)
        }
        Self.expectCompileError(tooWide, "reflection padding")
    }

    @Test func biasAndScaleBroadcast() throws {
        var net = Self.network([("x", [2, 1, 2])])
        net.add("bias", ["x"], ["b"]) { $0.bias.shape = [2]; $0.bias.bias = Self.weights([10, 20]) }
        net.add("scale", ["b"], ["s"]) {
            $0.scale.shapeScale = [1, 1, 2]
            $0.scale.scale = Self.weights([2, 3])
            $0.scale.hasBias_p = true
            $0.scale.shapeBias = [1]
            $0.scale.bias = Self.weights([0.5])
        }
        // b = [11, 12, 23, 24]; s = b·[2, 3 per width] + 0.5.
        Self.expectClose(try Self.run(net, ["x": [1, 2, 3, 4]], output: "b").values, [11, 12, 23, 24])
        Self.expectClose(try Self.run(net, ["x": [1, 2, 3, 4]], output: "s").values, [22.5, 36.5, 46.5, 72.5])

        var full = Self.network([("x", [2, 1, 2])])
        full.add("bias", ["x"], ["y"]) { $0.bias.shape = [2, 1, 2]; $0.bias.bias = Self.weights([1, 2, 3, 4]) }
        Self.expectClose(try Self.run(full, ["x": [1, 1, 1, 1, 0, 0, 0, 0]], output: "y", batch: 2).values, [2, 3, 4, 5, 1, 2, 3, 4])

        var wrong = Self.network([("x", [2, 1, 2])])
        wrong.add("bias", ["x"], ["y"]) { $0.bias.shape = [3]; $0.bias.bias = Self.weights([1, 2, 3]) }
        Self.expectCompileError(wrong, "does not fit")
    }

    @Test func batchnormWithStoredStatistics() throws {
        var net = Self.network([("x", [2, 1, 2])])
        net.add("bn", ["x"], ["y"]) {
            $0.batchnorm.channels = 2
            $0.batchnorm.epsilon = 0.01
            $0.batchnorm.gamma = Self.weights([2, 0.5])
            $0.batchnorm.beta = Self.weights([0.1, -1])
            $0.batchnorm.mean = Self.weights([1, 3])
            $0.batchnorm.variance = Self.weights([3.99, 0.24])
        }
        // c0: 2·(x − 1)/2 + 0.1; c1: 0.5·(x − 3)/0.5 − 1.
        Self.expectClose(try Self.run(net, ["x": [1, 2, 3, 4]], output: "y").values, [0.1, 1.1, -1, 0])

        var wrong = Self.network([("x", [3, 1, 2])])
        wrong.layers = net.layers
        Self.expectCompileError(wrong, "has 3 channels")
    }

    @Test func batchnormComputesStatisticsPerInstanceOrOverTheBatch() throws {
        func layer(instance: Bool, channels: Int, gamma: [Float], beta: [Float]) -> TestNetwork {
            var net = Self.network([("x", [Int64(channels), 1, 2])])
            net.add("bn", ["x"], ["y"]) {
                $0.batchnorm.channels = UInt64(channels)
                $0.batchnorm.computeMeanVar = true
                $0.batchnorm.instanceNormalization = instance
                $0.batchnorm.gamma = Self.weights(gamma)
                $0.batchnorm.beta = Self.weights(beta)
            }
            return net
        }
        // Instance: c0 = [1, 3] (mean 2, variance 1), c1 = [2, 6] (mean 4, variance 4).
        let instance = try Self.run(layer(instance: true, channels: 2, gamma: [2, 1], beta: [0, 1]), ["x": [1, 3, 2, 6]], output: "y")
        Self.expectClose(instance.values, [-2, 2, 0, 2], tolerance: 1e-4)

        // Over the batch: [1, 2] and [3, 4] share mean 2.5 and variance 1.25.
        let x: [Float] = [1, 2, 3, 4]
        let batch = try Self.run(layer(instance: false, channels: 1, gamma: [1], beta: [0]), ["x": x], output: "y", batch: 2)
        Self.expectClose(batch.values, x.map { ($0 - 2.5) / Float(1.25).squareRoot() }, tolerance: 1e-4)
        let perExample = try Self.run(layer(instance: true, channels: 1, gamma: [1], beta: [0]), ["x": x], output: "y", batch: 2)
        Self.expectClose(perExample.values, [-1, 1, -1, 1], tolerance: 1e-4)
    }

    @Test func l2NormalizePerSequencePosition() throws {
        var net = Self.network([("x", [2, 1, 2, 1, 1])])
        net.add("l2", ["x"], ["y"]) { $0.l2Normalize = .init() }
        Self.expectClose(try Self.run(net, ["x": [3, 4, 0, 2]], output: "y").values, [0.6, 0.8, 0, 1], tolerance: 1e-5)
    }

    @Test func upsampleNearestRepeatsValues() throws {
        var net = Self.network([("x", [1, 2, 2])])
        net.add("up", ["x"], ["y"]) { $0.upsample.scalingFactor = [2, 2] }
        let (dims, values) = try Self.run(net, ["x": [1, 2, 3, 4]], output: "y")
        #expect(dims == [1, 4, 4])
        Self.expectClose(values, [1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4])
    }

    @Test(arguments: [
        ("default", [Float(0), 0.5, 1, 1]),
        ("alignCornersTrue", [Float(0), 1.0 / 3, 2.0 / 3, 1]),
        ("alignCornersFalse", [Float(0), 0.25, 0.75, 1]),
    ] as [(String, [Float])])
    func upsampleBilinearSamplesTheGridAsTheSpecificationSays(mode: String, expected: [Float]) throws {
        // A row [0, 1] widened to 4 values.
        var net = Self.network([("x", [1, 1, 2])])
        net.add("up", ["x"], ["y"]) {
            $0.upsample.scalingFactor = [1, 2]
            $0.upsample.mode = .bilinear
            $0.upsample.linearUpsampleMode = mode == "default" ? .default : mode == "alignCornersTrue" ? .alignCornersTrue : .alignCornersFalse
        }
        let (dims, values) = try Self.run(net, ["x": [0, 1]], output: "y")
        #expect(dims == [1, 1, 4])
        Self.expectClose(values, expected)
    }

    @Test func upsampleBilinearInTwoDimensions() throws {
        // 2×2 → 4×4 with the default grid (0, 0.5, 1, 1 on both axes).
        var net = Self.network([("x", [1, 2, 2])])
        net.add("up", ["x"], ["y"]) { $0.upsample.scalingFactor = [2, 2]; $0.upsample.mode = .bilinear }
        let values = try Self.run(net, ["x": [0, 2, 4, 6]], output: "y").values
        Self.expectClose(values, [0, 1, 2, 2,
                                  2, 3, 4, 4,
                                  4, 5, 6, 6,
                                  4, 5, 6, 6])
    }

    @Test(arguments: [
        ("sqrt", [Float(1), 4, 9], [Float(1), 2, 3]),
        ("rsqrt", [1, 4, 0.25], [1, 0.5, 2]),
        ("inverse", [1, 4, -0.5], [1, 0.25, -2]),
        ("power", [1, 2, -2], [1, 8, -8]),
        ("exp", [0, 1, -1], [1, Float(M_E), 1 / Float(M_E)]),
        ("log", [1, Float(M_E), 0.5], [0, 1, -Float(M_LN2)]),
        ("abs", [-2, 0, 3], [2, 0, 3]),
        ("threshold", [-2, 0.5, 3], [0.5, 0.5, 3]),
    ] as [(String, [Float], [Float])])
    func unaryFunctions(operation: String, x: [Float], expected: [Float]) throws {
        var net = Self.network([("x", [3])])
        net.add("unary", ["x"], ["y"]) {
            $0.unary.type = Self.unaryOperation(operation)
            $0.unary.alpha = operation == "power" ? 3 : 0.5
        }
        Self.expectClose(try Self.run(net, ["x": x], output: "y").values, expected, tolerance: 1e-5)
    }

    @Test func unaryAppliesScaleAndShiftFirst() throws {
        var net = Self.network([("x", [2])])
        net.add("unary", ["x"], ["y"]) { $0.unary.type = .sqrt; $0.unary.scale = 2; $0.unary.shift = 1 }
        Self.expectClose(try Self.run(net, ["x": [4, 12]], output: "y").values, [3, 5])
    }

    static func unaryOperation(_ name: String) -> CoreML_Specification_UnaryFunctionLayerParams.Operation {
        switch name {
        case "sqrt": .sqrt
        case "rsqrt": .rsqrt
        case "inverse": .inverse
        case "power": .power
        case "exp": .exp
        case "log": .log
        case "abs": .abs
        default: .threshold
        }
    }

    @Test func clipLimitsValues() throws {
        var net = Self.network([("x", [4])])
        net.add("clip", ["x"], ["y"]) { $0.clip.minVal = -1; $0.clip.maxVal = 1 }
        Self.expectClose(try Self.run(net, ["x": [-2, 0.5, 3, -0.25]], output: "y").values, [-1, 0.5, 1, -0.25])
    }

    @Test func loadConstantFeedsEveryExample() throws {
        var net = Self.network([("x", [2])])
        net.add("constant", [], ["k"]) {
            $0.loadConstant.shape = [2, 1, 1]
            $0.loadConstant.data = Self.weights([10, 20], updatable: false)
        }
        net.add("add", ["x", "k"], ["y"]) { $0.add = .init() }
        let (dims, values) = try Self.run(net, ["x": [1, 2, 3, 4]], output: "y", batch: 2)
        #expect(dims == [2, 1, 1])
        Self.expectClose(values, [11, 22, 13, 24])

        var wrong = Self.network([("x", [2])])
        wrong.add("constant", [], ["k"]) { $0.loadConstant.shape = [2, 2, 1]; $0.loadConstant.data = Self.weights([1, 2, 3]) }
        Self.expectCompileError(wrong, "data holds 3 values")
    }

    @Test func trainedParametersAreStoredBack() throws {
        var net = TestNetwork(seed: 9, shape: [2, 1, 2])
        net.add("bias", ["x"], ["b"], updatable: true) { $0.bias.shape = [2]; $0.bias.bias = Self.weights([1, 2]) }
        net.add("scale", ["b"], ["s"], updatable: true) {
            $0.scale.shapeScale = [2]; $0.scale.scale = Self.weights([3, 4])
            $0.scale.hasBias_p = true; $0.scale.shapeBias = [2]; $0.scale.bias = Self.weights([5, 6])
        }
        net.add("bn", ["s"], ["y"], updatable: true) {
            $0.batchnorm.channels = 2; $0.batchnorm.computeMeanVar = true; $0.batchnorm.instanceNormalization = true
            $0.batchnorm.gamma = Self.weights([7, 8]); $0.batchnorm.beta = Self.weights([9, 10])
        }
        net.finish(output: "y", outputShape: [2, 1, 2], loss: .meanSquaredError)
        try net.model.validate()
        let network = try Network(model: net.model)
        for parameter in network.parameters {
            for i in 0..<parameter.count { parameter.value.pointer[i] += 100 }
        }
        var model = net.model
        network.store(in: &model)
        let layers = model.neuralNetwork.layers
        #expect(layers[0].bias.bias.floatValue == [101, 102])
        #expect(layers[1].scale.scale.floatValue == [103, 104])
        #expect(layers[1].scale.bias.floatValue == [105, 106])
        #expect(layers[2].batchnorm.gamma.floatValue == [107, 108])
        #expect(layers[2].batchnorm.beta.floatValue == [109, 110])
    }

    // MARK: - Gradients

    /// Ends `net` with a dense layer on `blob` (flattened; a sequence is folded into one vector)
    /// and a mean-squared-error loss.
    static func finishWithDenseHead(_ net: inout TestNetwork, from blob: String, outputs: Int = 3) throws {
        let shape = try #require(try Network(model: partial(net)).blobs[blob]).shape
        let outer = shape.classic.outer
        if outer > 1 {
            net.add("fold", [blob], ["f"]) { $0.reshape.targetShape = [1, Int64(shape.count), 1, 1] }
        } else {
            net.add("flatten", [blob], ["f"]) { $0.flatten.mode = .channelFirst }
        }
        net.innerProduct("dense", "f", "out", inputs: shape.count, outputs: outputs)
        net.finish(output: "out", outputShape: [Int64(outputs)], loss: .meanSquaredError)
    }

    @Test(arguments: ["three", "single", "same"])
    func addGradients(kind: String) throws {
        var net = TestNetwork(seed: 11, shape: [3, 4, 4])
        net.convolution("pre", "x", "a", inputChannels: 3, outputChannels: 3, kernel: [1, 1])
        switch kind {
        case "three":
            // [C, H, W] + [1, H, W] + [C, 1, 1]
            net.convolution("pre1", "x", "c1", inputChannels: 3, outputChannels: 1, kernel: [1, 1])
            net.add("pool", ["a"], ["g"]) { $0.pooling = Self.globalAveragePooling() }
            net.add("add", ["a", "c1", "g"], ["b"]) { $0.add = .init() }
        case "single":
            net.add("add", ["a"], ["b"]) { $0.add.alpha = 0.7 }
        default:
            net.add("add", ["a", "a"], ["b"]) { $0.add = .init() }
        }
        try Self.finishWithDenseHead(&net, from: "b")
        try GradientCheck.check(net.model, samples: 10)
    }

    @Test(arguments: ["three", "single", "same"])
    func multiplyGradients(kind: String) throws {
        var net = TestNetwork(seed: 12, shape: [3, 4, 4])
        net.convolution("pre", "x", "a", inputChannels: 3, outputChannels: 3, kernel: [1, 1])
        switch kind {
        case "three":
            net.convolution("pre1", "x", "c1", inputChannels: 3, outputChannels: 1, kernel: [1, 1])
            net.add("pool", ["a"], ["g"]) { $0.pooling = Self.globalAveragePooling() }
            net.add("mul", ["a", "c1", "g"], ["b"]) { $0.multiply = .init() }
        case "single":
            net.add("mul", ["a"], ["b"]) { $0.multiply.alpha = -1.3 }
        default:
            net.add("mul", ["a", "a"], ["b"]) { $0.multiply = .init() }
        }
        try Self.finishWithDenseHead(&net, from: "b")
        try GradientCheck.check(net.model, samples: 10)
    }

    @Test(arguments: [false, true])
    func concatGradients(alongSequence: Bool) throws {
        var net = TestNetwork(seed: 13, shape: alongSequence ? [2, 1, 2, 3, 3] : [2, 3, 3])
        net.convolution("pre1", "x", "a", inputChannels: 2, outputChannels: alongSequence ? 2 : 3, kernel: [1, 1])
        net.convolution("pre2", "x", "b", inputChannels: 2, outputChannels: 2, kernel: [1, 1])
        net.add("concat", ["a", "b", "a"], ["c"]) { $0.concat.sequenceConcat = alongSequence }
        try Self.finishWithDenseHead(&net, from: "c")
        try GradientCheck.check(net.model, samples: 10)
    }

    @Test(arguments: [
        (target: [Int64(3), 2, 2], channelLast: false),
        (target: [3, 1, 4], channelLast: true),
        (target: [2, 4, 3, 1], channelLast: true),
        (target: [4, 1, 2, 3], channelLast: false),
    ] as [(target: [Int64], channelLast: Bool)])
    func reshapeGradients(target: [Int64], channelLast: Bool) throws {
        var net = TestNetwork(seed: 14, shape: [2, 1, 2, 2, 3])
        net.convolution("pre", "x", "a", inputChannels: 2, outputChannels: 2, kernel: [1, 1])
        net.add("reshape", ["a"], ["b"]) { $0.reshape.targetShape = target; $0.reshape.mode = channelLast ? .channelLast : .channelFirst }
        // Something trainable after the reshape sees its layout: a 1×1 convolution over the new channels.
        let channels = Int(target[target.count - 3])
        net.convolution("post", "b", "c", inputChannels: channels, outputChannels: 2, kernel: [1, 1])
        try Self.finishWithDenseHead(&net, from: "c")
        try GradientCheck.check(net.model, samples: 10)
    }

    @Test(arguments: [[UInt64(0), 3, 1, 2], [0, 2, 3, 1], [3, 1, 2, 0], [1, 0, 3, 2]])
    func permuteGradients(axis: [UInt64]) throws {
        var net = TestNetwork(seed: 15, shape: [2, 1, 3, 2, 4])
        net.convolution("pre", "x", "a", inputChannels: 3, outputChannels: 3, kernel: [1, 1])
        net.add("permute", ["a"], ["b"]) { $0.permute.axis = axis }
        try Self.finishWithDenseHead(&net, from: "b")
        try GradientCheck.check(net.model, samples: 10)
    }

    @Test(arguments: ["constant", "reflection", "replication"])
    func paddingGradients(mode: String) throws {
        var net = TestNetwork(seed: 16, shape: [2, 4, 4])
        net.convolution("pre", "x", "a", inputChannels: 2, outputChannels: 2, kernel: [1, 1])
        net.add("pad", ["a"], ["b"]) {
            switch mode {
            case "constant": $0.padding.constant.value = 0.3
            case "reflection": $0.padding.reflection = .init()
            default: $0.padding.replication = .init()
            }
            $0.padding.paddingAmounts = Self.padding(2, 1, 1, 3)
        }
        try Self.finishWithDenseHead(&net, from: "b")
        try GradientCheck.check(net.model, samples: 12)
    }

    @Test(arguments: [[UInt64(1)], [3], [1, 2, 3], [3, 2, 3]])
    func biasGradients(shape: [UInt64]) throws {
        var net = TestNetwork(seed: 17, shape: [3, 2, 3])
        net.convolution("pre", "x", "a", inputChannels: 3, outputChannels: 3, kernel: [1, 1])
        let count = Int(shape.reduce(1, *))
        let bias = net.weights(count)
        net.add("bias", ["a"], ["b"], updatable: true) { $0.bias.shape = shape; $0.bias.bias = bias }
        try Self.finishWithDenseHead(&net, from: "b")
        try GradientCheck.check(net.model, samples: 18)
    }

    @Test(arguments: [
        (scale: [UInt64(1)], bias: [UInt64(3)]),
        (scale: [3], bias: [1, 2, 3]),
        (scale: [1, 2, 3], bias: [3, 2, 3]),
        (scale: [3, 2, 3], bias: []),
    ] as [(scale: [UInt64], bias: [UInt64])])
    func scaleGradients(scale scaleShape: [UInt64], bias biasShape: [UInt64]) throws {
        var net = TestNetwork(seed: 18, shape: [3, 2, 3])
        net.convolution("pre", "x", "a", inputChannels: 3, outputChannels: 3, kernel: [1, 1])
        let scale = net.weights(Int(scaleShape.reduce(1, *)), scale: 1.5)
        let bias = net.weights(Int(biasShape.reduce(1, *)))
        net.add("scale", ["a"], ["b"], updatable: true) {
            $0.scale.shapeScale = scaleShape
            $0.scale.scale = scale
            if !biasShape.isEmpty {
                $0.scale.hasBias_p = true
                $0.scale.shapeBias = biasShape
                $0.scale.bias = bias
            }
        }
        try Self.finishWithDenseHead(&net, from: "b")
        try GradientCheck.check(net.model, samples: 18)
    }

    @Test(arguments: ["stored", "instance", "batch"])
    func batchnormGradients(statistics: String) throws {
        var net = TestNetwork(seed: 19, shape: [2, 1, 3, 2, 2])
        net.convolution("pre", "x", "a", inputChannels: 3, outputChannels: 3, kernel: [1, 1])
        var random = TestRandom(seed: 190)
        let gamma = net.weights(3, scale: 1.5), beta = net.weights(3)
        net.add("bn", ["a"], ["b"], updatable: true) {
            $0.batchnorm.channels = 3
            $0.batchnorm.gamma = gamma
            $0.batchnorm.beta = beta
            if statistics == "stored" {
                $0.batchnorm.mean = Self.weights(random.floats(3, -0.5, 0.5))
                $0.batchnorm.variance = Self.weights(random.floats(3, 0.5, 1.5))
            } else {
                $0.batchnorm.computeMeanVar = true
                $0.batchnorm.instanceNormalization = statistics == "instance"
            }
        }
        // A nonlinearity after the normalization, so the normalization's gradient is not trivially zero.
        net.add("tanh", ["b"], ["c"]) { $0.activation.tanh = .init() }
        try Self.finishWithDenseHead(&net, from: "c")
        try GradientCheck.check(net.model, batch: 3, samples: 12)
    }

    @Test func l2NormalizeGradients() throws {
        var net = TestNetwork(seed: 20, shape: [2, 1, 3, 2, 2])
        net.convolution("pre", "x", "a", inputChannels: 3, outputChannels: 3, kernel: [1, 1])
        net.add("l2", ["a"], ["b"]) { $0.l2Normalize.epsilon = 1e-4 }
        try Self.finishWithDenseHead(&net, from: "b")
        try GradientCheck.check(net.model, samples: 12)
    }

    @Test(arguments: [
        (mode: "nearest", factor: [Float(2), 3], fractional: false),
        (mode: "default", factor: [2, 3], fractional: false),
        (mode: "alignCornersTrue", factor: [1.5, 2.5], fractional: true),
        (mode: "alignCornersFalse", factor: [2, 1.5], fractional: true),
    ] as [(mode: String, factor: [Float], fractional: Bool)])
    func upsampleGradients(mode: String, factor: [Float], fractional: Bool) throws {
        // Fractional factors and the align-corners modes came with iOS 14: Core ML allows them only
        // under the exact array mapping, so those networks take a rank-4 [1, C, H, W].
        var net = TestNetwork(seed: 21, shape: fractional ? [1, 2, 3, 3] : [2, 3, 3])
        net.convolution("pre", "x", "a", inputChannels: 2, outputChannels: 2, kernel: [1, 1])
        net.add("up", ["a"], ["b"]) {
            if fractional { $0.upsample.fractionalScalingFactor = factor } else { $0.upsample.scalingFactor = factor.map { UInt64($0) } }
            $0.upsample.mode = mode == "nearest" ? .nn : .bilinear
            $0.upsample.linearUpsampleMode = mode == "alignCornersTrue" ? .alignCornersTrue : mode == "alignCornersFalse" ? .alignCornersFalse : .default
        }
        try Self.finishWithDenseHead(&net, from: "b")
        if fractional { net.useExactMapping() }
        try GradientCheck.check(net.model, samples: 12)
    }

    @Test(arguments: ["sqrt", "rsqrt", "inverse", "power", "exp", "log", "abs", "threshold"])
    func unaryGradients(operation: String) throws {
        var net = TestNetwork(seed: 22, shape: [3, 2, 2])
        net.convolution("pre", "x", "a", inputChannels: 3, outputChannels: 3, kernel: [1, 1])
        let kinked = operation == "abs" || operation == "threshold"
        net.add("unary", ["a"], ["b"]) {
            $0.unary.type = Self.unaryOperation(operation)
            $0.unary.alpha = operation == "power" ? 1.5 : 0.1
            if !kinked {
                // The pre-layer's outputs lie in (−2, 2): 0.5·v + 3 keeps every function in its domain.
                $0.unary.scale = 0.5
                $0.unary.shift = 3
            }
        }
        try Self.finishWithDenseHead(&net, from: "b")
        try GradientCheck.check(net.model, samples: 12, step: kinked ? 1e-3 : 1e-2)
    }

    @Test func clipGradients() throws {
        // clip came with iOS 13: Core ML allows it only under the exact array mapping, so the input
        // is a rank-4 [1, C, H, W].
        var net = TestNetwork(seed: 23, shape: [1, 3, 2, 2])
        net.convolution("pre", "x", "a", inputChannels: 3, outputChannels: 3, kernel: [1, 1])
        net.add("clip", ["a"], ["b"]) { $0.clip.minVal = -0.4; $0.clip.maxVal = 0.5 }
        try Self.finishWithDenseHead(&net, from: "b")
        net.useExactMapping()
        try GradientCheck.check(net.model, samples: 12, step: 1e-3)
    }

    @Test func loadConstantInATrainedNetwork() throws {
        var net = TestNetwork(seed: 24, shape: [3, 2, 2])
        net.convolution("pre", "x", "a", inputChannels: 3, outputChannels: 3, kernel: [1, 1])
        let data = net.weights(12, updatable: false)
        net.add("constant", [], ["k"]) { $0.loadConstant.shape = [3, 2, 2]; $0.loadConstant.data = data }
        net.add("mul", ["a", "k"], ["b"]) { $0.multiply = .init() }
        try Self.finishWithDenseHead(&net, from: "b")
        try GradientCheck.check(net.model, samples: 12)
    }
}
