import CoreMLSpec
import Foundation
import OpenCoreML
import _OpenCoreMLLinear
import _OpenCoreMLImageIO

/// An image classifier trained as Create ML's `MLImageClassifier` is: a Core ML feature extractor
/// turns each picture into a vector (cached on disk), and a logistic regression or k-NN classifier
/// learns the labels from those vectors.
///
/// ```swift
/// let classifier = try MLImageClassifier(trainingData: .labeledDirectories(at: trainURL))   // the built-in extractor
/// let metrics = classifier.evaluation(on: .labeledDirectories(at: testURL))
/// print(classifier.trainingMetrics.accuracy, metrics.accuracy)
/// try classifier.write(to: URL(fileURLWithPath: "Hands.mlmodel"), metadata: MLModelMetadata(author: "Me"))
/// ```
///
/// The default feature extractor (`.scenePrint`) is EfficientNet-Lite0, shipped with the package;
/// `.custom(CustomFeatureExtractor(modelPath:outputName:))` takes any Core ML feature extractor.
/// With validation data the logistic regression keeps the iteration with the best validation
/// accuracy (the earliest of equals), not the last one.
public struct MLImageClassifier {
    /// The classifier behind the feature extractor.
    enum Classifier {
        case logisticRegression(LogisticRegressionModel)
        case nearestNeighbors(k: Int, samples: [[Float]], labels: [String])
    }

    /// The options the classifier was trained with.
    public let modelParameters: ModelParameters
    /// The feature extractor that turns pictures into the classifier's inputs (an OpenCoreML addition).
    public let extractor: ImageFeatureExtractor
    /// The classes, sorted (an OpenCoreML addition).
    public let classLabels: [String]
    /// How well the classifier labels its own training pictures.
    public let trainingMetrics: MLClassifierMetrics
    /// Empty without validation data.
    public let validationMetrics: MLClassifierMetrics
    /// Each logistic-regression iteration (none for k-NN; an OpenCoreML addition).
    public let iterations: [Iteration]
    /// The iteration whose model was kept (nil for k-NN; an OpenCoreML addition).
    public let keptIteration: Int?
    /// The trained classifier as a Core ML model: the pipeline ``write(to:metadata:)`` writes.
    public let model: MLModel
    let classifier: Classifier
    let progress: (@Sendable (Progress) -> Void)?
    /// The k-NN classifier as a Core ML model, for predictions.
    private let nearestNeighborsModel: MLModel?

    /// Extracts the features of the training pictures and trains the classifier on them.
    ///
    /// Features are cached on disk under the extractor's fingerprint, so a second run on the same
    /// pictures skips the extraction.
    ///
    /// - Parameters:
    ///   - trainingData: The labelled pictures; at least two classes.
    ///   - parameters: The feature extractor, validation data and training options (by default
    ///     the built-in extractor and a logistic regression).
    ///   - progress: Called as features are extracted and after every iteration (an OpenCoreML addition).
    /// - Throws: A ``CreateMLError`` naming the folder, file or parameter at fault.
    public init(trainingData: DataSource, parameters: ModelParameters = ModelParameters(), progress: (@Sendable (Progress) -> Void)? = nil) throws {
        try self.init(trainingImages: trainingData.labeledImages, source: trainingData.description, parameters: parameters, progress: progress)
    }

    /// Trains on pictures given as URLs by label (Create ML's dictionary form).
    public init(trainingData: [String: [URL]], parameters: ModelParameters = ModelParameters(), progress: (@Sendable (Progress) -> Void)? = nil) throws {
        try self.init(trainingImages: DataSource.filesByLabel(trainingData).labeledImages, source: "trainingData", parameters: parameters, progress: progress)
    }

    /// Trains on the pictures `trainingImages` gives (read after the extractor is loaded, so that a
    /// bad extractor is reported first).
    init(trainingImages: () throws -> [LabeledImage], source: String, parameters: ModelParameters, progress: (@Sendable (Progress) -> Void)?) throws {
        self.modelParameters = parameters
        self.progress = progress
        guard parameters.maxIterations >= 1 else { throw CreateMLError("maxIterations", "must be at least 1, got \(parameters.maxIterations)") }
        guard parameters.augmentedCopies >= 1 else { throw CreateMLError("augmentedCopies", "must be at least 1, got \(parameters.augmentedCopies)") }
        if case .kNearestNeighbors(let k) = parameters.classifier, k < 1 {
            throw CreateMLError("kNearestNeighbors", "k must be at least 1, got \(k)")
        }
        let extractor = try ImageFeatureExtractor(parameters.featureExtractor)
        self.extractor = extractor

        // Pictures and classes.
        var training = try trainingImages()
        let labels = Array(Set(training.map(\.label))).sorted()
        guard labels.count >= 2 else {
            throw CreateMLError(source, "needs at least 2 classes (sub-folders with pictures), found \(labels.count)\(labels.isEmpty ? "" : ": \(labels[0])")")
        }
        var validation: [LabeledImage] = []
        switch parameters.validation {
        case .none: break
        case .dataSource(let source):
            validation = try source.labeledImages()
            if let unknown = validation.first(where: { !labels.contains($0.label) }) {
                throw CreateMLError(source.description, "class '\(unknown.label)' is not among the training classes (\(labels.joined(separator: ", ")))")
            }
        case .split(let strategy):
            (training, validation) = try Self.split(training, strategy)
        }
        classLabels = labels

        // Features.
        let cache = FeatureCache(directory: parameters.resolvedCacheDirectory)
        let trainingFeatures = try Self.features(of: training, extractor: extractor, cache: cache, parameters: parameters,
                                                 augmenting: !parameters.augmentation.isEmpty, progress: progress)
        let trainingRows = trainingFeatures.map(\.values)
        let trainingLabels = trainingFeatures.map(\.label)
        let validationRows = try Self.features(of: validation, extractor: extractor, cache: cache, parameters: parameters,
                                               augmenting: false, progress: progress).map(\.values)

        // Fit.
        let index = Dictionary(uniqueKeysWithValues: labels.enumerated().map { ($1, $0) })
        switch parameters.classifier {
        case .logisticRegressor:
            let enginePenalty: LogisticRegression.Penalty
            switch parameters.penalty {
            case .none: enginePenalty = .none
            case .l1(let lambda): enginePenalty = .l1(lambda)
            case .l2(let lambda): enginePenalty = .l2(lambda)
            }
            let solver = LogisticRegression(penalty: enginePenalty, maxIterations: parameters.maxIterations, gradientTolerance: parameters.convergenceThreshold,
                                            standardizesFeatures: parameters.standardizesFeatures)
            let x = trainingRows.flatMap { $0 }, y = trainingLabels.map { index[$0]! }
            let validationX = validationRows.flatMap { $0 }, validationY = validation.map { index[$0.label]! }
            var history: [Iteration] = []
            var best: (iteration: Int, accuracy: Double, model: LogisticRegressionModel)?
            var clock = ContinuousClock.now
            let fit = try solver.fit(features: x, featureCount: extractor.featureCount, labels: y, classCount: labels.count) { step in
                let elapsed = ContinuousClock.now - clock
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                let model = step.model()
                let record = Iteration(iteration: step.iteration, loss: step.loss, trainingAccuracy: (try? model.accuracy(x, labels: y)) ?? 0,
                                       validationAccuracy: validationY.isEmpty ? nil : (try? model.accuracy(validationX, labels: validationY)) ?? 0,
                                       seconds: seconds)
                history.append(record)
                if let accuracy = record.validationAccuracy, accuracy > best?.accuracy ?? -1 {
                    best = (step.iteration, accuracy, model)
                }
                progress?(.iterationFinished(record))
                clock = ContinuousClock.now
                return true
            }
            iterations = history
            keptIteration = best?.iteration ?? fit.iterations
            classifier = .logisticRegression(best?.model ?? fit.model)
            nearestNeighborsModel = nil
        case .kNearestNeighbors(let k):
            iterations = []
            keptIteration = nil
            classifier = .nearestNeighbors(k: k, samples: trainingRows, labels: trainingLabels)
            nearestNeighborsModel = try MLModel(specification: Self.classifierSpecification(classifier, extractor: extractor, labels: labels))
        }

        // Metrics (training on the pictures themselves, not their augmented copies).
        let plain = trainingFeatures.filter { !$0.isAugmented }
        trainingMetrics = try MLClassifierMetrics(classLabels: labels, trueLabels: plain.map(\.label),
                                                  predictedLabels: try Self.predict(plain.map(\.values), classifier, labels, nearestNeighborsModel, extractor),
                                                  files: plain.map(\.file))
        validationMetrics = try MLClassifierMetrics(classLabels: labels, trueLabels: validation.map(\.label),
                                                    predictedLabels: try Self.predict(validationRows, classifier, labels, nearestNeighborsModel, extractor),
                                                    files: validation.map(\.url))
        model = try MLModel(specification: Self.pipelineSpecification(classifier, extractor: extractor, labels: labels, metadata: nil))
    }

    /// The metrics on other labelled pictures (features cached as in training). As in Create ML
    /// this does not throw: when the pictures cannot be read or hold a class the classifier does
    /// not know, the metrics' `isValid` is false and `error` says why.
    public func evaluation(on labeledImages: DataSource) -> MLClassifierMetrics {
        do {
            return try evaluation(of: labeledImages.labeledImages())
        } catch {
            return MLClassifierMetrics(classLabels: classLabels, error: error)
        }
    }

    /// The metrics on pictures given as URLs by label (Create ML's dictionary form).
    public func evaluation(on labeledImages: [String: [URL]]) -> MLClassifierMetrics {
        evaluation(on: .filesByLabel(labeledImages))
    }

    func evaluation(of images: [LabeledImage]) throws -> MLClassifierMetrics {
        let rows = try Self.features(of: images, extractor: extractor, cache: FeatureCache(directory: modelParameters.resolvedCacheDirectory),
                                     parameters: modelParameters, augmenting: false, progress: progress).map(\.values)
        return try MLClassifierMetrics(classLabels: classLabels, trueLabels: images.map(\.label),
                                       predictedLabels: try Self.predict(rows, classifier, classLabels, nearestNeighborsModel, extractor),
                                       files: images.map(\.url))
    }

    /// The label of the picture at `url`.
    public func prediction(from url: URL) throws -> String {
        try Self.predict([extractor.features(ofImageAt: url)], classifier, classLabels, nearestNeighborsModel, extractor)[0]
    }

    /// The labels of the pictures at `urls`, in order.
    public func predictions(from urls: [URL]) throws -> [String] {
        try Self.predict(urls.map(extractor.features(ofImageAt:)), classifier, classLabels, nearestNeighborsModel, extractor)
    }

    // MARK: Steps

    /// Per class, `ratio` of the pictures (at least one when a class has two or more) go to validation.
    static func split(_ images: [LabeledImage], _ strategy: MLSplitStrategy) throws -> (training: [LabeledImage], validation: [LabeledImage]) {
        let ratio: Double, seed: Int
        switch strategy {
        case .automatic:
            guard images.count >= 50 else { return (images, []) }
            (ratio, seed) = (0.1, 0)
        case .fixed(let r, let s):
            guard r > 0, r < 1 else { throw CreateMLError("validation split", "the ratio must lie strictly between 0 and 1, got \(r)") }
            (ratio, seed) = (r, s)
        }
        var generator = SplitMix64(seed: UInt64(bitPattern: Int64(seed)))
        var training: [LabeledImage] = [], validation: [LabeledImage] = []
        for label in Array(Set(images.map(\.label))).sorted() {
            var members = images.filter { $0.label == label }
            members.shuffle(using: &generator)
            let count = members.count < 2 ? 0 : min(members.count - 1, max(1, Int((Double(members.count) * ratio).rounded())))
            validation += members.prefix(count)
            training += members.dropFirst(count)
        }
        return (training, validation)
    }

    struct ExtractedFeatures {
        var file: URL
        var label: String
        var values: [Float]
        var isAugmented: Bool
    }

    /// Each picture's features (then, when `augmenting`, its augmented copies'), from the cache when there.
    static func features(of images: [LabeledImage], extractor: ImageFeatureExtractor, cache: FeatureCache, parameters: ModelParameters,
                         augmenting: Bool, progress: (@Sendable (Progress) -> Void)?) throws -> [ExtractedFeatures] {
        let copies = augmenting ? parameters.augmentedCopies : 0
        let total = images.count * (1 + copies)
        var result: [ExtractedFeatures] = []
        for image in images {
            for copy in 0...copies {
                let variant = copy == 0 ? "" : "augmented \(parameters.augmentation.rawValue) seed \(parameters.augmentationSeed) copy \(copy) flip alternate"
                let key = try cache.key(extractor: extractor, file: image.url, variant: variant)
                let (values, fromCache) = try cache.values(key, count: extractor.featureCount) {
                    if copy == 0 {
                        return try extractor.features(ofImageAt: image.url)
                    } else {
                        let picture: RGBAImage
                        do { picture = try RGBAImage(contentsOf: image.url) } catch {
                            throw CreateMLError(image.url.path, "cannot read the picture: \(error)")
                        }
                        var generator = SplitMix64(seed: UInt64(ImageFeatureExtractor.hash(variant + image.url.path).prefix(16), radix: 16) ?? 0)
                        var options = parameters.augmentation
                        let mirrored = options.remove(.flip) != nil && copy % 2 == 1
                        var augmented = picture.augmented(options.imageAugmentation, using: &generator)
                        if mirrored { augmented = augmented.oriented(.upMirrored) }
                        return try extractor.features(of: augmented, name: image.url.path)
                    }
                }
                result.append(ExtractedFeatures(file: image.url, label: image.label, values: values, isAugmented: copy > 0))
                progress?(.featuresExtracted(file: image.url, completed: result.count, total: total, fromCache: fromCache))
            }
        }
        return result
    }

    static func predict(_ rows: [[Float]], _ classifier: Classifier, _ labels: [String], _ nearestNeighbors: MLModel?,
                        _ extractor: ImageFeatureExtractor) throws -> [String] {
        guard !rows.isEmpty else { return [] }
        switch classifier {
        case .logisticRegression(let model):
            return try model.predict(rows.flatMap { $0 }).map { labels[$0] }
        case .nearestNeighbors:
            return try rows.map { row in
                let array = try MLMultiArray(shape: [NSNumber(value: row.count)], dataType: .float32)
                row.withUnsafeBufferPointer { array.dataPointer.copyMemory(from: $0.baseAddress!, byteCount: row.count * 4) }
                let output = try nearestNeighbors!.prediction(from: MLDictionaryFeatureProvider(
                    dictionary: [extractor.outputName: MLFeatureValue(multiArray: array)]))
                return output.featureValue(for: exportedLabelName)?.stringValue ?? ""
            }
        }
    }
}
