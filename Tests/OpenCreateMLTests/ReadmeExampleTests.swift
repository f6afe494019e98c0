import Foundation
import OpenCoreML
import OpenCreateML
import Testing
import _OpenCoreMLTestSupport

/// README.md's Swift example ("An example"), run as written on a small data set: the body of
/// `trainAndEvaluate` is the README's code between its data and model paths
/// (`ReadmeModuleGraphTests.readmeExampleIsTheTestedProgram` checks the two lines up).
@Suite("README example")
struct ReadmeExampleTests {
    /// README.md, "An example" (keep the two in step).
    static func trainAndEvaluate(data: URL, modelFile: URL, output: URL, epochs: Int) throws -> MLClassifierMetrics {
        let train = try LabeledDataset(contentsOf: data, split: .train)    // MNIST-format IDX files, gzipped or not
        let test = try LabeledDataset(contentsOf: data, split: .test)

        let configuration = MLModelConfiguration()
        configuration.parameters = [.epochs: epochs]
        let model = try MLModel(contentsOf: modelFile, configuration: configuration)

        let result = try model.updated(with: train.batchProvider(for: model)) { progress in
            print("epoch \(progress.epoch + 1): loss \(progress.loss), accuracy \(progress.accuracy ?? 0)")
        }
        try result.model.write(to: output)

        let metrics = try MLClassifierMetrics(model: result.model, on: test)
        print("test accuracy \(metrics.accuracy), macro F1 \(metrics.macroAverage.f1)")
        for row in metrics.classes { print(row.label, row.precision, row.recall, row.f1, row.support) }
        print(metrics.confusion)
        return metrics
    }

    /// Generated digits written as an MNIST-format folder (training files gzipped, test files plain).
    static func writeDigits(to folder: URL, train: Int, test: Int) throws {
        func bytes(_ dataset: LabeledDataset) -> [UInt8] { dataset.values.map { UInt8(($0 * 255).rounded()) } }
        let training = LabeledDataset.generatedDigits(train, seed: 1), held = LabeledDataset.generatedDigits(test, seed: 2)
        try writeGzip(idxImages(bytes(training), count: train, rows: 28, columns: 28), to: folder.appendingPathComponent("train-images-idx3-ubyte.gz"))
        try writeGzip(idxLabels(training.labels.map(UInt8.init)), to: folder.appendingPathComponent("train-labels-idx1-ubyte.gz"))
        try idxImages(bytes(held), count: test, rows: 28, columns: 28).write(to: folder.appendingPathComponent("t10k-images-idx3-ubyte"))
        try idxLabels(held.labels.map(UInt8.init)).write(to: folder.appendingPathComponent("t10k-labels-idx1-ubyte"))
    }

    @Test func trainsAndEvaluatesWithLibraryAPIOnly() throws {
        try withTemporaryDirectory { folder in
            try Self.writeDigits(to: folder, train: 600, test: 200)
            let output = folder.appendingPathComponent("Trained.mlmodel")
            let untrained = try MLClassifierMetrics(
                model: try MLModel(contentsOf: Fixtures.url("lenet_updatable.mlmodel")),
                on: try LabeledDataset(contentsOf: folder, split: .test))
            let metrics = try Self.trainAndEvaluate(data: folder, modelFile: Fixtures.url("lenet_updatable.mlmodel"),
                                                    output: output, epochs: 5)
            #expect(metrics.exampleCount == 200)
            #expect(metrics.confusionMatrix.flatMap { $0 }.reduce(0, +) == 200)
            // Training did something: well above chance (10 %) and above the untrained model (the seeded run reaches 52 %).
            #expect(metrics.accuracy > 0.4, "accuracy \(metrics.accuracy)")
            #expect(metrics.accuracy > untrained.accuracy + 0.2)
            // The written model predicts as the returned one does.
            let reloaded = try MLClassifierMetrics(model: MLModel(contentsOf: output), on: LabeledDataset(contentsOf: folder, split: .test))
            #expect(reloaded.confusionMatrix == metrics.confusionMatrix)
        }
    }
}
