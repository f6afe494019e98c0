import ArgumentParser
import Foundation
import OpenCoreML
import OpenCreateML

/// `opencoreml image-classifier train|evaluate`: Create ML's image classifier on a Core ML feature
/// extractor's features.
struct ImageClassifier: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image-classifier",
        abstract: "Train an image classifier on folders of labelled pictures (one sub-folder per class) and evaluate it.",
        subcommands: [Train.self, Evaluate.self, Personalize.self]
    )

    enum Algorithm: String, ExpressibleByArgument, CaseIterable {
        case logistic, knn
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

        @Option(help: "The Core ML feature extractor (one image input, one multi-array output). Default: $OPENCOREML_EFFICIENTNET or .build/models/EfficientNetLite0.mlmodel.")
        var extractor: String?

        @Option(help: "logistic (regression) or knn.")
        var algorithm: Algorithm = .logistic

        @Option(help: "The L-BFGS iteration limit of the logistic regression.")
        var maxIterations = 25

        @Option(help: "L2 penalty λ of the logistic regression (mean loss + λ/2·‖W‖²).")
        var l2 = 1e-3

        @Option(help: "Use an L1 penalty λ instead (OWL-QN).")
        var l1: Double?

        @Flag(help: "Scale each feature to zero mean and unit variance while fitting the logistic regression.")
        var standardize = false

        @Option(name: .customLong("neighbors"), help: "k of the k-NN classifier.")
        var neighbors = 1

        @Option(help: "Augmented copies of each training picture: comma-separated crop, rotation, blur, exposure, flip, noise, or all.")
        var augment: String?

        @Option(help: "How many augmented copies per picture.")
        var augmentCopies = 1

        @Option(help: "The feature cache folder (default: opencoreml-features in the temporary folder).")
        var cache: String?

        @Option(name: .shortAndLong, help: "The .mlmodel to write.")
        var output: String

        func run() throws {
            try checkOutputs(output)
            guard output.hasSuffix(".mlmodel") else { throw CLIError.unsupportedExtension(path: output) }
            let extractorPath = extractor ?? ProcessInfo.processInfo.environment["OPENCOREML_EFFICIENTNET"].flatMap { $0.isEmpty ? nil : $0 }
                ?? ".build/models/EfficientNetLite0.mlmodel"
            var parameters = MLImageClassifier.ModelParameters(featureExtractor: URL(fileURLWithPath: extractorPath), validation: .none,
                                                                maxIterations: maxIterations, augmentedCopies: augmentCopies,
                                                                cacheDirectory: cache.map { URL(fileURLWithPath: $0, isDirectory: true) })
            if let validation {
                parameters.validation = .dataSource(.labeledDirectories(at: URL(fileURLWithPath: validation, isDirectory: true)))
            } else if let validationFraction {
                parameters.validation = .split(strategy: .fixed(ratio: validationFraction, seed: 0))
            }
            switch algorithm {
            case .logistic: parameters.algorithm = .logisticRegression(penalty: l1.map { .l1($0) } ?? .l2(l2))
            case .knn: parameters.algorithm = .kNearestNeighbors(k: neighbors)
            }
            parameters.standardizesFeatures = standardize
            if let augment { parameters.augmentation = try Self.augmentation(augment) }

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

        @Option(help: "Also write the confusion matrix as an SVG or PNG heat map (FILE.svg or FILE.png, by the extension).")
        var plot: String?

        func validate() throws {
            if let plot, ChartFormat(path: plot) == nil {
                throw ValidationError("--plot \(plot): the confusion matrix is written as SVG or PNG; name the file .svg or .png")
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
