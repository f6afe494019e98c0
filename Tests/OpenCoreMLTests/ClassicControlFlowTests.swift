import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLEngine
import _OpenCoreMLTestSupport

/// Core ML's control-flow layers (`branch`, `loop`, `loopBreak`, `loopContinue`, and `copy`, which
/// updates the blobs a loop carries), predicted through their lowering to MIL's `cond` and
/// `while_loop`. The networks are those of coremltools' `ControlFlowCorrectnessTest` and its power
/// iteration stress test, with references worked out here with plain loops.
@Suite("Classic control flow")
struct ClassicControlFlowTests {
    typealias Layer = CoreML_Specification_NeuralNetworkLayer

    static func layer(_ name: String, _ inputs: [String], _ outputs: [String], _ configure: (inout Layer) -> Void) -> Layer {
        TestSpecs.layer(name, inputs, outputs, configure)
    }

    static func network(_ layers: [Layer]) -> CoreML_Specification_NeuralNetwork {
        var network = CoreML_Specification_NeuralNetwork()
        network.layers = layers
        return network
    }

    static func copy(_ name: String, _ from: String, _ to: String) -> Layer {
        layer(name, [from], [to]) { $0.copy = .init() }
    }

    static func add(_ name: String, _ from: String, _ to: String, _ alpha: Float) -> Layer {
        layer(name, [from], [to]) { $0.add.alpha = alpha }
    }

    /// A model under the exact mapping (coremltools' `disable_rank5_shape_mapping`) with float32
    /// multi-array inputs and outputs.
    static func model(inputs: [(String, [Int64])], outputs: [String], _ layers: [Layer]) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = inputs.map { TestSpecs.array($0.0, $0.1) }
        model.description_p.output = outputs.map { name in
            var output = CoreML_Specification_FeatureDescription()
            output.name = name
            output.type.multiArrayType.dataType = .float32
            return output
        }
        model.neuralNetwork.layers = layers
        model.neuralNetwork.arrayInputShapeMapping = .exactArrayMapping
        return model
    }

    static func predict(_ model: MLModel, _ inputs: [String: ([Int], [Float])]) throws -> MLFeatureProvider {
        var features: [String: MLFeatureValue] = [:]
        for (name, (shape, values)) in inputs {
            let array = try MLMultiArray(shape: shape.map { NSNumber(value: $0) }, dataType: .float32)
            for (index, value) in values.enumerated() { array[index] = NSNumber(value: value) }
            features[name] = MLFeatureValue(multiArray: array)
        }
        return try model.prediction(from: MLDictionaryFeatureProvider(dictionary: features))
    }

    static func values(_ result: MLFeatureProvider, _ name: String) throws -> [Float] {
        try #require(result.featureValue(for: name)?.multiArrayValue, "output \(name)").floatValues()
    }

    // MARK: branch

    /// coremltools' `test_simple_branch`: output = data · 10 when cond holds, data + 10 otherwise;
    /// both branches write the blob the model outputs.
    @Test func aBranchRunsTheNetworkItsRuntimeConditionChooses() throws {
        let spec = Self.model(inputs: [("data", [3]), ("cond", [1])], outputs: ["output"], [
            Self.layer("branch_layer", ["cond"], []) {
                $0.branch.ifBranch = Self.network([Self.layer("mult_layer", ["data"], ["output"]) { $0.multiply.alpha = 10 }])
                $0.branch.elseBranch = Self.network([Self.add("add_layer", "data", "output", 10)])
            },
        ])
        try spec.validate()
        let model = try MLModel(specification: spec)
        let data = ([3], [Float]([1, 2, 3]))
        #expect(try Self.values(Self.predict(model, ["data": data, "cond": ([1], [1])]), "output") == [10, 20, 30])
        #expect(try Self.values(Self.predict(model, ["data": data, "cond": ([1], [0])]), "output") == [11, 12, 13])
        // A negative condition counts as true, as its magnitude is over 1e-6.
        #expect(try Self.values(Self.predict(model, ["data": data, "cond": ([1], [-2])]), "output") == [10, 20, 30])
    }

    // MARK: loop

    /// coremltools' `test_simple_loop_fixed_iterations`: output starts as data and the body adds 2
    /// to it five times, through a copy back into `output`.
    @Test func aLoopOfFixedCountCarriesTheBlobItsBodyCopiesInto() throws {
        func loopModel(countInput: Bool) -> CoreML_Specification_Model {
            Self.model(inputs: [("data", [1])] + (countInput ? [("n", [1])] : []), outputs: ["output"], [
                Self.copy("copy_1", "data", "output"),
                Self.layer("loop_layer", countInput ? ["n"] : [], []) {
                    $0.loop.maxLoopIterations = 5
                    $0.loop.bodyNetwork = Self.network([Self.add("add", "output", "x", 2), Self.copy("copy_2", "x", "output")])
                },
            ])
        }
        let fixed = loopModel(countInput: false)
        try fixed.validate()
        #expect(try Self.values(Self.predict(MLModel(specification: fixed), ["data": ([1], [0])]), "output") == [10])
        // An input gives the count, and maxLoopIterations is then ignored.
        let counted = try MLModel(specification: loopModel(countInput: true))
        #expect(try Self.values(Self.predict(counted, ["data": ([1], [1]), "n": ([1], [3])]), "output") == [7])
        #expect(try Self.values(Self.predict(counted, ["data": ([1], [1]), "n": ([1], [0])]), "output") == [1])
    }

    /// `while acc < 10 { acc += 3 }`, the condition network writing `going` before every iteration;
    /// with maxLoopIterations as well, whichever ends the loop first.
    @Test func aLoopWithAConditionNetworkRunsWhileItsConditionHolds() throws {
        func loopModel(max: UInt64) -> CoreML_Specification_Model {
            Self.model(inputs: [("x", [1])], outputs: ["acc"], [
                Self.copy("start", "x", "acc"),
                Self.layer("while", [], []) {
                    $0.loop.maxLoopIterations = max
                    $0.loop.conditionVar = "going"
                    $0.loop.conditionNetwork = Self.network([Self.layer("below", ["acc"], ["going"]) { $0.lessThan.alpha = 10 }])
                    $0.loop.bodyNetwork = Self.network([Self.add("step", "acc", "next", 3), Self.copy("update", "next", "acc")])
                },
            ])
        }
        let unbounded = loopModel(max: 0)
        try unbounded.validate()
        let model = try MLModel(specification: unbounded)
        #expect(try Self.values(Self.predict(model, ["x": ([1], [1])]), "acc") == [10])
        #expect(try Self.values(Self.predict(model, ["x": ([1], [-4.5])]), "acc") == [10.5])
        #expect(try Self.values(Self.predict(model, ["x": ([1], [12])]), "acc") == [12])  // no iteration
        let bounded = try MLModel(specification: loopModel(max: 2))
        #expect(try Self.values(Self.predict(bounded, ["x": ([1], [1])]), "acc") == [7])
    }

    /// Five iterations counting `i`; while `i < 3` a branch continues (skipping the rest of the
    /// body), after that the body adds 10 to `acc`: `acc` = 30, `i` = 5.
    @Test func loopContinueSkipsTheRestOfTheBodyOnly() throws {
        let spec = Self.model(inputs: [("x", [1])], outputs: ["acc", "i"], [
            Self.copy("acc_start", "x", "acc"),
            Self.layer("zero", ["x"], ["i"]) { $0.multiply.alpha = 0 },
            Self.layer("loop", [], []) {
                $0.loop.maxLoopIterations = 5
                $0.loop.bodyNetwork = Self.network([
                    Self.add("count", "i", "i_next", 1),
                    Self.copy("update_i", "i_next", "i"),
                    Self.layer("small", ["i"], ["small"]) { $0.lessThan.alpha = 3 },
                    Self.layer("skip", ["small"], []) { $0.branch.ifBranch = Self.network([Self.layer("next", [], []) { $0.loopContinue = .init() }]) },
                    Self.add("grow", "acc", "acc_next", 10),
                    Self.copy("update_acc", "acc_next", "acc"),
                ])
            },
        ])
        try spec.validate()
        let result = try Self.predict(MLModel(specification: spec), ["x": ([1], [0])])
        #expect(try Self.values(result, "acc") == [30])
        #expect(try Self.values(result, "i") == [5])
    }

    // MARK: power iteration

    /// coremltools' `test_power_iteration_cpu`: the body multiplies, normalizes, counts, copies the
    /// new vector over `x`, and breaks from inside a branch once consecutive vectors agree; after
    /// the loop, the Rayleigh quotient is the dominant eigenvalue.
    static func powerIteration() -> CoreML_Specification_Model {
        var spec = model(inputs: [("matrix", [2, 2]), ("starting_vector", [2])], outputs: ["maximum_eigen_value", "eigen_vector", "iteration_count"], [
            layer("expand_dims", ["starting_vector"], ["x"]) { $0.expandDims.axes = [-1] },
            layer("iteration_count", [], ["iteration_count"]) {
                $0.loadConstantNd.shape = [1]
                $0.loadConstantNd.data = TestSpecs.weights([0])
            },
            layer("loop", [], []) {
                $0.loop.maxLoopIterations = 200
                $0.loop.bodyNetwork = network([
                    layer("bmm.1", ["matrix", "x"], ["y"]) { $0.batchedMatmul = .init() },
                    layer("reduce", ["y"], ["norm"]) { $0.reduceL2.axes = [0]; $0.reduceL2.keepDims = true },
                    layer("divide", ["y", "norm"], ["y_normalized"]) { $0.divideBroadcastable = .init() },
                    layer("cosine", ["y_normalized", "x"], ["cosine_diff"]) { $0.batchedMatmul.transposeA = true },
                    layer("squeeze_all", ["cosine_diff"], ["cosine_diff_squeeze"]) { $0.squeeze.squeezeAll = true },
                    layer("abs_cosine", ["cosine_diff_squeeze"], ["abs_cosine_diff"]) { $0.unary.type = .abs },
                    layer("diff", ["abs_cosine_diff"], ["diff"]) { $0.activation.linear.alpha = -1; $0.activation.linear.beta = 1 },
                    layer("iteration_count_add", ["iteration_count"], ["iteration_count_plus_1"]) {
                        $0.activation.linear.alpha = 1; $0.activation.linear.beta = 1
                    },
                    copy("iteration_count_copy", "iteration_count_plus_1", "iteration_count"),
                    copy("update_x", "y_normalized", "x"),
                    layer("cond", ["diff"], ["cond"]) { $0.lessThan.alpha = 1e-8 },
                    layer("branch_layer", ["cond"], []) { $0.branch.ifBranch = network([layer("break", [], []) { $0.loopBreak = .init() }]) },
                ])
            },
            layer("bmm.2", ["matrix", "x"], ["x_right"]) { $0.batchedMatmul = .init() },
            layer("bmm.3", ["x", "x_right"], ["maximum_eigen_value"]) { $0.batchedMatmul.transposeA = true },
            layer("squeeze", ["x"], ["eigen_vector"]) { $0.squeeze.squeezeAll = true },
        ])
        for (index, shapes) in [[[3, 3], [4, 4]], [[3], [4]]].enumerated() {
            var enumerated = CoreML_Specification_ArrayFeatureType.EnumeratedShapes()
            enumerated.shapes = ([index == 0 ? [2, 2] : [2]] + shapes).map { dimensions in
                var shape = CoreML_Specification_ArrayFeatureType.Shape()
                shape.shape = dimensions.map { Int64($0) }
                return shape
            }
            spec.description_p.input[index].type.multiArrayType.enumeratedShapes = enumerated
        }
        return spec
    }

    /// The same algorithm in plain loops, in Double: the dominant eigenvalue and its vector.
    static func referencePowerIteration(_ a: [[Double]], _ start: [Double]) -> (value: Double, vector: [Double]) {
        let n = a.count
        var x = start
        for _ in 0..<200 {
            var y = (0..<n).map { i in (0..<n).reduce(0.0) { $0 + a[i][$1] * x[$1] } }
            let norm = y.reduce(0.0) { $0 + $1 * $1 }.squareRoot()
            y = y.map { $0 / norm }
            let cosine = zip(y, x).reduce(0.0) { $0 + $1.0 * $1.1 }
            x = y
            if 1 - abs(cosine) < 1e-8 { break }
        }
        let ax = (0..<n).map { i in (0..<n).reduce(0.0) { $0 + a[i][$1] * x[$1] } }
        return (zip(x, ax).reduce(0.0) { $0 + $1.0 * $1.1 }, x)
    }

    @Test func powerIterationFindsTheDominantEigenvalue() throws {
        let spec = Self.powerIteration()
        try spec.validate()
        let model = try MLModel(specification: spec)
        let cases: [([[Double]], [Double])] = [
            ([[2, -6, 8], [-6, 4, 5], [8, 5, 3]], [1.0 / 3, 2.0 / 3, 2.0 / 3]),
            ([[4, -5], [-5, 3]], [0.6, 0.8]),
        ]
        for (matrix, start) in cases {
            let n = matrix.count
            let result = try Self.predict(model, [
                "matrix": ([n, n], matrix.flatMap { $0.map(Float.init) }), "starting_vector": ([n], start.map(Float.init)),
            ])
            let reference = Self.referencePowerIteration(matrix, start)
            let value = try Self.values(result, "maximum_eigen_value")
            #expect(value.count == 1)
            #expect(abs(Double(value[0]) - reference.value) <= 1e-3 * abs(reference.value), "\(value) against \(reference.value)")
            let vector = try Self.values(result, "eigen_vector").map(Double.init)
            #expect(vector.count == n)
            // The same direction (power iteration's sign can flip with a negative eigenvalue).
            let cosine = zip(vector, reference.vector).reduce(0.0) { $0 + $1.0 * $1.1 }
            #expect(abs(abs(cosine) - 1) < 1e-3, "\(vector) against \(reference.vector)")
            let count = try Self.values(result, "iteration_count")
            #expect(count.count == 1 && count[0] >= 1 && count[0] <= 200, "\(count)")
        }
    }

    // MARK: bad input

    /// A condition that is always true and no maxLoopIterations: the prediction stops at the
    /// interpreter's iteration limit with an error naming the loop layer, instead of hanging.
    @Test func aLoopWithoutExitEndsAtTheIterationLimitNamingTheLayer() throws {
        let spec = Self.model(inputs: [("x", [1])], outputs: ["acc"], [
            Self.copy("start", "x", "acc"),
            Self.layer("forever", [], []) {
                $0.loop.conditionVar = "always"
                $0.loop.conditionNetwork = Self.network([
                    Self.layer("one", ["x"], ["always"]) { $0.activation.linear.alpha = 0; $0.activation.linear.beta = 1 },
                ])
                $0.loop.bodyNetwork = Self.network([Self.add("step", "acc", "next", 1), Self.copy("update", "next", "acc")])
            },
        ])
        try spec.validate()
        let model = try MLModel(specification: spec)
        do {
            _ = try Self.predict(model, ["x": ([1], [0])])
            Issue.record("the loop ended")
        } catch {
            let message = "\(error)"
            #expect(message.contains("forever") && message.contains("iteration limit"), "\(message)")
        }
    }

    @Test func loopBreakOutsideALoopBodyIsRefused() throws {
        let spec = Self.model(inputs: [("x", [1]), ("c", [1])], outputs: ["y"], [
            Self.add("y", "x", "y", 1),
            Self.layer("branch", ["c"], []) { $0.branch.ifBranch = Self.network([Self.layer("stop", [], []) { $0.loopBreak = .init() }]) },
        ])
        let issues = spec.validationIssues().map(\.description)
        #expect(issues.contains { $0.contains("layer 'branch' › ifBranch › layer 'stop'") && $0.contains("must be inside a loop layer's bodyNetwork") },
                "\(issues)")
        #expect(throws: (any Error).self) { try ClassicLowering.program(for: spec) }
    }

    // MARK: validation

    @Test func validationAcceptsNestedWritesAndRefusesWhatCoreMLRefuses() throws {
        // A nested copy overwriting an outer blob, and both branches writing one blob, are fine.
        #expect(Self.powerIteration().validationIssues().isEmpty)
        func issues(_ layers: [Layer]) -> [String] {
            Self.model(inputs: [("x", [1]), ("c", [1])], outputs: ["y"], layers).validationIssues().map(\.description)
        }
        // A control-flow layer naming an output; a loop whose conditionVar nothing writes.
        let named = issues([
            Self.add("y", "x", "y", 1),
            Self.layer("branch", ["c"], ["z"]) { $0.branch.ifBranch = Self.network([Self.copy("copy", "x", "y")]) },
            Self.layer("loop", [], []) {
                $0.loop.conditionVar = "missing"
                $0.loop.conditionNetwork = Self.network([Self.add("other", "x", "w", 1)])
            },
        ])
        #expect(named.contains { $0.contains("layer 'branch'") && $0.contains("a branch layer produces no outputs") }, "\(named)")
        #expect(named.contains { $0.contains("layer 'loop'") && $0.contains("conditionVar 'missing' is written by no layer") }, "\(named)")
        // A nested layer other than copy writing an existing blob is a second producer.
        let twice = issues([
            Self.add("y", "x", "y", 1),
            Self.layer("loop", [], []) { $0.loop.maxLoopIterations = 2; $0.loop.bodyNetwork = Self.network([Self.add("again", "x", "y", 2)]) },
        ])
        #expect(twice.contains { $0.contains("layer 'loop' › bodyNetwork › layer 'again'") && $0.contains("output 'y' is also produced by layer 'y'") },
                "\(twice)")
        // A nested input nothing writes.
        let unread = issues([
            Self.add("y", "x", "y", 1),
            Self.layer("branch", ["c"], []) { $0.branch.ifBranch = Self.network([Self.add("bad", "nowhere", "y2", 1)]) },
        ])
        #expect(unread.contains { $0.contains("layer 'bad'") && $0.contains("input 'nowhere' is neither") }, "\(unread)")
    }

    /// When a copy overwrites a blob, the file's order says which value each reader sees: here
    /// `read` (after the copy) must wait for it even though `a` exists before, and the copy waits
    /// for `b`, which the file writes last.
    @Test func dependencyOrderKeepsTheFileOrderOfOverwrites() throws {
        let layers = [
            Self.add("first", "x", "a", 1),
            Self.copy("overwrite", "b", "a"),
            Self.add("read", "a", "out", 1),
            Self.add("late", "x", "b", 2),
        ]
        #expect(try Layer.dependencyOrder(layers, available: ["x"]) == [0, 3, 1, 2])
    }
}
