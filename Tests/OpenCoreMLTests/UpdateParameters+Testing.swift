import CoreMLSpec

extension CoreML_Specification_NeuralNetwork {
    /// Makes the network trainable for a test: a mean-squared-error loss of `output` against
    /// `output_true`, SGD (no momentum by default) and the epochs, each with an allowed range.
    mutating func setMeanSquaredErrorTraining(
        output: String, learningRate: Double, batchSize: Int64, maxBatchSize: Int64, epochs: Int64, maxEpochs: Int64
    ) {
        var loss = CoreML_Specification_LossLayer()
        loss.name = "loss"
        loss.meanSquaredErrorLossLayer.input = output
        loss.meanSquaredErrorLossLayer.target = output + "_true"
        updateParams.lossLayers = [loss]
        var sgd = CoreML_Specification_SGDOptimizer()
        sgd.learningRate.defaultValue = learningRate
        sgd.learningRate.range.maxValue = 1
        sgd.miniBatchSize.defaultValue = batchSize
        sgd.miniBatchSize.range.minValue = 1
        sgd.miniBatchSize.range.maxValue = maxBatchSize
        sgd.momentum.defaultValue = 0
        sgd.momentum.range.maxValue = 1
        updateParams.optimizer.sgdOptimizer = sgd
        updateParams.epochs.defaultValue = epochs
        updateParams.epochs.range.minValue = 1
        updateParams.epochs.range.maxValue = maxEpochs
    }
}
