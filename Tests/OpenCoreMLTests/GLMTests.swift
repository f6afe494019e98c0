import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// GLM regressors and classifiers built in Swift, against values worked by hand or computed with
/// scikit-learn / numpy (the snippet that printed them is quoted with each).
@Suite("GLM models")
struct GLMTests {
    typealias T = ClassicTestModels

    static func regressor(weights: [[Double]], offsets: [Double], transform: CoreML_Specification_GLMRegressor.PostEvaluationTransform = .noTransform,
                          inputs: [CoreML_Specification_FeatureDescription]? = nil,
                          output: CoreML_Specification_FeatureDescription? = nil) -> CoreML_Specification_Model {
        let width = Int64(weights.first?.count ?? 0)
        let out = output ?? (weights.count == 1 ? T.double("y") : T.doubleArray("y", [Int64(weights.count)]))
        return T.model(T.regressorDescription(inputs: inputs ?? [T.doubleArray("x", [width])], output: out)) { model in
            model.glmRegressor.weights = weights.map { row in var array = CoreML_Specification_GLMRegressor.DoubleArray(); array.value = row; return array }
            model.glmRegressor.offset = offsets
            model.glmRegressor.postEvaluationTransform = transform
        }
    }

    static func classifier(weights: [[Double]], offsets: [Double], labels: [String]? = nil, intLabels: [Int64]? = nil,
                           encoding: CoreML_Specification_GLMClassifier.ClassEncoding = .oneVsRest,
                           transform: CoreML_Specification_GLMClassifier.PostEvaluationTransform = .logit) -> CoreML_Specification_Model {
        let width = Int64(weights.first?.count ?? 0)
        return T.model(T.classifierDescription(inputs: [T.doubleArray("x", [width])], stringLabels: labels != nil)) { model in
            model.glmClassifier.weights = weights.map { row in var array = CoreML_Specification_GLMClassifier.DoubleArray(); array.value = row; return array }
            model.glmClassifier.offset = offsets
            model.glmClassifier.classEncoding = encoding
            model.glmClassifier.postEvaluationTransform = transform
            if let labels { model.glmClassifier.stringClassLabels.vector = labels }
            if let intLabels { model.glmClassifier.int64ClassLabels.vector = intLabels }
        }
    }

    // MARK: Regressor

    /// y = 1·1 + 2·1 − 1·1 + 0.5 = 2.5; logistic(2.5) = 1/(1 + e^−2.5), Φ(2.5) from scipy:
    /// `1/(1+np.exp(-2.5))` → 0.9241418199787566, `scipy.stats.norm.cdf(2.5)` → 0.9937903346742238.
    @Test(arguments: [(CoreML_Specification_GLMRegressor.PostEvaluationTransform.noTransform, 2.5),
                      (.logit, 0.9241418199787566), (.probit, 0.9937903346742238)])
    func regressorAppliesItsTransform(transform: CoreML_Specification_GLMRegressor.PostEvaluationTransform, expected: Double) throws {
        let model = try MLModel(specification: Self.regressor(weights: [[1, 2, -1]], offsets: [0.5], transform: transform))
        let y = try #require(try T.predict(model, [1, 1, 1]).featureValue(for: "y"))
        #expect(y.type == .double)
        #expect(abs(y.doubleValue - expected) < 1e-15)
    }

    /// coremltools converts LinearSVR (and LinearRegression) into a GLM regressor of `coef_` and
    /// `intercept_`:
    /// ```python
    /// yr = X[:,0]*2 - X[:,1] + 0.3   # X as below
    /// m = LinearSVR(C=1.0, epsilon=0.0, random_state=0, max_iter=100000, dual=True).fit(X, yr)
    /// m.coef_, m.intercept_, m.predict(Q)
    /// ```
    @Test func linearSVRAsGLMMatchesScikitLearn() throws {
        let model = try MLModel(specification: Self.regressor(weights: [[2.0000259104400926, -0.9999955545101764]], offsets: [0.29997496570754467]))
        let queries: [[Double]] = [[0.5, 0.5], [2, 2.2], [0, 2.8], [1, 1.5]]
        let expected = [0.7999901436725028, 2.1000365666653416, -2.500012586920949, 0.8000075443823728]
        for (row, value) in zip(queries, expected) {
            #expect(abs(try #require(try T.predict(model, row).featureValue(for: "y")?.doubleValue) - value) < 1e-13)
        }
    }

    /// Two rows give a multi-array: [3 + 0, 4 + 1] = [3, 5].
    @Test func severalRowsGiveAMultiArray() throws {
        let model = try MLModel(specification: Self.regressor(weights: [[1, 0, 0], [0, 1, 0]], offsets: [0, 1]))
        let y = try #require(try T.predict(model, [3, 4, 5]).featureValue(for: "y")?.multiArrayValue)
        #expect(y.shape == [2])
        #expect(y[0].doubleValue == 3 && y[1].doubleValue == 5)
    }

    /// Number inputs are concatenated in declaration order: x1 (double) = 2, x2 (int64) = 3 →
    /// 10·2 + 1·3 − 1 = 22.
    @Test func numberInputsAreConcatenated() throws {
        let spec = Self.regressor(weights: [[10, 1]], offsets: [-1], inputs: [T.double("x1"), T.int64("x2")])
        let model = try MLModel(specification: spec)
        let output = try model.prediction(from: T.provider(["x1": MLFeatureValue(double: 2), "x2": MLFeatureValue(int64: 3)]))
        #expect(output.featureValue(for: "y")?.doubleValue == 22)
    }

    @Test func batchEqualsSingles() throws {
        let model = try MLModel(specification: Self.regressor(weights: [[0.3, -1.7, 2.2], [1, 1, 1]], offsets: [0.1, -0.2], transform: .logit))
        let rows: [[Double]] = (0..<300).map { i in [Double(i) * 0.01, sin(Double(i)), cos(Double(i) * 0.3)] }
        let batch = try model.predictions(fromBatch: MLArrayBatchProvider(array: rows.map { T.provider(["x": T.vector($0)]) }))
        #expect(batch.count == rows.count)
        for (index, row) in rows.enumerated() {
            let single = try #require(try T.predict(model, row).featureValue(for: "y")?.multiArrayValue)
            let batched = try #require(batch.features(at: index).featureValue(for: "y")?.multiArrayValue)
            #expect(single[0].doubleValue == batched[0].doubleValue && single[1].doubleValue == batched[1].doubleValue)
        }
    }

    // MARK: Classifier

    /// scikit-learn's one-vs-rest logistic regression, its coefficients in a GLM classifier:
    /// ```python
    /// X = [[0,0],[1,.2],[.3,1],[2,2],[2.5,1.7],[1.8,2.6],[0,3],[-.5,2.5],[.4,3.3],[1.2,1.1]]; y = [0,0,0,1,1,1,2,2,2,1]
    /// m = LogisticRegression(multi_class="ovr", C=1.0).fit(X, y)
    /// m.coef_, m.intercept_, m.predict_proba(Q), m.predict(Q)  # Q = [[.5,.5],[2,2.2],[0,2.8],[1,1.5]]
    /// ```
    @Test func oneVsRestMatchesScikitLearnLogisticRegression() throws {
        let spec = Self.classifier(
            weights: [[-0.5244807570688633, -1.3099491926527944], [1.464523836980009, 0.14900039490740166], [-1.0015764561805471, 1.1339912384633692]],
            offsets: [1.5453234429849978, -2.0595234528398954, -2.3425570369847692], intLabels: [0, 1, 2])
        let model = try MLModel(specification: spec)
        let queries: [[Double]] = [[0.5, 0.5], [2, 2.2], [0, 2.8], [1, 1.5]]
        let expected: [[Double]] = [
            [0.6740453384236954, 0.2297149681251879, 0.0962396934511167], [0.08529850522585053, 0.7773019887951756, 0.1373995059789738],
            [0.1106911560805941, 0.16785930608359986, 0.721449537835806], [0.3293885062863691, 0.4800449850702912, 0.1905665086433397],
        ]
        let labels = ["0", "1", "2", "1"]
        for (query, row) in queries.enumerated() {
            let output = try T.predict(model, row)
            let probabilities = T.probabilities(output)
            for (index, value) in expected[query].enumerated() {
                #expect(abs((probabilities[String(index)] ?? -1) - value) < 1e-12, "query \(query) class \(index)")
            }
            #expect(abs(probabilities.values.reduce(0, +) - 1) < 1e-12)
            #expect(T.label(output) == labels[query])
        }
    }

    /// coremltools converts LinearSVC into this same GLM (one-vs-rest, logit), so the label is the
    /// class of the largest decision value:
    /// ```python
    /// m = LinearSVC(C=1.0, random_state=0, dual=True, max_iter=100000).fit(X, y)  # X, y as above
    /// m.coef_, m.intercept_, m.predict(Q)  # [0, 1, 2, 1]
    /// ```
    @Test func linearSVCAsGLMPredictsScikitLearnsLabels() throws {
        let spec = Self.classifier(
            weights: [[-0.259023283655622, -0.745289754680501], [0.9478536468936574, -0.0027724024318711935], [-0.8032544065146724, 0.576257745649307]],
            offsets: [0.924616805518545, -0.978159609094562, -0.8521688894007973], labels: ["a", "b", "c"])
        let model = try MLModel(specification: spec)
        let queries: [[Double]] = [[0.5, 0.5], [2, 2.2], [0, 2.8], [1, 1.5]]
        #expect(try queries.map { T.label(try T.predict(model, $0)) } == ["a", "b", "c", "b"])
    }

    /// The fixture glm_classifier.mlmodel (one-vs-rest logit, 3 classes), by numpy:
    /// ```python
    /// s = W @ [5.1, 3.5, 1.4, 0.2] + b; p = 1/(1+np.exp(-s)); p /= p.sum()
    /// # [0.8747282979075849, 0.1003942760505453, 0.02487742604186996] → setosa
    /// ```
    @Test func fixtureOneVsRestNormalizes() throws {
        let model = try MLModel(contentsOf: Fixtures.url("glm_classifier.mlmodel"))
        let output = try model.prediction(from: T.provider(["features": T.vector([5.1, 3.5, 1.4, 0.2])]))
        #expect(output.featureValue(for: "classLabel")?.stringValue == "setosa")
        let probabilities = try #require(output.featureValue(for: "classProbability")?.dictionaryValue)
        for (label, value) in zip(["setosa", "versicolor", "virginica"], [0.8747282979075849, 0.1003942760505453, 0.02487742604186996]) {
            #expect(abs((probabilities[label]?.doubleValue ?? -1) - value) < 1e-12, "\(label)")
        }
    }

    /// Two classes, one row scoring the second class: s = 1 − 0.5 + 0.25 = 0.75, Φ(0.75) =
    /// 0.7733726476231317 (`scipy.stats.norm.cdf(0.75)`), so "yes" with that probability; the
    /// reference-class encoding reads a binary row the same way.
    @Test(arguments: [CoreML_Specification_GLMClassifier.ClassEncoding.oneVsRest, .referenceClass])
    func binaryProbitScoresTheSecondClass(encoding: CoreML_Specification_GLMClassifier.ClassEncoding) throws {
        let model = try MLModel(specification: Self.classifier(weights: [[1, -1]], offsets: [0.25], labels: ["no", "yes"],
                                                               encoding: encoding, transform: .probit))
        let output = try T.predict(model, [1, 0.5])
        #expect(T.label(output) == "yes")
        let probabilities = T.probabilities(output)
        #expect(abs(probabilities["yes"]! - 0.7733726476231317) < 1e-15)
        #expect(abs(probabilities["no"]! - 0.22662735237686826) < 1e-15)
    }

    /// Reference class with three classes: the first class's score is 0, so the probabilities are
    /// softmax([0, 1, 2]) = [0.09003057317038046, 0.24472847105479764, 0.6652409557748219]
    /// (`np.exp([0,1,2]) / np.exp([0,1,2]).sum()`).
    @Test func referenceClassIsAMultinomialLogit() throws {
        let model = try MLModel(specification: Self.classifier(weights: [[1, 0], [0, 1]], offsets: [0, 0], intLabels: [7, 8, 9],
                                                               encoding: .referenceClass))
        let output = try T.predict(model, [1, 2])
        #expect(output.featureValue(for: "label")?.int64Value == 9)
        let probabilities = T.probabilities(output)
        for (label, value) in zip(["7", "8", "9"], [0.09003057317038046, 0.24472847105479764, 0.6652409557748219]) {
            #expect(abs(probabilities[label]! - value) < 1e-15)
        }
    }

    @Test func insideAPipeline() throws {
        // GLM regressor x (2) → z (2 values), then a one-vs-rest GLM classifier on z.
        let first = Self.regressor(weights: [[1, 0], [0, 2]], offsets: [0, 0], output: T.doubleArray("z", [2]))
        var second = Self.classifier(weights: [[1, -1], [-1, 1], [0.5, 0.5]], offsets: [0, 0, -3], labels: ["p", "q", "r"])
        second.description_p.input = [T.doubleArray("z", [2])]
        var pipeline = CoreML_Specification_Model()
        pipeline.specificationVersion = 1
        pipeline.description_p = T.classifierDescription(inputs: [T.doubleArray("x", [2])], stringLabels: true)
        pipeline.pipelineClassifier.pipeline.models = [first, second]
        let model = try MLModel(specification: pipeline)
        // z = [3, 2]: scores [1, −1, −0.5] → the logistic links 0.731…, 0.269…, 0.378…; "p" wins.
        let output = try T.predict(model, [3, 1])
        #expect(T.label(output) == "p")
        let l = { (s: Double) in 1 / (1 + exp(-s)) }
        let sum = l(1) + l(-1) + l(-0.5)
        #expect(abs(T.probabilities(output)["r"]! - l(-0.5) / sum) < 1e-15)
    }

    // MARK: Refusals

    @Test func hostileSpecsAreRefused() throws {
        let cases: [(CoreML_Specification_Model, [String])] = [
            (Self.regressor(weights: [[1, 2]], offsets: [0, 1]), ["2 offsets for 1 weight rows"]),
            (Self.regressor(weights: [[1, 2], [1]], offsets: [0, 1]), ["weight row 1 has 1 values"]),
            (Self.regressor(weights: [[1, 2, 3]], offsets: [0], inputs: [T.doubleArray("x", [2])]), ["3 values", "inputs hold 2"]),
            (Self.regressor(weights: [[1]], offsets: [0], inputs: [T.doubleArray("x", [Int64.max, 4])]), []),
            (Self.regressor(weights: [[1], [2]], offsets: [0, 0], output: T.double("y")), ["output 'y' is a number", "2 weight rows"]),
            (Self.regressor(weights: [], offsets: [], inputs: [T.doubleArray("x", [2])], output: T.double("y")), ["at least one weight row"]),
            (Self.classifier(weights: [[1, 2], [3, 4]], offsets: [0, 0], labels: ["a", "b"]), ["2 weight rows for 2 classes"]),
            (Self.classifier(weights: [[1, 2], [3, 4], [5, 6]], offsets: [0, 0, 0], labels: ["a", "b", "c"], encoding: .referenceClass),
             ["3 weight rows for 3 classes", "reference"]),
            (Self.classifier(weights: [[1], [2], [3]], offsets: [0, 0, 0], labels: ["a", "b", "c"], transform: .probit), ["probit", "two classes"]),
            (Self.classifier(weights: [[1]], offsets: [0], labels: ["a"]), ["at least two class labels"]),
            (Self.classifier(weights: [[1]], offsets: [0], intLabels: [1, 2]).withLabelOutput(T.string("label")), ["class labels' type"]),
        ]
        for (spec, words) in cases {
            #expect(throws: (any Error).self, "\(words)") { _ = try MLModel(specification: spec) }
            do { _ = try MLModel(specification: spec) } catch {
                #expect(words.allSatisfy { "\(error)".contains($0) }, "\(error) should mention \(words)")
            }
        }
    }

    @Test func wrongInputWidthIsAClearError() throws {
        var spec = Self.regressor(weights: [[1, 2]], offsets: [0])
        spec.description_p.input = [T.doubleArray("x", [2])]
        let model = try MLModel(specification: spec)
        #expect { _ = try T.predict(model, [1, 2, 3]) } throws: { T.mentions($0, "'x'", "3 values", "expects 2") }
    }
}

private extension CoreML_Specification_Model {
    func withLabelOutput(_ feature: CoreML_Specification_FeatureDescription) -> Self {
        var copy = self
        copy.description_p.output[0] = feature
        return copy
    }
}
