import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// Predicts with a one-vs-one support vector classifier in LIBSVM's layout (C-SVC, ν-SVC; see
/// ``SupportVectorClassification`` for the decision values).
///
/// The predicted label wins the most one-vs-one votes (ties to the earlier class), as
/// scikit-learn's `SVC.predict` decides, with or without probabilities. With probA/probB the
/// probability output is scikit-learn's `predict_proba`: Platt's sigmoid per pair, coupled (two
/// classes too; see ``ProbabilityCoupling``). The most probable class can differ from the vote
/// (LIBSVM's own `svm_predict_probability` would take it; Core ML does not document which it
/// takes). Without probA/probB a declared probability output holds each class's share of the
/// votes (an OpenCoreML choice: such models have no probabilities in LIBSVM).
final class SupportVectorClassifierRunner: ModelRunner, @unchecked Sendable {
    private let loader: SupportVectorMachineLoader
    private let classification: SupportVectorClassification
    private let rows: ClassicInputRows
    private let outputs: ClassifierOutputs
    private let memoryLimit: Int
    private static let modelName = "the support vector classifier"

    init(specification: CoreML_Specification_Model, memoryLimit: Int) throws {
        guard case .supportVectorClassifier(let svm)? = specification.type else { preconditionFailure("not a support vector classifier") }
        let description = specification.description_p
        rows = try ClassicInputRows(description.input, modelName: Self.modelName, memoryLimit: memoryLimit)
        loader = try SupportVectorMachineLoader(kernel: svm.kernel, sparse: svm.sparseVectors, dense: svm.denseVectors,
                                                declaredWidth: rows.declaredWidth, memoryLimit: memoryLimit, modelName: Self.modelName)
        let classes = svm.classLabelSet
        guard svm.numberOfSupportVectorsPerClass.count == classes.count else {
            throw MLModelError(.generic, "\(Self.modelName) has \(classes.count) class labels but \(svm.numberOfSupportVectorsPerClass.count) support vector counts")
        }
        do {
            classification = try SupportVectorClassification(vectorsPerClass: svm.numberOfSupportVectorsPerClass.map(Int.init),
                                                             coefficients: svm.coefficients.map(\.alpha), rho: svm.rho,
                                                             probA: svm.probA, probB: svm.probB)
        } catch {
            throw MLModelError(.generic, "\(Self.modelName): \(error.message)")
        }
        guard classification.vectorCount == loader.machine.vectors.count else {
            throw MLModelError(.generic, "\(Self.modelName) counts \(classification.vectorCount) support vectors per class but has \(loader.machine.vectors.count)")
        }
        outputs = ClassifierOutputs(description: description, classes: classes)
        self.memoryLimit = memoryLimit
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        var results: [MLFeatureProvider] = []
        results.reserveCapacity(examples.count)
        let machine = loader.machine
        let vectorCount = machine.vectors.count
        let perExample = (rows.declaredWidth ?? machine.vectors.requiredWidth) &+ vectorCount
        let pairs = Double(classification.pairCount)
        try ClassicBatches.forEachChunk(examples, doublesPerExample: perExample, memoryLimit: memoryLimit, modelName: Self.modelName) { chunk, first in
            let (values, width) = try rows.read(chunk, firstExample: first)
            try loader.checkWidth(width, example: first)
            let kernel = values.withUnsafeBufferPointer { machine.kernelValues($0, count: chunk.count, width: width) }
            try kernel.withUnsafeBufferPointer { kernel in
                for example in 0..<chunk.count {
                    let decisions = classification.decisionValues(
                        kernelRow: UnsafeBufferPointer(rebasing: kernel[(example * vectorCount)..<((example + 1) * vectorCount)]))
                    let votes = classification.votes(decisionValues: decisions)
                    let scores = classification.probabilities(decisionValues: decisions) ?? votes.map { Double($0) / pairs }
                    let features = try scores.withUnsafeBufferPointer {
                        try outputs.features(scores: $0, best: classification.votedClass(votes: votes), modelName: Self.modelName)
                    }
                    results.append(MLDictionaryFeatureProvider(featureValues: features))
                }
            }
        }
        return results
    }
}
