import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// `MLUpdateTask` as the on-device training tutorials use it.
@Suite("MLUpdateTask")
struct UpdateTaskTests {
    /// Runs `task`-making code and waits for its completion handler's context.
    final class Completion: @unchecked Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        private(set) var context: MLUpdateContext?
        func finish(_ context: MLUpdateContext) {
            self.context = context
            semaphore.signal()
        }
        func wait() -> MLUpdateContext? {
            _ = semaphore.wait(timeout: .now() + 120)
            return context
        }
    }

    final class Log: @unchecked Sendable {
        var events: [(event: MLUpdateProgressEvent, epoch: Int, miniBatch: Int, loss: Double?, learningRate: Double)] = []
        var accuracies: [Double] = []
    }

    @Test func tutorialStyleTrainingImprovesTheClassifierAndWritesIt() throws {
        try withTemporaryDirectory { folder in
            let url = Fixtures.url("classifier_sgd.mlmodel")
            let (train, _) = TrainingExamples.batch(count: 96, seed: 1)
            let (test, testClasses) = TrainingExamples.batch(count: 60, seed: 2)
            let before = try TrainingExamples.accuracy(of: MLModel(contentsOf: url), on: test, classes: testClasses)

            let configuration = MLModelConfiguration()
            configuration.parameters = [.epochs: 10, .learningRate: 0.05]
            let log = Log()
            let completion = Completion()
            let trainedURL = folder.appendingPathComponent("Trained.mlmodel")
            let handlers = MLUpdateProgressHandlers(
                forEvents: [.trainingBegin, .epochEnd, .miniBatchEnd],
                progressHandler: { context in
                    let learningRate = context.parameters[.learningRate] as! Double
                    switch context.event {
                    case .trainingBegin:
                        log.events.append((.trainingBegin, -1, -1, nil, learningRate))
                    case .miniBatchEnd:
                        log.events.append((.miniBatchEnd, context.metrics[.epochIndex] as! Int, context.metrics[.miniBatchIndex] as! Int,
                                           context.metrics[.lossValue] as? Double, learningRate))
                    case .epochEnd:
                        log.events.append((.epochEnd, context.metrics[.epochIndex] as! Int, context.metrics[.miniBatchIndex] as! Int,
                                           context.metrics[.lossValue] as? Double, learningRate))
                        log.accuracies.append(context.metrics[.trainingAccuracy] as! Double)
                    default:
                        break
                    }
                },
                completionHandler: { context in
                    try? context.model.write(to: trainedURL)
                    completion.finish(context)
                })
            let task = try MLUpdateTask(forModelAt: url, trainingData: train, configuration: configuration, progressHandlers: handlers)
            #expect(task.state == .suspended)
            task.resume()
            let context = try #require(completion.wait())
            #expect(context.task.error == nil)
            #expect(task.state == .completed)

            // Events: one begin, 12 mini-batches (96 / 8) then an epoch end, ten times.
            #expect(log.events.first?.event == .trainingBegin)
            let epochEnds = log.events.filter { $0.event == .epochEnd }
            #expect(epochEnds.map(\.epoch) == Array(0..<10))
            #expect(log.events.filter { $0.event == .miniBatchEnd }.count == 120)
            #expect(log.events.allSatisfy { $0.learningRate == 0.05 })
            // The epoch loss is the mean of its mini-batch losses, not the last one.
            for epoch in 0..<10 {
                let batches = log.events.filter { $0.event == .miniBatchEnd && $0.epoch == epoch }.compactMap(\.loss)
                #expect(batches.count == 12)
                let mean = batches.reduce(0, +) / Double(batches.count)
                #expect(abs(epochEnds[epoch].loss! - mean) < 1e-9)
            }
            #expect(epochEnds.last!.loss! < epochEnds.first!.loss! * 0.7)
            #expect(log.accuracies.last! > 0.9)

            // The written model loads, holds changed weights, and classifies held-out examples well.
            let trained = try MLModel(contentsOf: trainedURL)
            let after = try TrainingExamples.accuracy(of: trained, on: test, classes: testClasses)
            #expect(after > 0.9)
            #expect(after > before)
            #expect(trained.specification.neuralNetworkClassifier.layers[0].innerProduct.weights.floatValue
                    != (try MLModel(contentsOf: url)).specification.neuralNetworkClassifier.layers[0].innerProduct.weights.floatValue)
        }
    }

    @Test func resumeWithParametersChangesTheLearningRateFromTheNextMiniBatch() throws {
        let (train, _) = TrainingExamples.batch(count: 32, seed: 3)
        let log = Log()
        let completion = Completion()
        let handlers = MLUpdateProgressHandlers(
            forEvents: [.epochEnd, .miniBatchEnd],
            progressHandler: { context in
                let learningRate = context.parameters[.learningRate] as! Double
                let epoch = context.metrics[.epochIndex] as! Int
                log.events.append((context.event, epoch, context.metrics[.miniBatchIndex] as! Int, nil, learningRate))
                if context.event == .epochEnd && epoch == 1 {
                    context.task.resume(withParameters: [.learningRate: 0.001])
                }
            },
            completionHandler: { completion.finish($0) })
        let task = try MLUpdateTask(forModelAt: Fixtures.url("classifier_sgd.mlmodel"), trainingData: train, configuration: nil, progressHandlers: handlers)
        task.resume(withParameters: [.epochs: 10])
        let context = try #require(completion.wait())
        #expect(context.task.error == nil)
        #expect(context.parameters[.learningRate] as? Double == 0.001)
        let rates = log.events.map { ($0.epoch, $0.learningRate) }
        #expect(rates.filter { $0.0 <= 1 }.allSatisfy { $0.1 == 0.01 })
        #expect(rates.filter { $0.0 >= 2 }.allSatisfy { $0.1 == 0.001 })
        #expect(log.events.filter { $0.event == .epochEnd }.count == 10)
    }

    @Test func cancelKeepsTheModelTrainedSoFar() throws {
        let url = Fixtures.url("classifier_sgd.mlmodel")
        let (train, _) = TrainingExamples.batch(count: 64, seed: 4)
        let log = Log()
        let completion = Completion()
        let handlers = MLUpdateProgressHandlers(
            forEvents: [.miniBatchEnd],
            progressHandler: { context in
                log.events.append((context.event, context.metrics[.epochIndex] as! Int, context.metrics[.miniBatchIndex] as! Int, nil, 0))
                if context.metrics[.epochIndex] as! Int == 2 && context.metrics[.miniBatchIndex] as! Int == 3 { context.task.cancel() }
            },
            completionHandler: { completion.finish($0) })
        let task = try MLUpdateTask(forModelAt: url, trainingData: train, configuration: nil, progressHandlers: handlers)
        task.resume()
        let context = try #require(completion.wait())
        #expect(context.task.error == nil)
        // Stopped right after the mini-batch that asked: epoch 2, batch 3 of 8.
        #expect(log.events.count == 2 * 8 + 4)
        let original = try MLModel(contentsOf: url).specification.neuralNetworkClassifier.layers[0].innerProduct.weights.floatValue
        let trained = context.model.specification.neuralNetworkClassifier.layers[0].innerProduct.weights.floatValue
        #expect(trained != original)
        #expect(trained.count == original.count)
    }

    @Test func anUnknownLabelFailsTheTaskWithAClearError() throws {
        let bad = MLArrayBatchProvider(array: [
            MLDictionaryFeatureProvider(featureValues: ["features": TrainingExamples.features([0, 0, 0, 0]), "classLabel": MLFeatureValue(string: "setosa")]),
            MLDictionaryFeatureProvider(featureValues: ["features": TrainingExamples.features([0, 0, 0, 0]), "classLabel": MLFeatureValue(string: "rose")]),
        ])
        let completion = Completion()
        let task = try MLUpdateTask(forModelAt: Fixtures.url("classifier_sgd.mlmodel"), trainingData: bad, configuration: nil,
                                    completionHandler: { completion.finish($0) })
        task.resume()
        let context = try #require(completion.wait())
        #expect(task.state == .failed)
        let message = "\(context.task.error.map { "\($0)" } ?? "")"
        #expect(message.contains("example 1") && message.contains("rose"))
    }

    @Test func parametersOutsideTheModelsAllowedValuesAreRejected() throws {
        let configuration = MLModelConfiguration()
        configuration.parameters = [.miniBatchSize: 5]
        #expect {
            _ = try MLUpdateTask(forModelAt: Fixtures.url("classifier_sgd.mlmodel"), trainingData: MLArrayBatchProvider(array: []),
                                 configuration: configuration, completionHandler: { _ in })
        } throws: { "\($0)".contains("miniBatchSize") }
    }

    @Test func leNetTrainsThroughIndexTargetsAndTheSwiftNativeAPI() async throws {
        // Two classes of 28×28 images (bright top half vs bright bottom half), index targets.
        var random = TestRandom(seed: 5)
        var providers: [MLFeatureProvider] = []
        for index in 0..<64 {
            let image = try MLMultiArray(shape: [1, 28, 28], dataType: .float32)
            let label = index % 2
            for row in 0..<28 {
                for column in 0..<28 {
                    let bright = (row < 14) == (label == 0)
                    image[row * 28 + column] = NSNumber(value: (bright ? 0.8 : 0.1) + random.float(0, 0.2))
                }
            }
            let target = try MLMultiArray(shape: [1], dataType: .int32)
            target[0] = NSNumber(value: label)
            providers.append(MLDictionaryFeatureProvider(featureValues: ["image": MLFeatureValue(multiArray: image), "output_true": MLFeatureValue(multiArray: target)]))
        }
        let data = MLArrayBatchProvider(array: providers)
        let model = try MLModel(contentsOf: Fixtures.url("lenet_updatable.mlmodel"))
        let losses = LossLog()
        let trained = try await model.update(with: data, parameters: [.epochs: 5, .miniBatchSize: 32, .learningRate: 1e-3]) { progress in
            losses.append(progress.loss)
        }
        #expect(losses.values.count == 5)
        #expect(losses.values.last! < losses.values.first!)
        let predictions = try trained.predictions(fromBatch: data)
        var correct = 0
        for index in 0..<data.count {
            let probabilities = predictions.features(at: index).featureValue(for: "output")!.multiArrayValue!.floatValues()
            if probabilities.indices.max(by: { probabilities[$0] < probabilities[$1] }) == index % 2 { correct += 1 }
        }
        #expect(correct >= 60)
    }

    final class LossLog: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [Double] = []
        func append(_ value: Double) { lock.lock(); stored.append(value); lock.unlock() }
        var values: [Double] { lock.lock(); defer { lock.unlock() }; return stored }
    }
}
