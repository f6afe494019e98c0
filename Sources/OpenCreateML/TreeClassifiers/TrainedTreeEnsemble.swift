import CoreMLSpec
import Foundation
import OpenCoreML
import _OpenCoreMLEngine

/// What the six tree trainers share: the table's encoding, the trained ensemble, and prediction
/// with the same tree walk (`TreeEnsembleLayout`) and post-evaluation transform as the exported
/// model's `TreeEnsembleRunner`, so that `predictions(from:)` and the written model agree exactly.
struct TrainedTreeEnsemble: Sendable {
    let columns: TabularColumns
    let fit: TreeEnsembleFit
    let plan: TreeTrainingPlan
    let task: TabularTask
    let iterations: [TabularTrainingIteration]
    let trainingMetrics: TreeModelMetrics
    let validationMetrics: TreeModelMetrics
    private let layout: TreeEnsembleLayout
    private let transform: TreeEnsembleTransform

    private static let memoryLimit = 1 << 40

    /// Trains on `table`: splits off validation rows, encodes, bins, grows the trees, and measures
    /// the result on the training and validation rows.
    init(table: MLDataTable, targetColumn: String, featureColumns: [String]?, task: TabularTask, plan: TreeTrainingPlan,
         validation: TabularValidationData, progress: ((TabularTrainingIteration) -> Bool)?) throws {
        let location = "ML\(plan.name)\(task == .classification ? "Classifier" : "Regressor")"
        let (training, validationTable) = try validation.tables(from: table, location: location + ".ModelParameters")
        // A split's classes and categories come from the whole table, so a class that lands only in
        // the validation rows is still known; a separate validation table must match the training one.
        let fittedOn: MLDataTable = if case .split = validation { table } else { training }
        let columns = try TabularColumns(fitting: fittedOn, targetColumn: targetColumn, featureColumns: featureColumns, task: task)
        guard training.rowCount > 0 else { throw CreateMLError(location, "the training table has no rows") }
        try columns.checkRows(table, validation: validation)
        let trainingTargets = try columns.encodeTargets(training)
        let kinds: [TreeFeatureKind] = columns.features.map { feature in feature.codeCount.map { .categorical(count: $0) } ?? .numeric }
        let classCount: Int? = if case .classes(let labels) = columns.target { labels.count } else { nil }
        if let classCount {
            // Per class: a score and a gradient pair per row (training and validation), and two
            // histograms of every feature's bins (up to 257 each).
            let cells = training.rowCount + (validationTable?.rowCount ?? 0) + 2 * 257 * kinds.count
            try columns.checkClassesFit(classes: classCount, cellsPerClass: cells, bytesPerCell: 16, trainer: "a tree classifier")
        }
        try Self.checkTreesFit(plan.algorithm, outputs: classCount.map { $0 > 2 ? $0 : 1 } ?? 1, location: location)
        let start = Date()
        var iterations: [TabularTrainingIteration] = []
        let metric: TabularTrainingIteration.Metric = classCount == nil ? .rmse : .accuracy
        let fit: TreeEnsembleFit
        var validationTargets: [Double]?
        do {
            // Binned a few columns at a time: the table's columns are never all held as doubles.
            let vectors = TabularColumns.VectorCache()
            let binned = try BinnedFeatures(rowCount: training.rowCount, kinds: kinds) { try columns.encodeFeature($0, of: training, vectors: vectors) }
            var validationSet: (BinnedFeatures, [Double])?
            if let validationTable {
                let encoded = try columns.encodeFeatures(validationTable)
                validationTargets = try columns.encodeTargets(validationTable)
                validationSet = (try binned.binning(columns: encoded), validationTargets!)
            }
            let report: (TreeTrainingIteration) -> Bool = { step in
                let iteration = TabularTrainingIteration(
                    iteration: step.iteration + 1, trainingLoss: step.trainingLoss, validationLoss: step.validationLoss,
                    trainingMetric: step.trainingMetric, validationMetric: step.validationMetric, metric: metric,
                    seconds: Date().timeIntervalSince(start))
                iterations.append(iteration)
                return progress?(iteration) ?? true
            }
            switch plan.algorithm {
            case .boosted(let growth, let rounds, let stepSize, let earlyStoppingRounds):
                let objective: TreeObjective = switch classCount {
                case nil: .squaredError
                case 2?: .logistic
                case let count?: .softmax(classCount: count)
                }
                let trainer = GradientBoostedTrees(objective: objective, growth: growth, iterations: rounds, stepSize: stepSize,
                                                   earlyStoppingRounds: validationSet == nil ? nil : earlyStoppingRounds)
                fit = try trainer.fit(training: binned, targets: trainingTargets, validation: validationSet, progress: report)
            case .forest(let growth, let treeCount):
                let trainer = RandomForestTrees(task: classCount.map { .classification(classCount: $0) } ?? .regression,
                                                growth: growth, treeCount: treeCount)
                fit = try trainer.fit(training: binned, targets: trainingTargets, validation: validationSet, progress: report)
            }
        } catch let error as TreeTrainingError {
            throw CreateMLError("\(location) › \(error.location)", error.message)
        }
        self.columns = columns
        self.fit = fit
        self.plan = plan
        self.task = task
        self.iterations = iterations
        (layout, transform) = try Self.evaluator(fit, classifier: classCount != nil, width: columns.features.count)
        // The metrics use the finished model's predictions (the same as the exported model's):
        // boosting's from the raw scores it kept while training (the same sums, see
        // `TreeEnsembleFit.trainingScores`), others' by evaluating the model on the rows.
        let measuring = Self.Partial(columns: columns, layout: layout, transform: transform)
        if let scores = fit.trainingScores {
            trainingMetrics = measuring.metrics(rawScores: scores, targets: trainingTargets)
        } else {
            trainingMetrics = measuring.metrics(on: training)
        }
        if let validationTable {
            if let scores = fit.validationScores, let validationTargets {
                validationMetrics = measuring.metrics(rawScores: scores, targets: validationTargets)
            } else {
                validationMetrics = measuring.metrics(on: validationTable)
            }
        } else {
            validationMetrics = measuring.empty
        }
    }

    /// Throws naming the parameter when the trees asked for could not fit the memory limit even
    /// if each were a single leaf (boosting makes one tree per round and output, a forest one per
    /// tree asked): a count in the hundreds of millions is an error at once, not hours of
    /// training followed by a failed allocation.
    private static func checkTreesFit(_ algorithm: TreeTrainingPlan.Algorithm, outputs: Int, location: String,
                                      memoryLimit: Int = OpenCoreMLRuntime.defaultMemoryLimit) throws {
        let (trees, treesOverflow) = switch algorithm {
        case .boosted(_, let iterations, _, _): iterations.multipliedReportingOverflow(by: outputs)
        case .forest(_, let treeCount): (treeCount, false)
        }
        // A leaf as trained (its node and one value), then as written (a protobuf node and its evaluation entry).
        let leafBytes = MemoryLayout<TrainedTree.Node>.stride + 8 + 96
        let (bytes, bytesOverflow) = trees.multipliedReportingOverflow(by: leafBytes)
        let overflow = treesOverflow || bytesOverflow
        guard overflow || bytes > memoryLimit else { return }
        throw CreateMLError("\(location).ModelParameters.maxIterations",
                            "\(treesOverflow ? "more than \(Int.max)" : "\(trees)") trees would need more than \(overflow ? "\(Int.max) bytes" : "\(bytes / (1 << 20)) MiB") even as single leaves, over the memory limit of \(memoryLimit / (1 << 20)) MiB")
    }

    /// The tree walk and transform of the exported model.
    private static func evaluator(_ fit: TreeEnsembleFit, classifier: Bool, width: Int) throws -> (TreeEnsembleLayout, TreeEnsembleTransform) {
        let layout: TreeEnsembleLayout
        do {
            layout = try TreeEnsembleLayout(fit.ensembleParameters, inputWidth: width, memoryLimit: memoryLimit)
        } catch let error as EngineError {
            throw CreateMLError("tree ensemble", error.description)
        }
        let transform: TreeEnsembleTransform = switch fit.transform {
        case .none: classifier && fit.dimensions > 1 ? .shares : .none
        case .logistic: .logistic
        case .softmax: .softmax
        }
        return (layout, transform)
    }

    private var partial: Partial { Partial(columns: columns, layout: layout, transform: transform) }

    /// Metrics on another table (failures in the metrics' error, as Create ML reports them).
    func metrics(on table: MLDataTable) -> TreeModelMetrics {
        partial.metrics(on: table)
    }

    /// The predictions for every row of `table`: class labels of the target's type, or doubles.
    func predictions(from table: MLDataTable) throws -> MLUntypedColumn {
        let outputs = try partial.outputs(table)
        switch columns.target {
        case .classes(let labels):
            return labels.column(partial.classIndices(outputs, rows: table.rowCount))
        case .values:
            return MLUntypedColumn(storage: ColumnStorage(.double(outputs)))
        }
    }

    /// The model as a Core ML specification (see ``TabularFront``).
    func specification(metadata: MLModelMetadata?) throws -> CoreML_Specification_Model {
        let front = columns.treeFront()
        var final = CoreML_Specification_Model()
        final.specificationVersion = 1
        final.description_p.input = front.finalInputs
        columns.finalOutputs(into: &final)
        switch columns.target {
        case .classes(let labels):
            var classifier = CoreML_Specification_TreeEnsembleClassifier()
            classifier.treeEnsemble = fit.ensembleParameters
            classifier.postEvaluationTransform = fit.postEvaluationTransform
            let vectors = labels.specification
            if let strings = vectors.strings { classifier.stringClassLabels = strings }
            if let ints = vectors.ints { classifier.int64ClassLabels = ints }
            final.treeEnsembleClassifier = classifier
        case .values:
            var regressor = CoreML_Specification_TreeEnsembleRegressor()
            regressor.treeEnsemble = fit.ensembleParameters
            regressor.postEvaluationTransform = fit.postEvaluationTransform
            final.treeEnsembleRegressor = regressor
        }
        let trainer = "ML\(plan.name)\(task == .classification ? "Classifier" : "Regressor")"
        return try columns.exportedModel(front: front, final: final, trainer: trainer, metadata: metadata)
    }

    /// Evaluation without the stored state: encoding, tree walk, transform.
    struct Partial {
        let columns: TabularColumns
        let layout: TreeEnsembleLayout
        let transform: TreeEnsembleTransform

        /// The transformed outputs for `table`'s rows (rows × dimensions, row-major), encoded and
        /// evaluated a chunk of rows at a time.
        func outputs(_ table: MLDataTable) throws -> [Double] {
            if let failure = table.failure { throw failure }
            let rows = table.rowCount
            let dimensions = layout.dimensions
            var outputs = [Double](repeating: 0, count: rows * dimensions)
            let chunk = 1 << 15
            var start = 0
            while start < rows {
                let end = min(start + chunk, rows)
                let part = rows <= chunk ? table : table[start..<end]
                let matrix = TabularColumns.rowMajor(try columns.encodeFeatures(part), rows: 0..<(end - start))
                try outputs.withUnsafeMutableBufferPointer { outputs in
                    do {
                        try matrix.withUnsafeBufferPointer { matrix in
                            try layout.evaluate(rows: matrix.baseAddress!, count: end - start, width: columns.features.count,
                                                into: outputs.baseAddress! + start * dimensions)
                        }
                    } catch let error as EngineError {
                        throw CreateMLError("tree ensemble", error.description)
                    }
                    for row in start..<end {
                        transform.apply(to: UnsafeMutableBufferPointer(rebasing: outputs[(row * dimensions)..<((row + 1) * dimensions)]))
                    }
                }
                start = end
            }
            return outputs
        }

        /// The predicted class of each row, as the Core ML runner picks it: for one dimension the
        /// second class when its probability is at least 0.5, otherwise the first largest.
        func classIndices(_ outputs: [Double], rows: Int) -> [Int] {
            let dimensions = layout.dimensions
            guard dimensions > 1 else { return outputs.map { $0 >= 0.5 ? 1 : 0 } }
            return (0..<rows).map { row in
                var best = 0
                for index in 1..<dimensions where outputs[row * dimensions + index] > outputs[row * dimensions + best] { best = index }
                return best
            }
        }

        var empty: TreeModelMetrics {
            switch columns.target {
            case .classes(let labels): return .init(classifier: MLClassifierMetrics(classLabels: labels.descriptions))
            case .values: return .init(regressor: MLRegressorMetrics.empty)
            }
        }

        func metrics(on table: MLDataTable) -> TreeModelMetrics {
            let targets: [Double], outputs: [Double]
            do {
                outputs = try self.outputs(table)
                targets = try columns.encodeTargets(table)
            } catch {
                return failed(error)
            }
            return metrics(outputs: outputs, targets: targets)
        }

        /// The metrics of raw scores (rows × dimensions, before the transform) for rows with these targets.
        func metrics(rawScores: [Double], targets: [Double]) -> TreeModelMetrics {
            let dimensions = layout.dimensions
            guard rawScores.count == targets.count * dimensions else {
                return failed(CreateMLError("tree ensemble", "\(rawScores.count) scores for \(targets.count) rows of \(dimensions) outputs"))
            }
            var outputs = rawScores
            outputs.withUnsafeMutableBufferPointer { outputs in
                for row in 0..<targets.count {
                    transform.apply(to: UnsafeMutableBufferPointer(rebasing: outputs[(row * dimensions)..<((row + 1) * dimensions)]))
                }
            }
            return metrics(outputs: outputs, targets: targets)
        }

        /// Invalid metrics of the task that say why.
        func failed(_ error: Error) -> TreeModelMetrics {
            switch columns.target {
            case .classes(let labels): return .init(classifier: MLClassifierMetrics(classLabels: labels.descriptions, error: error))
            case .values: return .init(regressor: MLRegressorMetrics(error: error))
            }
        }

        func metrics(outputs: [Double], targets: [Double]) -> TreeModelMetrics {
            switch columns.target {
            case .classes(let labels):
                let predicted = classIndices(outputs, rows: targets.count)
                let dimensions = layout.dimensions
                var crossEntropy = 0.0
                for (row, target) in targets.enumerated() {
                    let probability = dimensions == 1 ? (target == 1 ? outputs[row] : 1 - outputs[row]) : outputs[row * dimensions + Int(target)]
                    crossEntropy -= log(max(probability, 1e-15))
                }
                do {
                    return .init(classifier: try MLClassifierMetrics(classLabels: labels.descriptions, trueLabels: targets.map { Int($0) },
                                                               predictedLabels: predicted,
                                                               meanCrossEntropy: targets.isEmpty ? nil : crossEntropy / Double(targets.count)))
                } catch {
                    return failed(error)
                }
            case .values:
                do {
                    return .init(regressor: try MLRegressorMetrics(targets: targets, predictions: outputs))
                } catch {
                    return failed(error)
                }
            }
        }
    }
}
