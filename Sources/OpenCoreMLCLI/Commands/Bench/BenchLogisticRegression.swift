import ArgumentParser
import Foundation
import CoreMLSpec
import OpenCoreML
import OpenCreateML

/// `opencoreml bench logistic-regression`: fits a multinomial logistic regression (L-BFGS) and
/// reports the fit time, iterations, final loss and accuracies. `Scripts/bench_logreg_sklearn.py`
/// runs it interleaved with scikit-learn on the same data.
struct BenchLogisticRegression: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logistic-regression",
        abstract: "Time a multinomial logistic-regression fit (L-BFGS) and print its loss and accuracy.",
        discussion: """
            --data DIR is an MNIST-format IDX folder (train-* and t10k-* files, pixels scaled to 0…1) or a folder of \
            train-features.npy, train-labels.npy, test-features.npy and test-labels.npy. --synthetic N,D,K draws N \
            training and N/4 test rows of D non-negative features in K overlapping classes instead. The penalty is \
            scikit-learn's: --c C means λ = 1/(C·N) on the mean loss.
            """
    )

    @Option(help: "An IDX folder, or a folder of train/test features and labels as .npy files.")
    var data: String?

    @Option(help: ArgumentHelp("Synthetic data: training rows, features, classes.", valueName: "N,D,K"))
    var synthetic: String?

    @Option(help: "Inverse penalty strength, as scikit-learn's C.")
    var c = 1.0

    @Option(help: "The penalty: l2, l1 or none.")
    var penalty = "l2"

    @Option(help: "Iteration limit (scikit-learn's max_iter).")
    var maxIterations = 100

    @Option(help: "Gradient tolerance (scikit-learn's tol).")
    var tol = 1e-4

    @Flag(help: "Standardize the features (as scikit-learn's StandardScaler).")
    var standardize = false

    @Option(help: "Use only the first N training rows.")
    var limit: Int?

    @Option(help: "Threads to use (default: all cores).")
    var threads: Int?

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    struct Report: Encodable {
        var data: String
        var trainRows: Int
        var testRows: Int
        var features: Int
        var classes: Int
        var penalty: String
        var c: Double
        var lambda: Double
        var maxIterations: Int
        var tol: Double
        var threads: Int
        var isa: String
        var fitSeconds: Double
        /// CPU time of the whole process (all threads) during the fit.
        var cpuSeconds: Double
        var iterations: Int
        var evaluations: Int
        var stop: String
        var loss: Double
        var gradientNorm: Double
        var trainAccuracy: Double
        var testAccuracy: Double
    }

    func validate() throws {
        if (data == nil) == (synthetic == nil) { throw ValidationError("give exactly one of --data DIR or --synthetic N,D,K") }
        if let synthetic, SyntheticSet.parse(synthetic) == nil {
            throw ValidationError("--synthetic wants three positive integers N,D,K with K ≥ 2, got '\(synthetic)'")
        }
        if !(c > 0 && c.isFinite) { throw ValidationError("--c must be a positive number, got \(c)") }
        if !["l2", "l1", "none"].contains(penalty) { throw ValidationError("--penalty must be l2, l1 or none, got '\(penalty)'") }
        if maxIterations < 1 { throw ValidationError("--max-iterations must be at least 1, got \(maxIterations)") }
        if !(tol >= 0 && tol.isFinite) { throw ValidationError("--tol must be a number ≥ 0, got \(tol)") }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, got \(limit)") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
    }

    func run() throws {
        if let threads { OpenCoreMLRuntime.threadCount = threads }
        var (train, test) = try loadData()
        if let limit { train = train.prefix(limit) }
        let classes = max(train.classCount, test.classCount)
        // scikit-learn minimizes Σ loss + penalty/C; ours is the mean loss + λ·penalty, so λ = 1/(C·N).
        let lambda = 1 / (c * Double(train.count))
        let parameters = MLLogisticRegressionClassifier.ModelParameters(
            maxIterations: maxIterations, l1Penalty: penalty == "l1" ? lambda : 0, l2Penalty: penalty == "l2" ? lambda : 0,
            convergenceThreshold: tol, featureRescaling: standardize)

        let showsProgress = !json && isatty(2) != 0
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = OpenCoreMLRuntime.processorSeconds
        let classifier = try CLIError.wrapping {
            try MLLogisticRegressionClassifier(trainingData: train, classLabels: (0..<classes).map(String.init), parameters: parameters) { step in
                if showsProgress {
                    printProgress(String(format: "iteration %d/%d  loss %.5f  gradient %.2e", step.iteration, maxIterations, step.loss, step.gradientNorm))
                }
                return true
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpuSeconds = OpenCoreMLRuntime.processorSeconds - cpuStart
        if showsProgress { printProgress("") }
        let fit = classifier.solution

        let report = Report(
            data: train.name, trainRows: train.count, testRows: test.count, features: train.featureCount, classes: classes,
            penalty: penalty, c: c, lambda: penalty == "none" ? 0 : lambda, maxIterations: maxIterations, tol: tol,
            threads: OpenCoreMLRuntime.threadCount, isa: OpenCoreMLRuntime.instructionSet.rawValue, fitSeconds: seconds, cpuSeconds: cpuSeconds,
            iterations: fit.iterations, evaluations: fit.evaluations, stop: fit.stopReason, loss: fit.loss,
            gradientNorm: fit.gradientNorm,
            trainAccuracy: classifier.trainingMetrics.accuracy,
            testAccuracy: test.count > 0 ? try CLIError.wrapping { try classifier.evaluation(on: test).accuracy } : .nan)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        print("Logistic regression (L-BFGS\(penalty == "l1" ? ", OWL-QN" : "")) on \(report.data): \(grouped(train.count)) training and "
              + "\(grouped(test.count)) test rows, \(train.featureCount) features, \(classes) classes; \(report.isa), \(report.threads) thread(s)")
        var table = TextTable(["measure", "value"], alignments: [.left, .right])
        table.append(["penalty", penalty == "none" ? "none" : "\(penalty), C = \(c) (λ = \(String(format: "%.3g", lambda)))"])
        table.append(["fit time", String(format: "%.3f s (CPU %.3f s)", seconds, cpuSeconds)])
        table.append(["iterations", "\(fit.iterations) (\(fit.evaluations) evaluations, stop: \(fit.stopReason))"])
        table.append(["final loss", String(format: "%.6f", fit.loss)])
        table.append(["largest gradient component", String(format: "%.2e", fit.gradientNorm)])
        table.append(["train accuracy", String(format: "%.2f%%", report.trainAccuracy * 100)])
        table.append(["test accuracy", test.count > 0 ? String(format: "%.2f%%", report.testAccuracy * 100) : "–"])
        print(table.render())
    }

    private func printProgress(_ line: String) {
        FileHandle.standardError.write(Data(("\r" + line.padding(toLength: 60, withPad: " ", startingAt: 0) + (line.isEmpty ? "\r" : "")).utf8))
    }

    private func loadData() throws -> (train: LabeledDataset, test: LabeledDataset) {
        if let synthetic, let set = SyntheticSet.parse(synthetic) { return try set.make() }
        let folder = URL(fileURLWithPath: data!)
        let name = folder.standardizedFileURL.lastPathComponent
        return try CLIError.wrapping {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("train-features.npy").path) {
                func pair(_ split: String) throws -> LabeledDataset {
                    try LabeledDataset(npyFeatures: folder.appendingPathComponent("\(split)-features.npy"),
                                       labels: folder.appendingPathComponent("\(split)-labels.npy"), name: "\(name) (\(split))")
                }
                return (try pair("train"), try pair("test"))
            }
            return (try LabeledDataset(contentsOf: folder, split: .train), try LabeledDataset(contentsOf: folder, split: .test))
        }
    }

    /// Rows of D non-negative features (like pooled CNN activations) in K overlapping classes:
    /// x = max(0, μ_y + ε) with class means μ_k ~ N(0, 0.12²) per feature and ε ~ N(0, 1).
    struct SyntheticSet {
        var rows: Int
        var features: Int
        var classes: Int

        static func parse(_ text: String) -> SyntheticSet? {
            let parts = text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 3, parts[0] >= 1, parts[1] >= 1, parts[2] >= 2 else { return nil }
            return SyntheticSet(rows: parts[0], features: parts[1], classes: parts[2])
        }

        func make() throws -> (train: LabeledDataset, test: LabeledDataset) {
            var random = SplitMix64(seed: 2024)
            let means = (0..<(classes * features)).map { _ in 0.12 * random.normal() }
            func draw(_ count: Int, _ name: String) throws -> LabeledDataset {
                var values = [Float](repeating: 0, count: count * features)
                var labels = [Int](repeating: 0, count: count)
                for row in 0..<count {
                    let label = row % classes
                    labels[row] = label
                    for j in 0..<features { values[row * features + j] = max(0, means[label * features + j] + random.normal()) }
                }
                return try LabeledDataset(name: "synthetic \(rows),\(features),\(classes) (\(name))", values: values, labels: labels,
                                          sampleShape: [features])
            }
            return (try draw(rows, "train"), try draw(max(1, rows / 4), "test"))
        }
    }
}

extension SplitMix64 {
    /// A standard normal draw (Box–Muller on two 24-bit uniforms).
    fileprivate mutating func normal() -> Float {
        let u = (Float(next() >> 40) + 0.5) * 0x1p-24
        let v = Float(next() >> 40) * 0x1p-24
        return (-2 * Foundation.log(u)).squareRoot() * Foundation.cos(2 * .pi * v)
    }
}
