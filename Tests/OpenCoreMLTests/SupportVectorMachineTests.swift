import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// Support vector classifiers and regressors built in Swift from scikit-learn's fitted attributes
/// (LIBSVM's layout: `support_vectors_`, `n_support_`, `_dual_coef_`, ρ = −`_intercept_`,
/// `probA_`, `probB_`), against scikit-learn's predictions. The models were printed by:
/// ```python
/// X = np.array([[0,0],[1,.2],[.3,1],[2,2],[2.5,1.7],[1.8,2.6],[0,3],[-.5,2.5],[.4,3.3],[1.2,1.1]])
/// y = np.array([0,0,0,1,1,1,2,2,2,1]); Q = np.array([[.5,.5],[2,2.2],[0,2.8],[1,1.5]])
/// for kernel, kw in [("rbf", dict(gamma=.7)), ("linear", {}), ("poly", dict(gamma=.5, coef0=1., degree=3)),
///                    ("sigmoid", dict(gamma=.3, coef0=-.2))]:
///     m = SVC(kernel=kernel, probability=True, random_state=0, C=2.0, **kw).fit(X, y)
///     print(m.n_support_, m.support_vectors_, m._dual_coef_, -m._intercept_, m.probA_, m.probB_,
///           m.predict(Q), m.predict_proba(Q))
/// ```
/// A numpy re-implementation of the decision values Σ coef·K − ρ matched
/// `decision_function_shape="ovo"` to 1e-15, and of LIBSVM's coupling matched `predict_proba` to 1e-16.
@Suite("Support vector machines")
struct SupportVectorMachineTests {
    typealias T = ClassicTestModels

    struct Fitted {
        var kernel: CoreML_Specification_Kernel
        var perClass: [Int32]
        var vectors: [[Double]]
        var coefficients: [[Double]]
        var rho: [Double]
        var probA: [Double]
        var probB: [Double]
        /// scikit-learn's predict (one-vs-one votes) for the queries.
        var votedLabels: [Int64]
        /// scikit-learn's predict_proba for the queries.
        var probabilities: [[Double]]
    }

    static let queries: [[Double]] = [[0.5, 0.5], [2, 2.2], [0, 2.8], [1, 1.5]]

    static func kernel(_ configure: (inout CoreML_Specification_Kernel) -> Void) -> CoreML_Specification_Kernel {
        var kernel = CoreML_Specification_Kernel()
        configure(&kernel)
        return kernel
    }

    static let fitted: [String: Fitted] = [
        "rbf": Fitted(
            kernel: kernel { $0.rbfKernel.gamma = 0.7 }, perClass: [3, 3, 2],
            vectors: [[0.0, 0.0], [1.0, 0.2], [0.3, 1.0], [2.5, 1.7], [1.8, 2.6], [1.2, 1.1], [-0.5, 2.5], [0.4, 3.3]],
            coefficients: [[0.0, 1.453362227682908, 1.5075845926616533, -0.37670885761162504, -0.5842379627329362, -2.0, -0.859111523344576, -0.730923576651467],
                           [0.44199169744935024, 0.45175665642345353, 0.6962867461232393, 0.3751798816203957, 0.7883273755781334, 0.6793329022767653, -0.829254510385031, -1.0135856490902633]],
            rho: [0.010730497446938445, -0.024533524576635435, -0.1542886889864375],
            probA: [-1.1313207597723407, -1.8989874891616112, -2.0547574781220646], probB: [0.08590590229946025, -0.09129532121268487, 0.011754429396629577],
            votedLabels: [0, 1, 2, 1],
            probabilities: [[0.7386327707651806, 0.1951662264950398, 0.06620100273977926], [0.15666366119375377, 0.7590813433848976, 0.08425499542134857],
                            [0.09781262184873868, 0.0833008710670889, 0.8188865070841723], [0.27563042378589253, 0.6205727247739874, 0.10379685144012014]]),
        "linear": Fitted(
            kernel: kernel { $0.linearKernel = .init() }, perClass: [2, 2, 2],
            vectors: [[1.0, 0.2], [0.3, 1.0], [1.8, 2.6], [1.2, 1.1], [-0.5, 2.5], [0.4, 3.3]],
            coefficients: [[0.9734512430376712, 1.0265487569623288, -0.0, -2.0, -0.6920414768178421, -0.0],
                           [0.0, 0.6920414768178421, 0.8163266010642638, 0.0, -0.0, -0.8163266010642638]],
            rho: [-2.3143362777422984, -1.8719721832425744, -0.4285715434097097],
            probA: [-0.6934382023894009, -0.9024322535445649, -1.159764301670106], probB: [-0.111711270565041, 0.1257969975677127, -0.14277569299967346],
            votedLabels: [0, 1, 2, 1],
            probabilities: [[0.6209923701727829, 0.2470122243700314, 0.13199540545718558], [0.18526036893130268, 0.7024369463199727, 0.11230268474872453],
                            [0.19550582824811685, 0.19467488541987965, 0.6098192863320034], [0.38574126523577085, 0.43360457729856305, 0.18065415746566593]]),
        "poly": Fitted(
            kernel: kernel { $0.polyKernel.gamma = 0.5; $0.polyKernel.c = 1; $0.polyKernel.degree = 3 }, perClass: [2, 2, 1],
            vectors: [[1.0, 0.2], [0.3, 1.0], [1.8, 2.6], [1.2, 1.1], [-0.5, 2.5]],
            coefficients: [[0.18307912341472682, 0.20410677642078992, -0.0, -0.3871858998355167, -0.0334027218290015],
                           [0.0, 0.0334027218290015, 0.0030809322132326674, 0.02556262742752015, -0.028643559640752818]],
            rho: [-1.8942646380302233, -1.2204965629962532, -0.8012117434647718],
            probA: [-0.2319321498820546, -0.8878029760514901, -1.2951070535413478], probB: [-0.4046274031519906, -0.10628298687104813, -0.1360335987127894],
            votedLabels: [0, 1, 2, 1],
            probabilities: [[0.5635050547758356, 0.30174900512699737, 0.13474594009716706], [0.15471141994357906, 0.7450745051116014, 0.10021407494481929],
                            [0.2042331780039978, 0.1762612664593513, 0.6195055555366509], [0.4291819152674673, 0.4185091683351076, 0.15230891639742533]]),
        "sigmoid": Fitted(
            kernel: kernel { $0.sigmoidKernel.gamma = 0.3; $0.sigmoidKernel.c = -0.2 }, perClass: [3, 3, 3],
            vectors: [[0.0, 0.0], [1.0, 0.2], [0.3, 1.0], [2.0, 2.0], [2.5, 1.7], [1.8, 2.6], [0.0, 3.0], [-0.5, 2.5], [0.4, 3.3]],
            coefficients: [[0.05894649585545527, 2.0, 2.0, -0.05894649585545527, -2.0, -2.0, -1.3699576608645518, -0.0, -2.0],
                           [0.0, 1.3699576608645518, 2.0, 2.0, 1.5733201305051876, 2.0, -2.0, -1.5733201305051876, -2.0]],
            rho: [-0.999999999345488, -1.154635054223903, -0.09178996219523039],
            probA: [-1.050669455630052, -1.1845387940128977, -0.4563643933295668], probB: [0.08622839891207375, -0.25108761908056887, -0.04015272998027313],
            votedLabels: [1, 1, 2, 1],
            probabilities: [[0.2510709420599379, 0.5020140692277781, 0.24691498871228382], [0.21206423644566533, 0.46966649613219186, 0.3182692674221428],
                            [0.11318248692214346, 0.4363240235896592, 0.45049348948819745], [0.12430075742029939, 0.5171269437987275, 0.3585722987809729]]),
    ]

    /// ν-SVC has C-SVC's layout (coremltools converts NuSVC with the SVC converter):
    /// ```python
    /// m = NuSVC(kernel="rbf", gamma=1.0, nu=0.4, probability=True, random_state=1).fit(X, y)
    /// ```
    static let nuSVC = Fitted(
        kernel: kernel { $0.rbfKernel.gamma = 1 }, perClass: [3, 3, 2],
        vectors: [[0.0, 0.0], [1.0, 0.2], [0.3, 1.0], [2.5, 1.7], [1.8, 2.6], [1.2, 1.1], [-0.5, 2.5], [0.4, 3.3]],
        coefficients: [[0.2518768351830362, 1.4320077817841679, 1.4796006740331797, -0.4787056503716648, -0.6214185880665702, -2.0633610525621484, -0.889223534864931, -0.84517908080657],
                       [0.5399159988354189, 0.5517255664265478, 0.6427610504095346, 0.5365928956101164, 0.7168111319181315, 0.7135641323109176, -0.94712025301873, -1.0198479068204356]],
        rho: [0.11036261635332452, -0.050586007962485656, -0.17691298292286048],
        probA: [-1.1643246525866668, -2.2134656814799656, -2.0123808216606873], probB: [0.11348280165381931, -0.1431184527011583, -0.21583400334822472],
        votedLabels: [0, 1, 2, 1],
        probabilities: [[0.7631121089705982, 0.1885298699663608, 0.04835802106304072], [0.15362808792497662, 0.7704870463625227, 0.0758848657125003],
                        [0.0801595819409341, 0.10203401955077585, 0.8178063985082903], [0.20906968543480978, 0.703057632876335, 0.08787268168885537]])

    static func sparse(_ vectors: [[Double]]) -> CoreML_Specification_SparseSupportVectors {
        var sparse = CoreML_Specification_SparseSupportVectors()
        sparse.vectors = vectors.map { values in
            var vector = CoreML_Specification_SparseVector()
            vector.nodes = values.enumerated().filter { $0.element != 0 }.map { index, value in
                var node = CoreML_Specification_SparseNode()
                node.index = Int32(index + 1)
                node.value = value
                return node
            }
            return vector
        }
        return sparse
    }

    static func dense(_ vectors: [[Double]]) -> CoreML_Specification_DenseSupportVectors {
        var dense = CoreML_Specification_DenseSupportVectors()
        dense.vectors = vectors.map { values in var vector = CoreML_Specification_DenseVector(); vector.values = values; return vector }
        return dense
    }

    static func classifier(_ fitted: Fitted, probabilities: Bool, sparse: Bool = false, width: Int64 = 2,
                           labels: [Int64] = [0, 1, 2]) -> CoreML_Specification_Model {
        T.model(T.classifierDescription(inputs: [T.doubleArray("x", [width])], stringLabels: false)) { model in
            var svm = CoreML_Specification_SupportVectorClassifier()
            svm.kernel = fitted.kernel
            svm.numberOfSupportVectorsPerClass = fitted.perClass
            if sparse { svm.sparseSupportVectors = Self.sparse(fitted.vectors) } else { svm.denseSupportVectors = Self.dense(fitted.vectors) }
            svm.coefficients = fitted.coefficients.map { alpha in var c = CoreML_Specification_Coefficients(); c.alpha = alpha; return c }
            svm.rho = fitted.rho
            if probabilities {
                svm.probA = fitted.probA
                svm.probB = fitted.probB
            }
            svm.int64ClassLabels.vector = labels
            model.supportVectorClassifier = svm
        }
    }

    // MARK: Classifier

    @Test(arguments: ["rbf", "linear", "poly", "sigmoid", "nu"])
    func votesMatchScikitLearnsPredict(kernel: String) throws {
        let fitted = try #require(kernel == "nu" ? Self.nuSVC : Self.fitted[kernel])
        for sparse in [false, true] {
            let model = try MLModel(specification: Self.classifier(fitted, probabilities: false, sparse: sparse))
            for (query, row) in Self.queries.enumerated() {
                let output = try T.predict(model, row)
                #expect(output.featureValue(for: "label")?.int64Value == fitted.votedLabels[query], "\(kernel) sparse \(sparse) query \(query)")
                // Without probA/probB the dictionary holds each class's share of the 3 votes.
                let shares = T.probabilities(output)
                #expect(abs(shares.values.reduce(0, +) - 1) < 1e-15)
                #expect(shares.values.allSatisfy { [0, 1.0 / 3, 2.0 / 3, 1].contains($0) })
            }
        }
    }

    /// With probA/probB: LIBSVM's coupled probabilities (scikit-learn's `predict_proba`), and the
    /// vote as the label (scikit-learn's `predict`) — for the polynomial kernel's last query that is
    /// class 1 although class 0 is the more probable (0.4292 against 0.4185).
    @Test(arguments: ["rbf", "linear", "poly", "sigmoid", "nu"])
    func probabilitiesMatchScikitLearnsPredictProba(kernel: String) throws {
        let fitted = try #require(kernel == "nu" ? Self.nuSVC : Self.fitted[kernel])
        let model = try MLModel(specification: Self.classifier(fitted, probabilities: true))
        for (query, row) in Self.queries.enumerated() {
            let output = try T.predict(model, row)
            let probabilities = T.probabilities(output)
            for (index, value) in fitted.probabilities[query].enumerated() {
                #expect(abs((probabilities[String(index)] ?? -1) - value) < 1e-12, "\(kernel) query \(query) class \(index)")
            }
            #expect(abs(probabilities.values.reduce(0, +) - 1) < 1e-12)
            #expect(output.featureValue(for: "label")?.int64Value == fitted.votedLabels[query], "\(kernel) query \(query)")
        }
    }

    @Test(arguments: ["rbf", "linear", "poly", "sigmoid"])
    func sparseAndDenseAgree(kernel: String) throws {
        let fitted = try #require(Self.fitted[kernel])
        // Wider inputs than the vectors use (sparse only): a zero third input changes nothing.
        let dense = try MLModel(specification: Self.classifier(fitted, probabilities: true))
        let sparse = try MLModel(specification: Self.classifier(fitted, probabilities: true, sparse: true))
        for row in Self.queries + [[-3, 7.5], [0, 0]] {
            let a = T.probabilities(try T.predict(dense, row))
            let b = T.probabilities(try T.predict(sparse, row))
            for key in a.keys { #expect(abs(a[key]! - b[key]!) < 1e-12, "\(kernel) \(row) \(key)") }
        }
    }

    /// Two classes, linear kernel, worked by hand: support vectors [1, 0] (class "A", α = 1) and
    /// [0, 1] (class "B", α = −1), ρ = 0.5. For x = [2, 1] the decision value is 2 − 1 − 0.5 = 0.5
    /// (a vote for "A"); with A = −2, B = 0.1 Platt's sigmoid gives 1 / (1 + e^(0.5·−2 + 0.1)) =
    /// 1 / (1 + e^−0.9) = 0.7109495026250039; the coupling (LIBSVM's iteration, run for two classes
    /// as scikit-learn does) stops after two sweeps at 0.7109494831203407, 2e-8 from it.
    @Test func binaryProbabilityIsPlattsSigmoid() throws {
        var spec = T.model(T.classifierDescription(inputs: [T.doubleArray("x", [2])], stringLabels: true)) { model in
            model.supportVectorClassifier.kernel.linearKernel = .init()
            model.supportVectorClassifier.numberOfSupportVectorsPerClass = [1, 1]
            model.supportVectorClassifier.denseSupportVectors = Self.dense([[1, 0], [0, 1]])
            var coefficients = CoreML_Specification_Coefficients()
            coefficients.alpha = [1, -1]
            model.supportVectorClassifier.coefficients = [coefficients]
            model.supportVectorClassifier.rho = [0.5]
            model.supportVectorClassifier.probA = [-2]
            model.supportVectorClassifier.probB = [0.1]
            model.supportVectorClassifier.stringClassLabels.vector = ["A", "B"]
        }
        var output = try T.predict(try MLModel(specification: spec), [2, 1])
        #expect(T.label(output) == "A")
        #expect(abs(T.probabilities(output)["A"]! - 0.7109494831203407) < 1e-15)
        #expect(abs(T.probabilities(output)["B"]! - 0.2890505168796591) < 1e-15)
        // x = [0, 1]: decision −1 − 0.5 = −1.5 → "B" by vote and by probability.
        spec.supportVectorClassifier.probA = []
        spec.supportVectorClassifier.probB = []
        output = try T.predict(try MLModel(specification: spec), [0, 1])
        #expect(T.label(output) == "B")
    }

    @Test func batchEqualsSingles() throws {
        let model = try MLModel(specification: Self.classifier(Self.fitted["rbf"]!, probabilities: true, sparse: true))
        let rows: [[Double]] = (0..<300).map { i in [sin(Double(i)) * 3, cos(Double(i) * 0.7) * 3] }
        let batch = try model.predictions(fromBatch: MLArrayBatchProvider(array: rows.map { T.provider(["x": T.vector($0)]) }))
        for (index, row) in rows.enumerated() {
            let single = try T.predict(model, row)
            #expect(T.probabilities(single) == T.probabilities(batch.features(at: index)))
            #expect(T.label(single) == T.label(batch.features(at: index)))
        }
    }

    @Test func insideAPipeline() throws {
        // A GLM regressor doubles x, then the rbf classifier (fitted on the unscaled rows) reads
        // half of it back: the pipeline must give the classifier's own answers.
        let scale = GLMTests.regressor(weights: [[0.5, 0], [0, 0.5]], offsets: [0, 0], output: T.doubleArray("x", [2]))
        var first = scale
        first.description_p.input = [T.doubleArray("doubled", [2])]
        var pipeline = CoreML_Specification_Model()
        pipeline.specificationVersion = 1
        pipeline.description_p = T.classifierDescription(inputs: [T.doubleArray("doubled", [2])], stringLabels: false)
        pipeline.pipelineClassifier.pipeline.models = [first, Self.classifier(Self.fitted["rbf"]!, probabilities: true)]
        let model = try MLModel(specification: pipeline)
        let fitted = Self.fitted["rbf"]!
        for (query, row) in Self.queries.enumerated() {
            let output = try T.predict(model, "doubled", row.map { $0 * 2 })
            #expect(abs(T.probabilities(output)["1"]! - fitted.probabilities[query][1]) < 1e-12)
        }
    }

    // MARK: Regressor

    static func regressor(vectors: [[Double]], alpha: [Double], rho: Double, kernel: CoreML_Specification_Kernel,
                          sparse: Bool = false) -> CoreML_Specification_Model {
        T.model(T.regressorDescription(inputs: [T.doubleArray("x", [2])], output: T.double("y"))) { model in
            model.supportVectorRegressor.kernel = kernel
            if sparse {
                model.supportVectorRegressor.sparseSupportVectors = Self.sparse(vectors)
            } else {
                model.supportVectorRegressor.denseSupportVectors = Self.dense(vectors)
            }
            model.supportVectorRegressor.coefficients.alpha = alpha
            model.supportVectorRegressor.rho = rho
        }
    }

    /// ```python
    /// yr = X[:,0]*2 - X[:,1] + 0.3
    /// m = SVR(kernel="rbf", gamma=0.5, C=3.0, epsilon=0.1).fit(X, yr)      # all 10 rows are support vectors
    /// m._dual_coef_, -m._intercept_, m.predict(Q)
    /// m = NuSVR(kernel="poly", gamma=0.4, coef0=0.5, degree=2, C=2.0, nu=0.5).fit(X, yr)
    /// m.support_vectors_, m._dual_coef_, -m._intercept_, m.predict(Q)
    /// ```
    @Test func regressorsMatchScikitLearn() throws {
        let rows: [[Double]] = [[0, 0], [1, 0.2], [0.3, 1], [2, 2], [2.5, 1.7], [1.8, 2.6], [0, 3], [-0.5, 2.5], [0.4, 3.3], [1.2, 1.1]]
        let svr = Self.regressor(
            vectors: rows,
            alpha: [-0.9716429695381923, 2.6014042099212875, -0.305422175549576, -0.486186806525656, 3.0, 0.41744853213695854,
                    0.6810969553384659, -3.0, -1.5637255284000768, -0.3729722173832112],
            rho: -0.19078069636777212, kernel: Self.kernel { $0.rbfKernel.gamma = 0.5 })
        let nuSVR = Self.regressor(
            vectors: [[0.0, 0.0], [1.0, 0.2], [0.3, 1.0], [1.8, 2.6], [-0.5, 2.5], [0.4, 3.3], [1.2, 1.1]],
            alpha: [-0.3392208358249576, 2.0, -2.0, -1.028261006944325, -1.6325181572307177, 1.5090631746553906, 1.4909368253446094],
            rho: -0.4881082873584015, kernel: Self.kernel { $0.polyKernel.gamma = 0.4; $0.polyKernel.c = 0.5; $0.polyKernel.degree = 2 })
        let expected: [(CoreML_Specification_Model, [Double])] = [
            (svr, [1.0361758193700075, 2.1507514113751802, -2.907451232599064, 0.7133253645551347]),
            (nuSVR, [0.7571260250082288, 2.2117573377130606, -2.5042769674523733, 0.7987222704311856]),
        ]
        for (spec, answers) in expected {
            for sparse in [false, true] {
                var spec = spec
                if sparse {
                    spec.supportVectorRegressor.sparseSupportVectors = Self.sparse(spec.supportVectorRegressor.denseSupportVectors.vectors.map(\.values))
                }
                let model = try MLModel(specification: spec)
                for (query, row) in Self.queries.enumerated() {
                    let y = try #require(try T.predict(model, row).featureValue(for: "y")?.doubleValue)
                    #expect(abs(y - answers[query]) < 1e-12, "sparse \(sparse) query \(query)")
                }
            }
        }
    }

    // MARK: Refusals

    @Test func hostileSpecsAreRefused() throws {
        let rbf = Self.fitted["rbf"]!
        func edited(_ edit: (inout CoreML_Specification_SupportVectorClassifier) -> Void) -> CoreML_Specification_Model {
            var spec = Self.classifier(rbf, probabilities: true)
            edit(&spec.supportVectorClassifier)
            return spec
        }
        let cases: [(CoreML_Specification_Model, [String])] = [
            (edited { $0.kernel.rbfKernel.gamma = .nan }, ["gamma", "nan"]),
            (edited { $0.kernel.rbfKernel.gamma = -1 }, ["gamma"]),
            (edited { $0.kernel.polyKernel.degree = -2 }, ["degree"]),
            (edited { $0.kernel = .init() }, ["no kernel"]),
            (edited { $0.numberOfSupportVectorsPerClass = [3, 3, 3] }, ["sum to 9", "8 support vectors"]),
            (edited { $0.numberOfSupportVectorsPerClass = [3, 5] }, ["2 support vector counts", "3 classes"]),
            (edited { $0.numberOfSupportVectorsPerClass = [Int32.max, Int32.max, 2] }, ["sum to"]),
            (edited { $0.numberOfSupportVectorsPerClass = [-1, 7, 2] }, ["negative"]),
            (edited { $0.coefficients.removeLast() }, ["1 coefficient rows", "3 classes"]),
            (edited { $0.coefficients[1].alpha.append(1) }, ["coefficient row 1 has 9 values"]),
            (edited { $0.rho = [1, 2] }, ["2 rho values", "3 class pairs"]),
            (edited { $0.probB = [1] }, ["probA has 3", "probB 1"]),
            (edited { $0.probA = [1]; $0.probB = [1] }, ["one per class pair"]),
            (edited { $0.int64ClassLabels.vector = [5] }, ["at least two class labels"]),
            (edited { $0.denseSupportVectors.vectors[2].values.append(4) }, ["support vector 2 has 3 values"]),
            (edited { $0.supportVectors = nil }, ["no support vectors"]),
            (Self.classifier(rbf, probabilities: true, width: 3), ["2 values", "inputs hold 3"]),
            (edited { $0.sparseSupportVectors = Self.sparse([[1, 0, 5]] + Array(repeating: [1, 1], count: 7)) }, ["index 3", "2 values"]),
            (edited { $0.sparseSupportVectors = Self.sparse(Array(repeating: [1, 1], count: 8)); $0.sparseSupportVectors.vectors[4].nodes[0].index = 0 },
             ["index 0", "count from 1"]),
        ]
        for (spec, words) in cases {
            do {
                _ = try MLModel(specification: spec)
                Issue.record("\(words): the model loaded")
            } catch {
                #expect(words.allSatisfy { "\(error)".contains($0) }, "\(error) should mention \(words)")
            }
        }
        var regressor = Self.regressor(vectors: [[1, 2]], alpha: [1, 2], rho: 0, kernel: Self.kernel { $0.linearKernel = .init() })
        #expect { _ = try MLModel(specification: regressor) } throws: { T.mentions($0, "2 coefficients", "1 support vectors") }
        regressor.supportVectorRegressor.coefficients.alpha = [1]
        regressor.description_p.input = [T.doubleArray("x", [Int64.max, Int64.max])]
        #expect { _ = try MLModel(specification: regressor) } throws: { T.mentions($0, "input 'x'") }
    }

    @Test func aModelBeyondTheMemoryLimitIsRefused() throws {
        let configuration = MLModelConfiguration()
        configuration.memoryLimit = 100  // bytes: 16 support vector values are 128
        let model = try MLModel(specification: Self.classifier(Self.fitted["rbf"]!, probabilities: true), configuration: configuration)
        #expect { _ = try T.predict(model, [1, 2]) } throws: { T.mentions($0, "memory limit") }
    }
}
