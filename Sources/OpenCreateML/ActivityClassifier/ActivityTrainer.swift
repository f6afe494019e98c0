import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// Trains Turi Create's activity-classifier network on chunks, as Turi Create 6.3 does (its
/// TensorFlow graph, the path it takes on Linux; on macOS Turi Create 6 trains through Metal
/// Performance Shaders): Adam (learning
/// rate 1e-3), a batch of chunks per step, dropout after the first ReLU (0.2) and before the last
/// dense layer (0.5), cross-entropy per window averaged over each chunk's windows with samples
/// (padding weighs 0), then over the chunks. The batchnorm normalizes with each batch's
/// statistics (over all its windows, padding included) and keeps moving averages of them for
/// inference, as Turi Create 6.3's TensorFlow batchnorm does: momentum 0.99 from mean 0 and
/// variance 1, over the same windows, biased variance (the trained model's are then bias-corrected,
/// or recomputed, or kept: ``MLActivityClassifier/ModelParameters/BatchNormStatistics``). Turi Create 6.4's Keras training differs:
/// its loss is Σ w·CE over the batch divided by the batch's 20 · chunks windows (padding counted,
/// chunks not normalized), and its Adam ε is 1e-7 (here 1e-8, added after the bias correction).
final class ActivityTrainer {
    let featureCount: Int
    let predictionWindow: Int
    let classLabels: [String]
    let labelName: String
    let network: Network
    private let optimizer: Optimizer
    private(set) var runningMean: [Float]
    private(set) var runningVariance: [Float]
    static let momentum: Float = 0.99
    static let steps = ActivityChunk.windowsPerChunk

    /// `dropout`: the rates by blob (``ActivityNetwork/dropout``; none for comparing one step with
    /// the PyTorch twin).
    init(featureCount: Int, predictionWindow: Int, classLabels: [String], labelName: String, seed: Int,
         dropout: [String: Float] = ActivityNetwork.dropout) throws {
        self.featureCount = featureCount
        self.predictionWindow = predictionWindow
        self.classLabels = classLabels
        self.labelName = labelName
        let specification = try ActivityNetwork.specification(
            .training(steps: Self.steps), featureCount: featureCount, predictionWindow: predictionWindow, labels: classLabels, labelName: labelName)
        let extras = TrainingGraphExtras(dropout: dropout, lossWeights: [ActivityNetwork.lossName: ActivityNetwork.weightsName],
                                         seed: UInt64(bitPattern: Int64(seed)))
        network = try Network(model: specification, extras: extras)
        Self.initialize(network, featureCount: featureCount, predictionWindow: predictionWindow, classCount: classLabels.count, seed: seed)
        optimizer = Optimizer(.adam(learningRate: ActivityNetwork.learningRate, beta1: 0.9, beta2: 0.999, eps: 1e-8))
        runningMean = [Float](repeating: 0, count: ActivityNetwork.denseSize)
        runningVariance = [Float](repeating: 1, count: ActivityNetwork.denseSize)
    }

    /// Turi Create's initial weights, drawn from `seed`: Xavier-uniform (±√(6 / (fan in + fan out)))
    /// for the convolution (fans features × window and 64 × window), each LSTM gate's input and
    /// recurrent matrices (64 → 200 and 200 → 200) and both dense layers; every bias 0 (the output
    /// layer has none), the forget gate's too (the network's builder would give it 1 and seed by
    /// layer name, not by `seed`). The batchnorm keeps its scale 1 and shift 0.
    static func initialize(_ network: Network, featureCount: Int, predictionWindow: Int, classCount: Int, seed: Int) {
        let (c, h, d) = (ActivityNetwork.convolutionFilters, ActivityNetwork.lstmSize, ActivityNetwork.denseSize)
        var generator = SplitMix64(seed: UInt64(bitPattern: Int64(seed)) &+ 0x1417)
        for parameter in network.parameters where parameter.isTrainable {
            let name = parameter.name
            let fans: (Int, Int)?
            if name == "conv_layer.weights" { fans = (featureCount * predictionWindow, c * predictionWindow) }
            else if name.hasPrefix("lstm_layer."), name.hasSuffix("WeightMatrix") { fans = (c, h) }
            else if name.hasPrefix("lstm_layer."), name.hasSuffix("RecursionMatrix") { fans = (h, h) }
            else if name == "dense_layer.weights" { fans = (h, d) }
            else if name == "dense_layer1.weights" { fans = (d, classCount) }
            else if name.hasPrefix("bn_layer.") { continue }
            else { fans = nil }  // biases
            let values = parameter.value.pointer
            guard let (fanIn, fanOut) = fans else {
                values.update(repeating: 0, count: parameter.count)
                continue
            }
            let limit = (6 / Double(fanIn + fanOut)).squareRoot()
            for i in 0..<parameter.count {
                let unit = Double(generator.next() >> 11) * 0x1p-53  // [0, 1)
                values[i] = Float((2 * unit - 1) * limit)
            }
        }
    }

    /// One pass over `chunks` in the order `order`, `batchSize` chunks per step. Returns the mean
    /// loss per step and the fraction of weighted windows the training passes classified correctly.
    func epoch(_ chunks: [ActivityChunk], order: [Int], batchSize: Int, afterStep: (_ step: Int, _ meanLoss: Double) -> Void = { _, _ in }) throws -> (loss: Double, accuracy: Double) {
        let steps = Self.steps, classes = classLabels.count
        let perChunk = steps * predictionWindow * featureCount
        var lossSum = 0.0, stepCount = 0, correct = 0, counted = 0
        for start in stride(from: 0, to: order.count, by: batchSize) {
            let batch = min(batchSize, order.count - start)
            // Turi Create's iterator fills the last batch up with empty chunks (zeros, weight 0),
            // which the batchnorm's statistics see: so does this.
            network.reserve(batch: batchSize, training: true)
            let x = network.inputBlob(named: ActivityNetwork.featuresName)!.value.pointer
            let t = network.blobs[ActivityNetwork.targetName]!.value.pointer
            let w = network.blobs[ActivityNetwork.weightsName]!.value.pointer
            for example in 0..<batch {
                let chunk = chunks[order[start + example]]
                chunk.features.withUnsafeBufferPointer { (x + example * perChunk).update(from: $0.baseAddress!, count: perChunk) }
                // Turi Create's loss: each chunk's windows averaged, then the chunks averaged (a chunk
                // of 2 windows weighs as much as one of 20). The loss node divides by the sum of the
                // weights, so each window weighs 1 / (the chunk's windows with samples).
                let windowsWithSamples = chunk.windowWeights.reduce(0, +)
                for window in 0..<steps {
                    t[example * steps + window] = Float(chunk.windowLabels[window])
                    w[example * steps + window] = windowsWithSamples > 0 ? chunk.windowWeights[window] / windowsWithSamples : 0
                }
            }
            if batch < batchSize {
                (x + batch * perChunk).update(repeating: 0, count: (batchSize - batch) * perChunk)
                (t + batch * steps).update(repeating: 0, count: (batchSize - batch) * steps)
                (w + batch * steps).update(repeating: 0, count: (batchSize - batch) * steps)
            }
            let loss = try network.trainingStep(batch: batchSize)
            guard loss.isFinite else {
                throw CreateMLError("training", "the loss became \(loss) at step \(stepCount + 1); the features may need scaling")
            }
            optimizer.update(network.parameters)
            lossSum += Double(loss)
            stepCount += 1
            // Accuracy of this (dropout) pass, and the batchnorm's moving statistics.
            let p = network.blobs[labelName + "Probability"]!.value.pointer
            for row in 0..<(batch * steps) where w[row] > 0 {
                let probabilities = p + row * classes
                var best = 0
                for c in 1..<classes where probabilities[c] > probabilities[best] { best = c }
                if Float(best) == t[row] { correct += 1 }
                counted += 1
            }
            updateStatistics(rows: batchSize * steps)
            afterStep(stepCount, lossSum / Double(stepCount))
        }
        return (stepCount == 0 ? 0 : lossSum / Double(stepCount), counted == 0 ? 0 : Double(correct) / Double(counted))
    }

    /// Folds the mean and (biased) variance of the batchnorm's input over all `rows` of this batch
    /// (the windows of padding too, as the batch statistics the training pass normalized with)
    /// into the moving averages.
    private func updateStatistics(rows: Int) {
        guard rows > 0 else { return }
        let channels = ActivityNetwork.denseSize
        let x = network.blobs[ActivityNetwork.batchNormInput]!.value.pointer
        var sum = [Double](repeating: 0, count: channels), squares = [Double](repeating: 0, count: channels)
        for row in 0..<rows {
            let values = x + row * channels
            for c in 0..<channels {
                let v = Double(values[c])
                sum[c] += v
                squares[c] += v * v
            }
        }
        let m = Self.momentum
        for c in 0..<channels {
            let mean = sum[c] / Double(rows)
            let variance = max(squares[c] / Double(rows) - mean * mean, 0)
            runningMean[c] = m * runningMean[c] + (1 - m) * Float(mean)
            runningVariance[c] = m * runningVariance[c] + (1 - m) * Float(variance)
        }
    }

    /// Replaces the moving statistics by what they would settle to if training went on with the
    /// final weights: one more pass over `chunks` in training mode (dropout on, batches of
    /// `batchSize` chunks, the last one filled up with empty chunks, as every step saw them), without
    /// updating a weight, averaging each batch's mean and (biased) variance of the batchnorm's input
    /// over all its windows — the statistics every training step normalized with
    /// (``MLActivityClassifier/ModelParameters/BatchNormStatistics/recomputed``).
    func recomputeStatistics(_ chunks: [ActivityChunk], batchSize: Int) {
        let steps = Self.steps, channels = ActivityNetwork.denseSize
        let perChunk = steps * predictionWindow * featureCount
        var means = [Double](repeating: 0, count: channels), variances = [Double](repeating: 0, count: channels)
        var batches = 0
        for start in stride(from: 0, to: chunks.count, by: batchSize) {
            let batch = min(batchSize, chunks.count - start)
            network.reserve(batch: batchSize, training: true)
            let x = network.inputBlob(named: ActivityNetwork.featuresName)!.value.pointer
            for example in 0..<batch {
                chunks[start + example].features.withUnsafeBufferPointer { (x + example * perChunk).update(from: $0.baseAddress!, count: perChunk) }
            }
            if batch < batchSize { (x + batch * perChunk).update(repeating: 0, count: (batchSize - batch) * perChunk) }
            network.forward(batch: batchSize, training: true)
            let values = network.blobs[ActivityNetwork.batchNormInput]!.value.pointer
            let rows = batchSize * steps
            var sum = [Double](repeating: 0, count: channels), squares = [Double](repeating: 0, count: channels)
            for row in 0..<rows {
                let v = values + row * channels
                for c in 0..<channels {
                    sum[c] += Double(v[c])
                    squares[c] += Double(v[c]) * Double(v[c])
                }
            }
            for c in 0..<channels {
                let mean = sum[c] / Double(rows)
                means[c] += mean
                variances[c] += max(squares[c] / Double(rows) - mean * mean, 0)
            }
            batches += 1
        }
        guard batches > 0 else { return }
        for c in 0..<channels {
            runningMean[c] = Float(means[c] / Double(batches))
            runningVariance[c] = Float(variances[c] / Double(batches))
        }
    }

    /// The moving averages with their start (mean 0, variance 1) divided out after `steps` updates of
    /// momentum m: mean / (1 − mᵗ), (variance − mᵗ) / (1 − mᵗ), as Adam corrects its moments
    /// (``MLActivityClassifier/ModelParameters/BatchNormStatistics/biasCorrected``, the default).
    func biasCorrectedStatistics(steps: Int) -> (mean: [Float], variance: [Float]) {
        let decay = Float(pow(Double(Self.momentum), Double(max(steps, 0))))
        guard steps > 0, decay < 1 else { return (runningMean, runningVariance) }
        return (runningMean.map { $0 / (1 - decay) }, runningVariance.map { max(($0 - decay) / (1 - decay), 0) })
    }

    /// Makes the statistics the model predicts with `statistics` from now on.
    func setStatistics(_ statistics: (mean: [Float], variance: [Float])) {
        (runningMean, runningVariance) = statistics
    }

    /// The network of `variant` (chunk or export) with the current weights and `statistics` (default:
    /// the moving statistics).
    func specification(_ variant: ActivityNetwork.Variant, userDefined: [String: String] = [:],
                       statistics: (mean: [Float], variance: [Float])? = nil) throws -> CoreML_Specification_Model {
        var specification = try ActivityNetwork.specification(
            variant, featureCount: featureCount, predictionWindow: predictionWindow, labels: classLabels, labelName: labelName,
            statistics: statistics.map { ($0.mean, $0.variance) } ?? (runningMean, runningVariance), userDefined: userDefined)
        network.store(in: &specification)
        return specification
    }
}

/// Predicts chunk by chunk with the inference network (no dropout, stored batchnorm statistics),
/// the LSTM starting from zeros at every chunk. One batch at a time (a lock), so that a classifier
/// can be shared between threads.
final class ActivityChunkPredictor: @unchecked Sendable {
    private let network: Network
    private let lock = NSLock()
    let classCount: Int
    let predictionWindow: Int
    let featureCount: Int
    let perChunk: Int
    static let batchSize = 32

    init(specification: CoreML_Specification_Model, classCount: Int, predictionWindow: Int, featureCount: Int) throws {
        network = try Network(model: specification)
        self.classCount = classCount
        self.predictionWindow = predictionWindow
        self.featureCount = featureCount
        perChunk = ActivityChunk.windowsPerChunk * predictionWindow * featureCount
    }

    /// The class probabilities of every window of every chunk (padded windows included).
    func probabilities(_ chunks: [ActivityChunk], probabilitiesName: String) -> [[[Float]]] {
        lock.lock()
        defer { lock.unlock() }
        let steps = ActivityChunk.windowsPerChunk
        var result: [[[Float]]] = []
        result.reserveCapacity(chunks.count)
        for start in stride(from: 0, to: chunks.count, by: Self.batchSize) {
            let batch = min(Self.batchSize, chunks.count - start)
            network.reserve(batch: batch, training: false)
            let x = network.inputBlob(named: ActivityNetwork.featuresName)!.value.pointer
            for example in 0..<batch {
                chunks[start + example].features.withUnsafeBufferPointer {
                    (x + example * perChunk).update(from: $0.baseAddress!, count: perChunk)
                }
            }
            network.forward(batch: batch, training: false)
            let p = network.blobs[probabilitiesName]!.value.pointer
            for example in 0..<batch {
                result.append((0..<steps).map { window in
                    Array(UnsafeBufferPointer(start: p + (example * steps + window) * classCount, count: classCount))
                })
            }
        }
        return result
    }
}
