import ArgumentParser
import Foundation
import _OpenCoreMLEngine
import _OpenCoreMLKernels

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
        if let threads { ocm_set_num_threads(Int32(threads)) }
        var (train, test) = try loadData()
        if let limit { train = train.prefix(limit) }
        let classes = max(train.classCount, test.classCount)
        let lambda = LogisticRegression.Penalty.lambda(scikitLearnC: c, sampleCount: train.count)
        let solver = LogisticRegression(
            penalty: penalty == "l1" ? .l1(lambda) : (penalty == "l2" ? .l2(lambda) : .none),
            maxIterations: maxIterations, gradientTolerance: tol, standardizesFeatures: standardize)

        let showsProgress = !json && isatty(2) != 0
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = Self.processCPUSeconds()
        let fit = try solver.fit(features: train.values, featureCount: train.featureCount, labels: train.labels, classCount: classes) { step in
            if showsProgress {
                printProgress(String(format: "iteration %d/%d  loss %.5f  gradient %.2e", step.iteration, maxIterations, step.loss, step.gradientNorm))
            }
            return true
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpuSeconds = Self.processCPUSeconds() - cpuStart
        if showsProgress { printProgress("") }

        let report = Report(
            data: train.name, trainRows: train.count, testRows: test.count, features: train.featureCount, classes: classes,
            penalty: penalty, c: c, lambda: penalty == "none" ? 0 : lambda, maxIterations: maxIterations, tol: tol,
            threads: Int(ocm_num_threads()), isa: String(cString: ocm_isa_name()), fitSeconds: seconds, cpuSeconds: cpuSeconds,
            iterations: fit.iterations, evaluations: fit.evaluations, stop: fit.stop.rawValue, loss: fit.loss,
            gradientNorm: fit.gradientNorm,
            trainAccuracy: try fit.model.accuracy(train.values, labels: train.labels),
            testAccuracy: test.count > 0 ? try fit.model.accuracy(test.values, labels: test.labels) : .nan)
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
        table.append(["iterations", "\(fit.iterations) (\(fit.evaluations) evaluations, stop: \(fit.stop.rawValue))"])
        table.append(["final loss", String(format: "%.6f", fit.loss)])
        table.append(["largest gradient component", String(format: "%.2e", fit.gradientNorm)])
        table.append(["train accuracy", String(format: "%.2f%%", report.trainAccuracy * 100)])
        table.append(["test accuracy", test.count > 0 ? String(format: "%.2f%%", report.testAccuracy * 100) : "–"])
        print(table.render())
    }

    /// CPU seconds used so far by every thread of this process.
    static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private func printProgress(_ line: String) {
        FileHandle.standardError.write(Data(("\r" + line.padding(toLength: 60, withPad: " ", startingAt: 0) + (line.isEmpty ? "\r" : "")).utf8))
    }

    private func loadData() throws -> (train: LabeledDataset, test: LabeledDataset) {
        if let synthetic, let set = SyntheticSet.parse(synthetic) { return set.make() }
        let folder = data!
        let npy = URL(fileURLWithPath: folder).appendingPathComponent("train-features.npy")
        if FileManager.default.fileExists(atPath: npy.path) {
            return (try NPYPair.load(folder: folder, split: "train"), try NPYPair.load(folder: folder, split: "test"))
        }
        return (try IDXDataset.load(folder: folder, split: .train), try IDXDataset.load(folder: folder, split: .test))
    }

    /// `SPLIT-features.npy` (N×D) and `SPLIT-labels.npy` (N integers) in a folder.
    enum NPYPair {
        static func load(folder: String, split: String) throws -> LabeledDataset {
            let featuresPath = URL(fileURLWithPath: folder).appendingPathComponent("\(split)-features.npy").path
            let labelsPath = URL(fileURLWithPath: folder).appendingPathComponent("\(split)-labels.npy").path
            let features = try NPYFile.read(try read(featuresPath), path: featuresPath)
            let labels = try NPYFile.read(try read(labelsPath), path: labelsPath)
            guard features.shape.count == 2 else {
                throw CLIError.file(featuresPath, "shape \(features.shape); expected rows × features")
            }
            guard labels.shape == [features.shape[0]] else {
                throw CLIError.file(labelsPath, "shape \(labels.shape); expected [\(features.shape[0])], one label per row of \(featuresPath)")
            }
            let classes = try labels.values.enumerated().map { index, value -> Int in
                guard value >= 0, value == value.rounded(), value < 1e6 else {
                    throw CLIError.file(labelsPath, "element \(index) is \(value), not a class index ≥ 0")
                }
                return Int(value)
            }
            let name = URL(fileURLWithPath: folder).standardizedFileURL.lastPathComponent
            return LabeledDataset(name: "\(name) (\(split))", count: features.shape[0], featureCount: features.shape[1],
                                  values: features.values.map { Float($0) }, labels: classes)
        }

        private static func read(_ path: String) throws -> Data {
            do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                throw CLIError.file(path, "cannot be read (\(error.localizedDescription))")
            }
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

        func make() -> (train: LabeledDataset, test: LabeledDataset) {
            var random = SeededGenerator(seed: 2024)
            let means = (0..<(classes * features)).map { _ in 0.12 * random.normal() }
            func draw(_ count: Int, _ name: String) -> LabeledDataset {
                var values = [Float](repeating: 0, count: count * features)
                var labels = [Int](repeating: 0, count: count)
                for row in 0..<count {
                    let label = row % classes
                    labels[row] = label
                    for j in 0..<features { values[row * features + j] = max(0, means[label * features + j] + random.normal()) }
                }
                return LabeledDataset(name: "synthetic \(rows),\(features),\(classes) (\(name))", count: count, featureCount: features,
                                      values: values, labels: labels)
            }
            return (draw(rows, "train"), draw(max(1, rows / 4), "test"))
        }
    }
}

extension SeededGenerator {
    /// A standard normal draw (Box–Muller on two 24-bit uniforms).
    fileprivate mutating func normal() -> Float {
        let u = (Float(next() >> 40) + 0.5) * 0x1p-24
        let v = Float(next() >> 40) * 0x1p-24
        return (-2 * Foundation.log(u)).squareRoot() * Foundation.cos(2 * .pi * v)
    }
}
