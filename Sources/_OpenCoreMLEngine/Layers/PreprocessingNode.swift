import CoreMLSpec

/// An image input's preprocessing: `channelScale·x + bias` per channel (scaler), or `x − mean`
/// (mean image), from the raw input blob the caller fills into the blob the layers read.
final class PreprocessingNode: @unchecked Sendable {
    let raw: Blob
    let output: Blob
    private var scale: Float = 1
    private var channelBiases: [Float] = []
    private var meanImage: [Float] = []

    init(_ spec: CoreML_Specification_NeuralNetworkPreprocessing, colorSpace: CoreML_Specification_ImageFeatureType.ColorSpace?, raw: Blob, output: Blob) throws {
        self.raw = raw
        self.output = output
        output.shape = raw.shape
        let channels = raw.shape.classic.channels
        switch spec.preprocessor {
        case .scaler(let scaler)?:
            scale = scaler.channelScale
            switch (colorSpace, channels) {
            case (.bgr?, 3): channelBiases = [scaler.blueBias, scaler.greenBias, scaler.redBias]
            case (_, 3): channelBiases = [scaler.redBias, scaler.greenBias, scaler.blueBias]
            default: channelBiases = [Float](repeating: scaler.grayBias, count: channels)
            }
        case .meanImage(let mean)?:
            guard mean.meanImage.count == raw.shape.count else {
                throw EngineError("preprocessing of '\(raw.name)'", "mean image has \(mean.meanImage.count) values, the input has \(raw.shape.count)")
            }
            meanImage = mean.meanImage
        case nil:
            break
        }
    }

    func forward(batch: Int) {
        let classic = raw.shape.classic, outer = classic.outer, c = classic.channels, h = classic.height, w = classic.width
        let x = raw.value.pointer, y = output.value.pointer
        let perExample = raw.shape.count
        if !meanImage.isEmpty {
            for example in 0..<batch {
                for i in 0..<perExample { y[example * perExample + i] = x[example * perExample + i] - meanImage[i] }
            }
            return
        }
        let plane = h * w
        for block in 0..<(batch * outer) {
            for channel in 0..<c {
                let bias = channelBiases.isEmpty ? 0 : channelBiases[channel]
                let base = (block * c + channel) * plane
                for i in base..<(base + plane) { y[i] = scale * x[i] + bias }
            }
        }
    }
}
