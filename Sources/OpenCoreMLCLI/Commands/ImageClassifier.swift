import ArgumentParser
import Foundation
import OpenCoreML
import OpenCreateML

/// `opencoreml image-classifier train|evaluate|cross-validate|personalize`: Create ML's image
/// classifier on a Core ML feature extractor's features.
struct ImageClassifier: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image-classifier",
        abstract: "Train an image classifier on folders of labelled pictures (one sub-folder per class) and evaluate it.",
        subcommands: [Train.self, Evaluate.self, CrossValidate.self, Personalize.self]
    )

    enum Algorithm: String, ExpressibleByArgument, CaseIterable {
        case logistic, knn
    }

    /// The training options `train` and `cross-validate` share.
    struct TrainingOptions: ParsableArguments {
        @Option(help: "A Core ML feature extractor (one image input). Default: the built-in EfficientNet-Lite0 (ImageNet, up to block 9, 672 max-pooled features, 8-bit weights), shipped with OpenCoreML.")
        var extractor: String?

        @Option(help: "The blob of --extractor whose values are the features (a layer output); default: its one multi-array output.")
        var extractorOutput: String?

        @Option(help: "logistic (regression) or knn.")
        var algorithm: Algorithm = .logistic

        @Option(help: "The L-BFGS iteration limit of the logistic regression.")
        var maxIterations = 25

        @Option(help: "L2 penalty λ of the logistic regression (mean loss + λ/2·‖W‖²); default \(Self.defaultL2).")
        var l2: Double?

        @Option(help: "Use an L1 penalty λ instead (OWL-QN).")
        var l1: Double?

        @Flag(help: "Scale each feature to zero mean and unit variance while fitting the logistic regression.")
        var standardize = false

        @Option(name: .customLong("neighbors"), help: "k of the k-NN classifier.")
        var neighbors = 1

        @Option(help: "Augmented copies of each training picture: comma-separated crop, rotation, blur, exposure, flip, noise, or all (flip mirrors every other copy).")
        var augment: String?

        @Option(help: "How many augmented copies per picture.")
        var augmentCopies = 1

        @Option(help: "The feature cache folder (default: opencoreml-features in the temporary folder).")
        var cache: String?

        static var defaultL2: String {
            if case .l2(let lambda) = MLImageClassifier.ModelParameters.defaultPenalty { return "\(lambda)" }
            return "\(MLImageClassifier.ModelParameters.defaultPenalty)"
        }

        func validate() throws {
            if extractorOutput != nil, extractor == nil {
                throw ValidationError("--extractor-output names a blob of --extractor; give --extractor too")
            }
            if l1 != nil, l2 != nil { throw ValidationError("give --l1 or --l2, not both") }
        }

        /// The library's parameters (validation: none).
        func parameters() throws -> MLImageClassifier.ModelParameters {
            let featureExtractor: MLImageClassifier.FeatureExtractorType = extractor.map {
                .custom(MLImageClassifier.CustomFeatureExtractor(modelPath: URL(fileURLWithPath: $0), outputName: extractorOutput))
            } ?? .scenePrint(revision: nil)
            let classifier: MLImageClassifier.ModelParameters.ClassifierType = algorithm == .knn ? .kNearestNeighbors(k: neighbors) : .logisticRegressor
            var parameters = MLImageClassifier.ModelParameters(validation: .none, maxIterations: maxIterations,
                                                                augmentation: try augment.map(Train.augmentation) ?? [],
                                                                algorithm: .transferLearning(featureExtractor: featureExtractor, classifier: classifier))
            parameters.augmentedCopies = augmentCopies
            parameters.cacheDirectory = cache.map { URL(fileURLWithPath: $0, isDirectory: true) }
            if let l1 { parameters.penalty = .l1(l1) } else if let l2 { parameters.penalty = .l2(l2) }
            parameters.standardizesFeatures = standardize
            return parameters
        }
    }

    struct Train: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Train a logistic regression or k-NN classifier on the extractor's features and write one updatable pipeline .mlmodel.",
            discussion: "Features are cached (keyed by the extractor file and each picture's path, size and time), so training again with other options does not extract them again.")

        @Argument(help: "The training folder: one sub-folder of JPEG/PNG pictures per class.")
        var directory: String

        @Option(help: "A folder of validation pictures (same layout); the iteration with the best validation accuracy is kept.")
        var validation: String?

        @Option(help: "Hold out this fraction of each class for validation instead (0 < f < 1).")
        var validationFraction: Double?

        @OptionGroup var options: TrainingOptions

        @Option(name: .shortAndLong, help: "The .mlmodel to write.")
        var output: String

        func run() throws {
            try checkOutputs(output)
            guard output.hasSuffix(".mlmodel") else { throw CLIError.unsupportedExtension(path: output) }
            var parameters = try options.parameters()
            if let validation {
                parameters.validation = .dataSource(.labeledDirectories(at: URL(fileURLWithPath: validation, isDirectory: true)))
            } else if let validationFraction {
                parameters.validation = .split(strategy: .fixed(ratio: validationFraction, seed: 0))
            }

            let bar = ExtractionProgress()
            let classifier: MLImageClassifier
            do {
                classifier = try MLImageClassifier(trainingData: .labeledDirectories(at: URL(fileURLWithPath: directory, isDirectory: true)),
                                                   parameters: parameters, progress: bar.handle)
            } catch {
                bar.finish()
                throw CLIError.wrap(error)
            }
            bar.finish()
            print("\(classifier.classLabels.count) classes: \(classifier.classLabels.joined(separator: " "))   \(classifier.extractor.featureCount) features per picture (\(bar.extracted) extracted, \(bar.cached) from the cache)")
            if !classifier.iterations.isEmpty {
                var table = TextTable(["iteration", "loss", "training accuracy", "validation accuracy", ""], alignments: [.right, .right, .right, .right, .left])
                for step in classifier.iterations {
                    table.append([String(step.iteration), String(format: "%.4f", step.loss), percent(step.trainingAccuracy),
                                  step.validationAccuracy.map(percent) ?? "–", step.iteration == classifier.keptIteration ? "← kept" : ""])
                }
                print(table.render())
            }
            print("training accuracy \(percent(classifier.trainingMetrics.accuracy)) (\(classifier.trainingMetrics.exampleCount) pictures)"
                  + (classifier.validationMetrics.exampleCount > 0
                     ? "   validation accuracy \(percent(classifier.validationMetrics.accuracy)) (\(classifier.validationMetrics.exampleCount) pictures)" : ""))
            do { try classifier.write(to: URL(fileURLWithPath: output)) } catch { throw CLIError.wrap(error) }
            print("wrote \(output)")
        }

        static func augmentation(_ text: String) throws -> MLImageClassifier.ImageAugmentationOptions {
            let names: [String: MLImageClassifier.ImageAugmentationOptions] = ["crop": .crop, "rotation": .rotation, "blur": .blur, "exposure": .exposure,
                                                      "flip": .flip, "noise": .noise, "all": .all]
            var options: MLImageClassifier.ImageAugmentationOptions = []
            for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
                guard let option = names[name] else {
                    throw CLIError.model("--augment: unknown augmentation '\(name)' (crop, rotation, blur, exposure, flip, noise, all)")
                }
                options.insert(option)
            }
            return options
        }
    }

    struct Evaluate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Evaluate an image classifier .mlmodel on a folder of labelled pictures: accuracy, per-class precision and recall, confusion matrix.")

        @Argument(help: "The classifier: a model with one image input (such as 'image-classifier train' writes).")
        var model: String

        @Argument(help: "One sub-folder of JPEG/PNG pictures per class.")
        var directory: String

        @Option(help: "Also write the confusion matrix as a heat map: FILE.svg, FILE.png or FILE.pdf (by the extension).")
        var plot: String?

        func validate() throws {
            if let plot, ChartFormat(path: plot) == nil {
                throw ValidationError("--plot \(plot): the confusion matrix is written as \(ChartFormat.names)")
            }
        }

        func run() throws {
            try checkOutputs(plot)
            let loaded = try loadModel(model)
            let bar = ExtractionProgress(verb: "predicting")
            let report: MLClassifierMetrics
            do {
                report = try MLClassifierMetrics(model: loaded, on: .labeledDirectories(at: URL(fileURLWithPath: directory, isDirectory: true))) { done, total in
                    bar.handle(.featuresExtracted(file: URL(fileURLWithPath: directory), completed: done, total: total, fromCache: false))
                }
            } catch {
                bar.finish()
                throw CLIError.model("\(model): \(CLIError.wrap(error))")
            }
            bar.finish()
            if let plot { try writeChart(to: plot) { ConfusionMatrixChart.make(report, title: "\(URL(fileURLWithPath: model).lastPathComponent) on \(directory)", text: $0) } }
            print("\(directory): \(grouped(report.exampleCount)) pictures")
            print(report.renderText())
            if !report.misclassifiedExamples.isEmpty {
                print("\nmisclassified")
                var table = TextTable(["file", "true", "predicted"])
                for wrong in report.misclassifiedExamples {
                    table.append([wrong.file?.lastPathComponent ?? "#\(wrong.index)", wrong.trueLabel, wrong.predictedLabel])
                }
                print(table.render())
            }
        }
    }
}

extension ImageClassifier {
    /// `opencoreml image-classifier cross-validate DIR --folds 5`: stratified k-fold cross-validation.
    struct CrossValidate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cross-validate",
            abstract: "Estimate an image classifier's accuracy by stratified k-fold cross-validation on labelled pictures (one sub-folder per class).",
            discussion: "Each class's pictures are shuffled (--seed) and dealt to the folds in turn; each fold is held out once while a classifier with the given options trains on the others. Several folders are pooled, as if one.")

        @Argument(help: "Folders with one sub-folder of JPEG/PNG pictures per class (several are pooled).")
        var directories: [String]

        @Option(help: "The number of folds.")
        var folds = 5

        @Option(help: "Seeds the shuffle that deals pictures to folds.")
        var seed = 0

        @OptionGroup var options: TrainingOptions

        func run() throws {
            let source: MLImageClassifier.DataSource
            var pooled: URL?
            defer { if let pooled { try? FileManager.default.removeItem(at: pooled) } }
            if directories.count == 1 {
                source = .labeledDirectories(at: URL(fileURLWithPath: directories[0], isDirectory: true))
            } else {
                pooled = try CLIError.wrapping { try Self.pool(directories) }
                source = .labeledDirectories(at: pooled!)
            }
            let parameters = try options.parameters()
            let bar = ExtractionProgress()
            let result: MLImageClassifier.CrossValidation
            do {
                result = try MLImageClassifier.crossValidation(on: source, folds: folds, seed: seed, parameters: parameters, progress: bar.handle)
            } catch {
                bar.finish()
                throw CLIError.wrap(error)
            }
            bar.finish()
            var table = TextTable(["fold", "pictures", "correct", "accuracy"], alignments: [.right, .right, .right, .right])
            for (index, fold) in result.folds.enumerated() {
                table.append([String(index + 1), String(fold.exampleCount), String(fold.correctCount), percent(fold.accuracy)])
            }
            print(table.render())
            print("\(folds)-fold cross-validation accuracy \(percent(result.accuracy)) (\(result.correctCount) of \(result.exampleCount)), fold standard deviation \(String(format: "%.1f", result.accuracyStandardDeviation * 100)) points")
        }

        /// One temporary folder whose class sub-folders hold symbolic links to every folder's pictures.
        static func pool(_ directories: [String]) throws -> URL {
            let manager = FileManager.default
            let root = manager.temporaryDirectory.appendingPathComponent("opencoreml-pooled-\(UUID().uuidString)", isDirectory: true)
            for (number, directory) in directories.enumerated() {
                let images = try MLImageClassifier.DataSource.labeledDirectories(at: URL(fileURLWithPath: directory, isDirectory: true)).labeledImages()
                for image in images {
                    let folder = root.appendingPathComponent(image.label, isDirectory: true)
                    try manager.createDirectory(at: folder, withIntermediateDirectories: true)
                    let link = folder.appendingPathComponent("\(number)-\(image.url.lastPathComponent)")
                    try manager.createSymbolicLink(at: link, withDestinationURL: image.url.standardizedFileURL.resolvingSymlinksInPath())
                }
            }
            return root
        }
    }
}

extension ImageClassifier {
    /// `opencoreml image-classifier personalize MODEL DIR --output OUT`: `MLUpdateTask` on labelled pictures.
    struct Personalize: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Train an updatable image classifier further with MLUpdateTask on a folder of labelled pictures (new classes allowed for k-NN).")

        @Argument(help: "An updatable model with one image input (such as 'image-classifier train' writes).")
        var model: String

        @Argument(help: "One sub-folder of JPEG/PNG pictures per class.")
        var directory: String

        @Option(name: .shortAndLong, help: "The .mlmodel to write.")
        var output: String

        func run() throws {
            try checkOutputs(output)
            guard output.hasSuffix(".mlmodel") else { throw CLIError.unsupportedExtension(path: output) }
            let loaded = try loadModel(model)
            guard loaded.modelDescription.isUpdatable else { throw CLIError.model("\(model): not an updatable image classifier") }
            let source = MLImageClassifier.DataSource.labeledDirectories(at: URL(fileURLWithPath: directory, isDirectory: true))
            let pictures = try CLIError.wrapping { try source.labeledImages() }
            let trained = try CLIError.wrapping { try loaded.updated(with: source.batchProvider(for: loaded)).model }
            try CLIError.wrapping { try trained.write(to: URL(fileURLWithPath: output)) }
            let classes = Set(pictures.map(\.label)).sorted().joined(separator: " ")
            print("trained on \(pictures.count) pictures (\(classes)); wrote \(output)")
        }
    }
}

private func percent(_ value: Double) -> String { String(format: "%.2f%%", value * 100) }

/// Feature extraction as one bar redrawn on a terminal (`extracting features [████░░░░] 12/45`);
/// nothing elsewhere.
final class ExtractionProgress: @unchecked Sendable {
    private let verb: String
    private let isTerminal = isatty(2) != 0
    private let lock = NSLock()
    private(set) var extracted = 0
    private(set) var cached = 0
    private var drawn = false

    init(verb: String = "extracting features") { self.verb = verb }

    var handle: @Sendable (MLImageClassifier.Progress) -> Void {
        { [self] event in
            guard case .featuresExtracted(_, let completed, let total, let fromCache) = event else { return }
            lock.withLock {
                if fromCache { cached += 1 } else { extracted += 1 }
                guard isTerminal, total > 0 else { return }
                let width = 24, filled = completed * width / total
                let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
                FileHandle.standardError.write(Data("\r\(verb) [\(bar)] \(completed)/\(total)".utf8))
                drawn = true
            }
        }
    }

    func finish() {
        lock.withLock {
            if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
            drawn = false
        }
    }
}
