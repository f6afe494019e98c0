import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// "Training" of a k-nearest-neighbours classifier: every example is stored with its label.
///
/// New labels may appear at any time and repeated examples are kept. The update has one epoch of
/// one mini-batch, reported without a loss. `numberOfNeighbors` from the configuration or from
/// `resume(withParameters:)` is checked against the model's allowed values and carried by the
/// trained model's configuration.
final class NearestNeighborsUpdater: ModelUpdater, @unchecked Sendable {
    private let model: MLModel
    private var knn: CoreML_Specification_KNearestNeighborsClassifier
    private var settings: UpdateSettings
    private let rows: [[Float]]
    private let labels: ClassLabelSet
    private let lock = NSLock()
    private var appended = false
    private var overrides: [MLParameterKey: Any]

    init(model: MLModel, trainingData: MLBatchProvider) throws {
        guard case .kNearestNeighborsClassifier(let knn)? = model.specification.type else { preconditionFailure("not a k-NN classifier") }
        guard model.modelDescription.isUpdatable else {
            throw MLModelError(.update, "the k-NN classifier is not updatable (isUpdatable is false)")
        }
        self.model = model
        self.knn = knn
        settings = UpdateSettings(model: model)
        overrides = model.configuration.parameters ?? [:]
        let description = model.specification.description_p
        guard let input = description.input.first else { throw MLModelError(.update, "the k-NN classifier has no input") }
        let labelName = description.predictedFeatureName
        let dimensions = Int(knn.nearestNeighborsIndex.numberOfDimensions)
        let wantsStrings: Bool
        switch (knn.classLabelSet, knn.defaultClassLabel) {
        case (.strings, _), (.none, .defaultStringLabel?): wantsStrings = true
        default: wantsStrings = false
        }
        var rows: [[Float]] = []
        var strings: [String] = []
        var integers: [Int64] = []
        rows.reserveCapacity(trainingData.count)
        for example in 0..<trainingData.count {
            let features = trainingData.features(at: example)
            var row = [Float](repeating: 0, count: dimensions)
            try row.withUnsafeMutableBufferPointer { row in
                try FeatureEncoding.write(features.featureValue(for: input.name), name: input.name, example: example,
                                          count: dimensions, shape: [dimensions], to: row.baseAddress!)
                try FeatureEncoding.checkFinite(row.baseAddress!, count: dimensions, name: input.name, example: example)
            }
            rows.append(row)
            guard let label = features.featureValue(for: labelName), !label.isUndefined else {
                throw MLModelError(.featureType, "example \(example): the label '\(labelName)' is missing")
            }
            switch (label.type, wantsStrings) {
            case (.string, true): strings.append(label.stringValue)
            case (.int64, false): integers.append(label.int64Value)
            default:
                throw MLModelError(.featureType, "example \(example): the label '\(labelName)' is a \(label.type); the model's labels are \(wantsStrings ? "strings" : "int64")")
            }
        }
        guard !rows.isEmpty else { throw MLModelError(.update, "the training data holds no examples") }
        self.rows = rows
        labels = wantsStrings ? .strings(strings) : .int64s(integers)
    }

    func schedule(_ overrides: [MLParameterKey: Any]) throws {
        var check = settings
        try check.apply(overrides)
        lock.lock()
        settings = check
        self.overrides.merge(try model.modelDescription.checkOverrides(overrides)) { _, new in new }
        lock.unlock()
    }

    func run(events: MLUpdateProgressEvent, report: (UpdateProgress) -> Void, shouldStop: () -> Bool) throws {
        let start = Date()
        func progress(_ event: MLUpdateProgressEvent, seen: Int) -> UpdateProgress {
            var progress = UpdateProgress(
                event: event, epoch: 0, miniBatch: 0, loss: 0, accuracy: nil, examplesSeen: seen, epochs: 1,
                miniBatchesPerEpoch: 1, secondsElapsed: Date().timeIntervalSince(start))
            progress.hasLoss = false
            return progress
        }
        if events.contains(.trainingBegin) { report(progress(.trainingBegin, seen: 0)) }
        if shouldStop() { return }
        lock.lock()
        do {
            try knn.appendSamples(rows, labels: labels)
        } catch {
            lock.unlock()
            throw MLModelError(.update, "\(error)")
        }
        appended = true
        lock.unlock()
        if events.contains(.miniBatchEnd) { report(progress(.miniBatchEnd, seen: rows.count)) }
        if events.contains(.epochEnd) { report(progress(.epochEnd, seen: rows.count)) }
    }

    func trainedModel() -> MLModel {
        lock.lock()
        defer { lock.unlock() }
        var specification = model.specification
        specification.nearestNeighborsClassifier = knn
        let configuration = model.configuration.copy()
        configuration.parameters = overrides.isEmpty ? nil : overrides
        return MLModel(trustedSpecification: specification, configuration: configuration)
    }

    var parameterValues: [MLParameterKey: Any] {
        lock.lock()
        defer { lock.unlock() }
        return settings.values
    }
}
