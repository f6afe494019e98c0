import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// Predicts with a one-vs-one support vector classifier in LIBSVM's layout (C-SVC, ν-SVC; see
/// ``SupportVectorClassification`` for the decision values).
///
/// Without probA/probB the predicted label wins the most one-vs-one votes (ties to the earlier
/// class); a probability output, if the model declares one, then holds each class's share of the
/// votes (an OpenCoreML choice: such models have no probabilities in LIBSVM). With probA/probB,
/// the probabilities are LIBSVM's (Platt's sigmoid per pair, coupled for more than two classes;
/// two classes take the pairwise probability as LIBSVM 3 does, where scikit-learn couples them
/// too, which differs by up to about 0.5%), and the predicted label is the most probable class,
/// as LIBSVM's `svm_predict_probability` chooses it, which can differ from the vote that
/// scikit-learn's `SVC.predict` uses.
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
        rows = try ClassicInputRows(description.input, modelName: Self.modelName)
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
                    let features: [String: MLFeatureValue]
                    if let probabilities = classification.probabilities(decisionValues: decisions) {
                        features = try probabilities.withUnsafeBufferPointer { try outputs.features(scores: $0, modelName: Self.modelName) }
                    } else {
                        let votes = classification.votes(decisionValues: decisions)
                        let shares = votes.map { Double($0) / pairs }
                        features = try shares.withUnsafeBufferPointer {
                            try outputs.features(label: classification.votedClass(decisionValues: decisions), scores: $0, modelName: Self.modelName)
                        }
                    }
                    results.append(MLDictionaryFeatureProvider(featureValues: features))
                }
            }
        }
        return results
    }
}
