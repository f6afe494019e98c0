import CoreMLSpec
import Foundation
import OpenCoreML
import Testing

/// Tree ensemble regressors and classifiers built here, with answers worked by hand (in the
/// comments) or by a plain walk of the specification written in this file.
@Suite("Tree ensembles")
struct TreeEnsembleTests {
    typealias Node = CoreML_Specification_TreeEnsembleParameters.TreeNode
    typealias Behavior = Node.TreeNodeBehavior

    // MARK: Building specifications

    static func branch(_ tree: UInt64, _ id: UInt64, _ behavior: Behavior, feature: UInt64 = 0, value: Double,
                       true trueChild: UInt64, false falseChild: UInt64, missingTrue: Bool = false) -> Node {
        var node = Node()
        node.treeID = tree
        node.nodeID = id
        node.nodeBehavior = behavior
        node.branchFeatureIndex = feature
        node.branchFeatureValue = value
        node.trueChildNodeID = trueChild
        node.falseChildNodeID = falseChild
        node.missingValueTracksTrueChild = missingTrue
        return node
    }

    static func leaf(_ tree: UInt64, _ id: UInt64, _ values: [(UInt64, Double)]) -> Node {
        var node = Node()
        node.treeID = tree
        node.nodeID = id
        node.nodeBehavior = .leafNode
        node.evaluationInfo = values.map { index, value in
            var info = Node.EvaluationInfo()
            info.evaluationIndex = index
            info.evaluationValue = value
            return info
        }
        return node
    }

    static func leaf(_ tree: UInt64, _ id: UInt64, _ value: Double) -> Node { leaf(tree, id, [(0, value)]) }

    static func ensemble(_ nodes: [Node], dimensions: UInt64, base: [Double] = []) -> CoreML_Specification_TreeEnsembleParameters {
        var parameters = CoreML_Specification_TreeEnsembleParameters()
        parameters.nodes = nodes
        parameters.numPredictionDimensions = dimensions
        parameters.basePredictionValue = base
        return parameters
    }

    static func feature(_ name: String, _ type: CoreML_Specification_FeatureType.OneOf_Type) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        feature.type.type = type
        return feature
    }

    static func array(_ count: Int) -> CoreML_Specification_FeatureType.OneOf_Type {
        var array = CoreML_Specification_ArrayFeatureType()
        array.shape = [Int64(count)]
        array.dataType = .double
        return .multiArrayType(array)
    }

    /// A regressor reading `width` values from input "x" into output "y" (a number for one
    /// dimension, a multi-array otherwise).
    static func regressor(_ parameters: CoreML_Specification_TreeEnsembleParameters, width: Int = 1,
                          transform: CoreML_Specification_TreeEnsemblePostEvaluationTransform = .noTransform) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 1
        model.description_p.input = [feature("x", array(width))]
        let dimensions = Int(clamping: parameters.numPredictionDimensions)
        model.description_p.output = [feature("y", dimensions <= 1 ? .doubleType(.init()) : array(dimensions))]
        model.description_p.predictedFeatureName = "y"
        var regressor = CoreML_Specification_TreeEnsembleRegressor()
        regressor.treeEnsemble = parameters
        regressor.postEvaluationTransform = transform
        model.treeEnsembleRegressor = regressor
        return model
    }

    /// A classifier reading `width` values from input "x", with outputs "label" and "probabilities".
    static func classifier(_ parameters: CoreML_Specification_TreeEnsembleParameters, width: Int = 1,
                           transform: CoreML_Specification_TreeEnsemblePostEvaluationTransform, labels: ClassLabelSet) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 1
        model.description_p.input = [feature("x", array(width))]
        var classifier = CoreML_Specification_TreeEnsembleClassifier()
        classifier.treeEnsemble = parameters
        classifier.postEvaluationTransform = transform
        let labelType: CoreML_Specification_FeatureType.OneOf_Type
        var dictionary = CoreML_Specification_DictionaryFeatureType()
        switch labels {
        case .strings(let names):
            var vector = CoreML_Specification_StringVector()
            vector.vector = names
            classifier.stringClassLabels = vector
            labelType = .stringType(.init())
            dictionary.keyType = .stringKeyType(.init())
        case .int64s(let values):
            var vector = CoreML_Specification_Int64Vector()
            vector.vector = values
            classifier.int64ClassLabels = vector
            labelType = .int64Type(.init())
            dictionary.keyType = .int64KeyType(.init())
        case .none:
            labelType = .int64Type(.init())
            dictionary.keyType = .int64KeyType(.init())
        }
        model.description_p.output = [feature("label", labelType), feature("probabilities", .dictionaryType(dictionary))]
        model.description_p.predictedFeatureName = "label"
        model.description_p.predictedProbabilitiesName = "probabilities"
        model.treeEnsembleClassifier = classifier
        return model
    }

    static func input(_ values: [Double]) throws -> MLFeatureProvider {
        let array = try MLMultiArray(shape: [NSNumber(value: values.count)], dataType: .double)
        for (index, value) in values.enumerated() { array[index] = NSNumber(value: value) }
        return try MLDictionaryFeatureProvider(dictionary: ["x": MLFeatureValue(multiArray: array)])
    }

    static func predict(_ model: MLModel, _ values: [Double]) throws -> MLFeatureProvider {
        try model.prediction(from: input(values))
    }

    static func doubles(_ value: MLFeatureValue?) -> [Double] {
        guard let value else { return [] }
        if value.type == .double { return [value.doubleValue] }
        guard let array = value.multiArrayValue else { return [] }
        return (0..<array.count).map { array[$0].doubleValue }
    }

    // MARK: Branches

    /// One branch on x₀ against 2: true → 10, false → 20.
    static func oneBranch(_ behavior: Behavior, threshold: Double = 2, missingTrue: Bool = false) throws -> MLModel {
        try MLModel(specification: regressor(ensemble([
            branch(0, 0, behavior, value: threshold, true: 1, false: 2, missingTrue: missingTrue),
            leaf(0, 1, 10), leaf(0, 2, 20),
        ], dimensions: 1)))
    }

    static let behaviors: [(Behavior, [Bool])] = [
        // x = 1, 2, 3 against 2
        (.branchOnValueLessThanEqual, [true, true, false]),
        (.branchOnValueLessThan, [true, false, false]),
        (.branchOnValueGreaterThanEqual, [false, true, true]),
        (.branchOnValueGreaterThan, [false, false, true]),
        (.branchOnValueEqual, [false, true, false]),
        (.branchOnValueNotEqual, [true, false, true]),
    ]

    @Test(arguments: 0..<6) func everyBranchBehaviorComparesAsNamed(case index: Int) throws {
        let (behavior, outcomes) = Self.behaviors[index]
        let model = try Self.oneBranch(behavior)
        for (x, holds) in zip([1.0, 2.0, 3.0], outcomes) {
            let y = try Self.predict(model, [x]).featureValue(for: "y")?.doubleValue
            #expect(y == (holds ? 10 : 20), "\(behavior) x = \(x)")
        }
        // Just above and below the threshold in float32, the precision inputs are compared in.
        let above = try Self.predict(model, [Double(Float(2).nextUp)]).featureValue(for: "y")?.doubleValue
        let below = try Self.predict(model, [Double(Float(2).nextDown)]).featureValue(for: "y")?.doubleValue
        #expect(above == (outcomes[2] ? 10 : 20), "\(behavior) just above")
        #expect(below == (outcomes[0] ? 10 : 20), "\(behavior) just below")
        // The doubles next to 2 round to 2 in float32, so they compare as 2 does (as in XGBoost).
        for x in [(2.0).nextUp, (2.0).nextDown] {
            let y = try Self.predict(model, [x]).featureValue(for: "y")?.doubleValue
            #expect(y == (outcomes[1] ? 10 : 20), "\(behavior) x = \(x)")
        }
    }

    @Test(arguments: 0..<6, [false, true]) func missingValuesFollowTheirFlag(case index: Int, missingTrue: Bool) throws {
        let (behavior, _) = Self.behaviors[index]
        let model = try Self.oneBranch(behavior, missingTrue: missingTrue)
        let y = try Self.predict(model, [.nan]).featureValue(for: "y")?.doubleValue
        #expect(y == (missingTrue ? 10 : 20), "\(behavior) NaN, missing → \(missingTrue ? "true" : "false") child")
    }

    @Test func infiniteAndNaNThresholds() throws {
        // x <= +inf holds for every number, x > +inf for none; a NaN threshold fails every test but !=.
        #expect(try Self.predict(Self.oneBranch(.branchOnValueLessThanEqual, threshold: .infinity), [.infinity]).featureValue(for: "y")?.doubleValue == 10)
        #expect(try Self.predict(Self.oneBranch(.branchOnValueGreaterThan, threshold: .infinity), [.infinity]).featureValue(for: "y")?.doubleValue == 20)
        #expect(try Self.predict(Self.oneBranch(.branchOnValueGreaterThan, threshold: -.infinity), [-5]).featureValue(for: "y")?.doubleValue == 10)
        #expect(try Self.predict(Self.oneBranch(.branchOnValueGreaterThanEqual, threshold: .nan), [1]).featureValue(for: "y")?.doubleValue == 20)
        #expect(try Self.predict(Self.oneBranch(.branchOnValueNotEqual, threshold: .nan), [1]).featureValue(for: "y")?.doubleValue == 10)
    }

    // MARK: Leaves, base values, transforms

    /// Three dimensions, base [0.5, −1, 2]. Tree 0: x₀ <= 0 → {0: 1, 2: 3}, else {1: 4}. Tree 7
    /// (node ids far apart, declared out of order): x₁ < 5 → {0: 0.25, 1: 0.25, 2: 0.25}, else {2: −2}.
    static let threeDimensions = ensemble([
        leaf(7, 1 << 40, [(0, 0.25), (1, 0.25), (2, 0.25)]),
        branch(7, 3, .branchOnValueLessThan, feature: 1, value: 5, true: 1 << 40, false: UInt64.max),
        leaf(0, 1, [(2, 3), (0, 1)]),
        branch(0, 0, .branchOnValueLessThanEqual, value: 0, true: 1, false: 2),
        leaf(0, 2, [(1, 4)]),
        leaf(7, UInt64.max, [(2, -2)]),
    ], dimensions: 3, base: [0.5, -1, 2])

    @Test func leavesAddToTheirDimensionsOverTheBaseValues() throws {
        let model = try MLModel(specification: Self.regressor(Self.threeDimensions, width: 2))
        // x = (−1, 0): [0.5+1+0.25, −1+0.25, 2+3+0.25]
        #expect(Self.doubles(try Self.predict(model, [-1, 0]).featureValue(for: "y")) == [1.75, -0.75, 5.25])
        // x = (1, 9): [0.5, −1+4, 2−2]
        #expect(Self.doubles(try Self.predict(model, [1, 9]).featureValue(for: "y")) == [0.5, 3, 0])
    }

    /// A leaf-only tree adding 0 to base [1, 2].
    static let baseOnly = ensemble([leaf(0, 0, [(0, 0), (1, 0)])], dimensions: 2, base: [1, 2])

    @Test func postEvaluationTransforms() throws {
        let cases: [(CoreML_Specification_TreeEnsemblePostEvaluationTransform, [Double])] = [
            (.noTransform, [1, 2]),
            // e¹/(e¹+e²), e²/(e¹+e²)
            (.classificationSoftMax, [0.2689414213699951, 0.7310585786300049]),
            // 1/(1+e⁻¹), 1/(1+e⁻²)
            (.regressionLogistic, [0.7310585786300049, 0.8807970779778823]),
            // e¹/(1+e¹+e²), e²/(1+e¹+e²)
            (.classificationSoftMaxWithZeroClassReference, [0.24472847105479764, 0.6652409557748219]),
        ]
        for (transform, expected) in cases {
            let model = try MLModel(specification: Self.regressor(Self.baseOnly, transform: transform))
            let values = Self.doubles(try Self.predict(model, [0]).featureValue(for: "y"))
            #expect(values.count == 2)
            for (value, wanted) in zip(values, expected) { #expect(abs(value - wanted) < 1e-12, "\(transform)") }
        }
    }

    // MARK: Classifiers

    /// Binary, boosted-tree style: base 0.25; x₀ < 0 → −2, else 0.5; logistic.
    @Test func binaryLogisticClassifierScoresTheSecondClass() throws {
        let parameters = Self.ensemble([
            Self.branch(0, 0, .branchOnValueLessThan, value: 0, true: 1, false: 2), Self.leaf(0, 1, -2), Self.leaf(0, 2, 0.5),
        ], dimensions: 1, base: [0.25])
        let model = try MLModel(specification: Self.classifier(parameters, transform: .regressionLogistic, labels: .strings(["no", "yes"])))
        for (x, p, label) in [(-1.0, 0.14804719803168948, "no"), (1.0, 0.679178699175393, "yes")] {  // σ(−1.75), σ(0.75)
            let output = try Self.predict(model, [x])
            #expect(output.featureValue(for: "label")?.stringValue == label)
            let probabilities = try #require(output.featureValue(for: "probabilities")?.dictionaryValue)
            #expect(probabilities.count == 2)
            #expect(abs((probabilities["yes"]?.doubleValue ?? -1) - p) < 1e-12)
            #expect(abs((probabilities["no"]?.doubleValue ?? -1) - (1 - p)) < 1e-12)
        }
    }

    /// Binary, random-forest style: two trees each adding half its share of the second class;
    /// no transform; no labels (so 0 and 1). A probability of exactly 0.5 predicts class 1.
    @Test func binaryForestClassifierUsesTheValueAsProbability() throws {
        let parameters = Self.ensemble([
            Self.branch(0, 0, .branchOnValueLessThanEqual, value: 0, true: 1, false: 2), Self.leaf(0, 1, 0.5 * 0.2), Self.leaf(0, 2, 0.5 * 0.9),
            Self.branch(1, 0, .branchOnValueLessThanEqual, value: 1, true: 1, false: 2), Self.leaf(1, 1, 0.5 * 0.8), Self.leaf(1, 2, 0.5 * 0.1),
        ], dimensions: 1)
        let model = try MLModel(specification: Self.classifier(parameters, transform: .noTransform, labels: .none))
        // x = −1: 0.1 + 0.4 = 0.5 → class 1 (ties go to the second class); x = 0.5: 0.45 + 0.4 = 0.85; x = 2: 0.45 + 0.05 = 0.5.
        for (x, p) in [(-1.0, 0.5), (0.5, 0.85), (2.0, 0.5)] {
            let output = try Self.predict(model, [x])
            #expect(output.featureValue(for: "label")?.int64Value == 1)
            let probabilities = try #require(output.featureValue(for: "probabilities")?.dictionaryValue)
            #expect(abs((probabilities[Int64(1)]?.doubleValue ?? -1) - p) < 1e-12)
            #expect(abs((probabilities[Int64(0)]?.doubleValue ?? -1) - (1 - p)) < 1e-12)
        }
    }

    /// Three classes, one tree per class as boosted trees write them: softmax over [0.5, 1.5, −1]
    /// for x₀ = 1 (tree 1 branches to 1.5 when x₀ > 0, to −3 otherwise).
    @Test func multiClassSoftmaxClassifier() throws {
        let parameters = Self.ensemble([
            Self.leaf(0, 0, [(0, 0.5)]),
            Self.branch(1, 0, .branchOnValueGreaterThan, value: 0, true: 1, false: 2), Self.leaf(1, 1, [(1, 1.5)]), Self.leaf(1, 2, [(1, -3)]),
            Self.leaf(2, 0, [(2, -1)]),
        ], dimensions: 3)
        let model = try MLModel(specification: Self.classifier(parameters, transform: .classificationSoftMax, labels: .int64s([10, 20, 30])))
        let output = try Self.predict(model, [1])
        #expect(output.featureValue(for: "label")?.int64Value == 20)
        let probabilities = try #require(output.featureValue(for: "probabilities")?.dictionaryValue)
        for (label, p) in zip([10, 20, 30] as [Int64], [0.2537161816350252, 0.6896720861245035, 0.05661173224047128]) {
            #expect(abs((probabilities[label]?.doubleValue ?? -1) - p) < 1e-12)
        }
        // x₀ = −1: [0.5, −3, −1] → class 10.
        #expect(try Self.predict(model, [-1]).featureValue(for: "label")?.int64Value == 10)
    }

    /// A random forest of three classes: leaves hold class shares, no transform. The sums over the
    /// two trees, [0.1, 0.85, 1.05], are divided by their total, 2: [0.05, 0.425, 0.525], the mean
    /// of the trees' shares as scikit-learn's `predict_proba` (Core ML reports the sums). A row
    /// with a negative sum is left as it is.
    @Test func multiClassForestReportsTheMeanShares() throws {
        let parameters = Self.ensemble([
            Self.branch(0, 0, .branchOnValueLessThanEqual, value: 0, true: 1, false: 2),
            Self.leaf(0, 1, [(0, 0.5), (1, 0.5), (2, 0)]), Self.leaf(0, 2, [(0, 0), (1, 0.25), (2, 0.75)]),
            Self.leaf(1, 0, [(0, 0.1), (1, 0.6), (2, 0.3)]),
        ], dimensions: 3)
        let model = try MLModel(specification: Self.classifier(parameters, transform: .noTransform, labels: .strings(["a", "b", "c"])))
        let output = try Self.predict(model, [1])
        #expect(output.featureValue(for: "label")?.stringValue == "c")
        let probabilities = try #require(output.featureValue(for: "probabilities")?.dictionaryValue)
        #expect(abs((probabilities["a"]?.doubleValue ?? -1) - 0.05) < 1e-12)
        #expect(abs((probabilities["b"]?.doubleValue ?? -1) - 0.425) < 1e-12)
        #expect(abs((probabilities["c"]?.doubleValue ?? -1) - 0.525) < 1e-12)

        // Raw scores, one negative: [0.5 − 1, 0.5 + 0.6, 0 + 0.3] = [−0.5, 1.1, 0.3] stay as they are.
        let raw = Self.ensemble([
            Self.branch(0, 0, .branchOnValueLessThanEqual, value: 0, true: 1, false: 2),
            Self.leaf(0, 1, [(0, 0.5), (1, 0.5), (2, 0)]), Self.leaf(0, 2, [(0, 0.5), (1, 0.5), (2, 0)]),
            Self.leaf(1, 0, [(0, -1), (1, 0.6), (2, 0.3)]),
        ], dimensions: 3)
        let scores = try #require(try Self.predict(try MLModel(specification: Self.classifier(raw, transform: .noTransform, labels: .strings(["a", "b", "c"]))), [1])
            .featureValue(for: "probabilities")?.dictionaryValue)
        #expect(abs((scores["a"]?.doubleValue ?? 0) + 0.5) < 1e-12 && abs((scores["b"]?.doubleValue ?? 0) - 1.1) < 1e-12)
    }

    // MARK: Batches against a plain walk

    /// A deterministic pseudo-random ensemble: `trees` trees of depth up to 6 over 5 features,
    /// every behaviour, both missing directions, two dimensions.
    static func randomEnsemble(trees: Int, seed: UInt64) -> CoreML_Specification_TreeEnsembleParameters {
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var nodes: [Node] = []
        let behaviors: [Behavior] = [.branchOnValueLessThanEqual, .branchOnValueLessThan, .branchOnValueGreaterThanEqual,
                                     .branchOnValueGreaterThan, .branchOnValueEqual, .branchOnValueNotEqual]
        for tree in 0..<UInt64(trees) {
            var nextID: UInt64 = 1
            func grow(_ id: UInt64, depth: Int) {
                if depth == 6 || (depth > 1 && next() % 4 == 0) {
                    let dimension = next() % 2
                    let value = Double(next() % 100) / 10
                    let values: [(UInt64, Double)] = next() % 3 == 0 ? [(UInt64(0), value), (UInt64(1), -1.0)] : [(dimension, value)]
                    nodes.append(leaf(tree, id, values))
                    return
                }
                let (t, f) = (nextID * 7 + 3, nextID * 7 + 5)  // scattered ids
                nextID += 1
                let behavior = behaviors[Int(next() % 6)]
                // Thresholds on the grid the rows use, so equality tests sometimes hold.
                nodes.append(branch(tree, id, behavior, feature: next() % 5, value: Double(Int(next() % 9) - 4) / 2,
                                    true: t, false: f, missingTrue: next() % 2 == 0))
                grow(t, depth: depth + 1)
                grow(f, depth: depth + 1)
            }
            grow(0, depth: 0)
        }
        return ensemble(nodes.reversed(), dimensions: 2, base: [0.5, -0.5])
    }

    /// The ensemble's outputs for `row`, walking the specification by names.
    static func reference(_ parameters: CoreML_Specification_TreeEnsembleParameters, _ row: [Double]) -> [Double] {
        var byName: [String: Node] = [:]
        var children = Set<String>()
        for node in parameters.nodes {
            byName["\(node.treeID)/\(node.nodeID)"] = node
            if node.nodeBehavior != .leafNode {
                children.insert("\(node.treeID)/\(node.trueChildNodeID)")
                children.insert("\(node.treeID)/\(node.falseChildNodeID)")
            }
        }
        var sums = parameters.basePredictionValue
        let roots = parameters.nodes.filter { !children.contains("\($0.treeID)/\($0.nodeID)") }.sorted { $0.treeID < $1.treeID }
        for root in roots {
            var node = root
            while node.nodeBehavior != .leafNode {
                let x = row[Int(node.branchFeatureIndex)], t = node.branchFeatureValue
                let holds: Bool
                if x.isNaN {
                    holds = node.missingValueTracksTrueChild
                } else {
                    switch node.nodeBehavior {
                    case .branchOnValueLessThanEqual: holds = x <= t
                    case .branchOnValueLessThan: holds = x < t
                    case .branchOnValueGreaterThanEqual: holds = x >= t
                    case .branchOnValueGreaterThan: holds = x > t
                    case .branchOnValueEqual: holds = x == t
                    default: holds = x != t
                    }
                }
                node = byName["\(node.treeID)/\(holds ? node.trueChildNodeID : node.falseChildNodeID)"]!
            }
            for info in node.evaluationInfo { sums[Int(info.evaluationIndex)] += info.evaluationValue }
        }
        return sums
    }

    static func rows(_ count: Int, nanEvery: Int?) -> [[Double]] {
        (0..<count).map { row in
            (0..<5).map { column in
                if let nanEvery, (row * 5 + column) % nanEvery == 0 { return .nan }
                return Double((row * 31 + column * 17) % 11 - 5) / 2  // −2.5 … 2.5 in halves
            }
        }
    }

    @Test(arguments: [nil, 7] as [Int?]) func batchesMatchSinglePredictionsAndAPlainWalk(nanEvery: Int?) throws {
        let parameters = Self.randomEnsemble(trees: 40, seed: 12)
        let model = try MLModel(specification: Self.regressor(parameters, width: 5))
        let rows = Self.rows(2_500, nanEvery: nanEvery)  // several blocks, so several threads
        let batch = try model.predictions(fromBatch: MLArrayBatchProvider(array: rows.map(Self.input)))
        #expect(batch.count == rows.count)
        for (index, row) in rows.enumerated() {
            let expected = Self.reference(parameters, row)
            let ours = Self.doubles(batch.features(at: index).featureValue(for: "y"))
            #expect(ours.count == 2)
            for (value, wanted) in zip(ours, expected) { #expect(abs(value - wanted) < 1e-9, "row \(index)") }
            if index % 97 == 0 {
                let single = Self.doubles(try Self.predict(model, row).featureValue(for: "y"))
                #expect(single == ours, "row \(index) alone")
            }
        }
    }

    /// A large batch's outputs (made when read) equal single predictions', for a binary classifier.
    @Test func largeClassifierBatchesMatchSinglePredictions() throws {
        var parameters = Self.randomEnsemble(trees: 25, seed: 5)
        parameters.numPredictionDimensions = 1
        parameters.basePredictionValue = [-0.25]
        for index in parameters.nodes.indices where parameters.nodes[index].nodeBehavior == .leafNode {
            parameters.nodes[index].evaluationInfo = [parameters.nodes[index].evaluationInfo[0]]
            parameters.nodes[index].evaluationInfo[0].evaluationIndex = 0
            parameters.nodes[index].evaluationInfo[0].evaluationValue -= 5
        }
        let model = try MLModel(specification: Self.classifier(parameters, width: 5, transform: .regressionLogistic, labels: .strings(["a", "b"])))
        let rows = Self.rows(3_000, nanEvery: 11)
        let batch = try model.predictions(fromBatch: MLArrayBatchProvider(array: rows.map(Self.input)))
        var seen = Set<String>()
        for index in stride(from: 0, to: rows.count, by: 37) {
            let output = batch.features(at: index)
            #expect(output.featureNames == ["label", "probabilities"])
            let single = try Self.predict(model, rows[index])
            let label = try #require(output.featureValue(for: "label")?.stringValue)
            seen.insert(label)
            #expect(label == single.featureValue(for: "label")?.stringValue, "row \(index)")
            let p = try #require(output.featureValue(for: "probabilities")?.dictionaryValue["b"]?.doubleValue)
            #expect(p == single.featureValue(for: "probabilities")?.dictionaryValue["b"]?.doubleValue, "row \(index)")
            // σ(sum) by the plain walk
            let expected = 1 / (1 + exp(-Self.reference(parameters, rows[index])[0]))
            #expect(abs(p - expected) < 1e-12, "row \(index)")
            #expect(label == (p >= 0.5 ? "b" : "a"))
            #expect(output.featureValue(for: "other") == nil)
        }
        #expect(seen.count == 2)
    }

    // MARK: Refusals

    static func refusal(_ nodes: [Node], dimensions: UInt64 = 1, base: [Double] = [], width: Int = 1) -> String? {
        do {
            // The ensemble compiles at the first prediction.
            let model = try MLModel(specification: regressor(ensemble(nodes, dimensions: dimensions, base: base), width: width))
            _ = try predict(model, [Double](repeating: 0, count: width))
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func hostileTreesAreRefusedWithAReason() throws {
        let cases: [(String, String?)] = [
            // 1 → 2 → 1: no root reaches them
            ("not reachable", Self.refusal([
                Self.branch(0, 1, .branchOnValueLessThan, value: 0, true: 2, false: 3),
                Self.branch(0, 2, .branchOnValueLessThan, value: 0, true: 1, false: 4),
                Self.leaf(0, 3, 1), Self.leaf(0, 4, 1),
            ])),
            // 2 has two parents
            ("already the child", Self.refusal([
                Self.branch(0, 0, .branchOnValueLessThan, value: 0, true: 1, false: 2),
                Self.branch(0, 1, .branchOnValueLessThan, value: 0, true: 2, false: 3),
                Self.leaf(0, 2, 1), Self.leaf(0, 3, 1),
            ])),
            ("its own", Self.refusal([Self.branch(0, 0, .branchOnValueLessThan, value: 0, true: 0, false: 1), Self.leaf(0, 1, 1)])),
            ("not declared", Self.refusal([Self.branch(0, 0, .branchOnValueLessThan, value: 0, true: 1, false: UInt64.max), Self.leaf(0, 1, 1)])),
            // children in another tree do not count
            ("not declared", Self.refusal([Self.branch(0, 0, .branchOnValueLessThan, value: 0, true: 1, false: 2), Self.leaf(1, 1, 1), Self.leaf(1, 2, 1)])),
            ("more than once", Self.refusal([Self.leaf(0, 0, 1), Self.leaf(0, 0, 2)])),
            ("root nodes", Self.refusal([Self.leaf(0, 0, 1), Self.leaf(0, 1, 2)])),
            ("no evaluation values", Self.refusal([Self.leaf(0, 0, [])])),
            ("dimension 5", Self.refusal([Self.leaf(0, 0, [(5, 1)])])),
            ("more than once", Self.refusal([Self.leaf(0, 0, [(0, 1), (0, 2)])])),
            ("numPredictionDimensions", Self.refusal([Self.leaf(0, 0, 1)], dimensions: 0)),
            ("base prediction values", Self.refusal([Self.leaf(0, 0, 1)], base: [1, 2])),
            ("feature 1152921504606846976", Self.refusal([
                Self.branch(0, 0, .branchOnValueLessThan, feature: 1 << 60, value: 0, true: 1, false: 2), Self.leaf(0, 1, 1), Self.leaf(0, 2, 1),
            ])),
            ("feature 3", Self.refusal([
                Self.branch(0, 0, .branchOnValueLessThan, feature: 3, value: 0, true: 1, false: 2), Self.leaf(0, 1, 1), Self.leaf(0, 2, 1),
            ], width: 3)),
            ("unknown node behavior", Self.refusal([
                Self.branch(0, 0, .UNRECOGNIZED(9), value: 0, true: 1, false: 2), Self.leaf(0, 1, 1), Self.leaf(0, 2, 1),
            ])),
        ]
        for (reason, error) in cases {
            let error = try #require(error, "accepted; expected a refusal mentioning '\(reason)'")
            #expect(error.contains(reason), "\(error)")
        }
    }

    @Test func hugeDimensionCountsAreRefused() throws {
        var model = Self.regressor(Self.ensemble([Self.leaf(0, 0, [(1 << 40, 1)])], dimensions: UInt64.max))
        model.description_p.output = [Self.feature("y", Self.array(2))]
        #expect { _ = try Self.predict(MLModel(specification: model), [0]) } throws: { "\($0)".contains("numPredictionDimensions") }
        // A classifier without class labels: refused before a label per dimension is made.
        let classifier = Self.classifier(Self.ensemble([Self.leaf(0, 0, [(0, 1)])], dimensions: 1 << 40), transform: .noTransform, labels: .none)
        #expect { _ = try Self.predict(MLModel(specification: classifier), [0]) } throws: { "\($0)".contains("dimension") }
    }

    @Test func classifierLabelsMustMatchTheDimensions() throws {
        let parameters = Self.ensemble([Self.leaf(0, 0, [(0, 1), (1, 1), (2, 1)])], dimensions: 3)
        #expect { _ = try MLModel(specification: Self.classifier(parameters, transform: .noTransform, labels: .strings(["a", "b"]))) } throws: {
            "\($0)".contains("class labels")
        }
    }

    @Test func theMemoryLimitCoversTheCompiledTrees() throws {
        let configuration = MLModelConfiguration()
        configuration.memoryLimit = 1_000
        #expect {
            let model = try MLModel(specification: Self.regressor(Self.randomEnsemble(trees: 20, seed: 3), width: 5), configuration: configuration)
            _ = try Self.predict(model, [0, 0, 0, 0, 0])
        } throws: {
            "\($0)".contains("memory")
        }
    }

    @Test func severalNumberInputsAreConcatenated() throws {
        var model = Self.regressor(Self.threeDimensions, width: 2)
        model.description_p.input = [Self.feature("a", .doubleType(.init())), Self.feature("b", .int64Type(.init()))]
        let loaded = try MLModel(specification: model)
        let output = try loaded.prediction(from: MLDictionaryFeatureProvider(dictionary: ["a": 1.0, "b": 9]))
        #expect(Self.doubles(output.featureValue(for: "y")) == [0.5, 3, 0])
    }
}
