import Foundation
import Testing
import _OpenCoreMLEngine

/// Training time on a large synthetic set, run by hand in release (skipped unless OCM_TREE_BENCH
/// names a folder holding `X.f32`, rows × 50 float32 row-major, and `y.f32`, 0/1 labels):
///   OCM_TREE_BENCH=/tmp/tabA swift test -c release --skip-build --filter TreeTrainingBenchmark
@Suite("Tree training benchmark")
struct TreeTrainingBenchmark {
    static let folder = ProcessInfo.processInfo.environment["OCM_TREE_BENCH"]

    @Test("Boosted trees on X.f32 / y.f32", .enabled(if: folder != nil))
    func boosted() throws {
        let folder = URL(fileURLWithPath: Self.folder ?? "")
        let featureCount = Int(ProcessInfo.processInfo.environment["OCM_TREE_BENCH_FEATURES"] ?? "") ?? 50
        let iterations = Int(ProcessInfo.processInfo.environment["OCM_TREE_BENCH_ITERATIONS"] ?? "") ?? 10
        let raw = try Data(contentsOf: folder.appendingPathComponent("X.f32"))
        let labels = try Data(contentsOf: folder.appendingPathComponent("y.f32"))
        let rows = labels.count / 4
        var columns = [[Double]](repeating: [Double](repeating: 0, count: rows), count: featureCount)
        raw.withUnsafeBytes { bytes in
            let x = bytes.bindMemory(to: Float.self)
            for f in 0..<featureCount {
                columns[f].withUnsafeMutableBufferPointer { c in
                    for r in 0..<rows { c[r] = Double(x[r * featureCount + f]) }
                }
            }
        }
        let y = labels.withUnsafeBytes { $0.bindMemory(to: Float.self).map(Double.init) }
        let clock = ContinuousClock()
        var data: BinnedFeatures?
        let binning = try clock.measure { data = try BinnedFeatures(columns: columns, kinds: Array(repeating: .numeric, count: featureCount)) }
        columns = []
        let growth = TreeGrowthParameters(maxDepth: 6, minChildWeight: 1, l2Regularization: 1)
        var seconds = [Double]()
        var fit: TreeEnsembleFit?
        let training = try clock.measure {
            fit = try GradientBoostedTrees(objective: .logistic, growth: growth, iterations: iterations, stepSize: 0.3,
                                           earlyStoppingRounds: nil).fit(training: data!, targets: y, validation: nil) {
                seconds.append($0.seconds)
                print(String(format: "iteration %d: %.3f s, loss %.5f, accuracy %.5f", $0.iteration, $0.seconds,
                             $0.trainingLoss, $0.trainingMetric))
                return true
            }
        }
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM") } ?? ""
        print("binning \(binning), training \(training), median iteration \(seconds.sorted()[seconds.count / 2]) s, " +
              "trees \(fit?.trees.count ?? 0), \(peak)")
    }
}
