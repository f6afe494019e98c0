// These tests use Core Video's names as OpenCoreML defines them where Core Video is missing.
#if !canImport(CoreVideo)
import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// Image inputs: pixel buffers become planes of 0…255 in the model's colour order, then the
/// model's own preprocessing runs. Checked against the same network fed the equivalent
/// multi-array, with the preprocessing done here by hand.
@Suite("Image inputs")
struct ImageInputTests {
    static let (width, height) = (5, 4)
    static let scale: Float = 1 / 255
    static let (redBias, greenBias, blueBias, grayBias): (Float, Float, Float, Float) = (-0.5, 0.25, -0.125, -0.3)

    /// conv (3×3, same, 2 outputs, updatable) with a mean-squared-error loss; the input is an image
    /// of `colorSpace` with scaler preprocessing, or (`colorSpace` nil) a `[channels, 4, 5]` multi-array.
    static func model(colorSpace: CoreML_Specification_ImageFeatureType.ColorSpace?, channels: Int) -> CoreML_Specification_Model {
        var random = TestRandom(seed: 77)
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.isUpdatable = true
        var input = CoreML_Specification_FeatureDescription()
        input.name = "image"
        var network = CoreML_Specification_NeuralNetwork()
        if let colorSpace {
            input.type.imageType.width = Int64(width)
            input.type.imageType.height = Int64(height)
            input.type.imageType.colorSpace = colorSpace
            var scaler = CoreML_Specification_NeuralNetworkImageScaler()
            scaler.channelScale = scale
            (scaler.redBias, scaler.greenBias, scaler.blueBias, scaler.grayBias) = (redBias, greenBias, blueBias, grayBias)
            var preprocessing = CoreML_Specification_NeuralNetworkPreprocessing()
            preprocessing.featureName = "image"
            preprocessing.scaler = scaler
            network.preprocessing = [preprocessing]
        } else {
            input.type.multiArrayType.shape = [Int64(channels), Int64(height), Int64(width)]
            input.type.multiArrayType.dataType = .float32
        }
        model.description_p.input = [input]
        var conv = CoreML_Specification_ConvolutionLayerParams()
        conv.outputChannels = 2
        conv.kernelChannels = UInt64(channels)
        conv.nGroups = 1
        conv.kernelSize = [3, 3]
        conv.stride = [1, 1]
        conv.dilationFactor = [1, 1]
        conv.same = CoreML_Specification_SamePadding()
        conv.hasBias_p = true
        conv.weights.floatValue = random.floats(2 * channels * 9, -0.5, 0.5)
        conv.weights.isUpdatable = true
        conv.bias.floatValue = random.floats(2, -0.5, 0.5)
        conv.bias.isUpdatable = true
        var layer = CoreML_Specification_NeuralNetworkLayer()
        layer.name = "conv"
        layer.input = ["image"]
        layer.output = ["out"]
        layer.isUpdatable = true
        layer.convolution = conv
        network.layers = [layer]
        network.setMeanSquaredErrorTraining(output: "out", learningRate: 0.05, batchSize: 3, maxBatchSize: 64, epochs: 3, maxEpochs: 10)
        network.updateParams.shuffle.defaultValue = false
        model.neuralNetwork = network
        var output = CoreML_Specification_FeatureDescription()
        output.name = "out"
        output.type.multiArrayType.shape = [2, Int64(height), Int64(width)]
        output.type.multiArrayType.dataType = .float32
        model.description_p.output = [output]
        var target = output
        target.name = "out_true"
        model.description_p.trainingInput = [input, target]
        return model
    }

    /// The multi-array the image model's preprocessing sees, computed here from the buffer's bytes.
    static func preprocessedArray(_ buffer: CVPixelBuffer, colorSpace: CoreML_Specification_ImageFeatureType.ColorSpace) throws -> MLMultiArray {
        let channels = colorSpace == .grayscale ? 1 : 3
        let array = try MLMultiArray(shape: [NSNumber(value: channels), NSNumber(value: height), NSNumber(value: width)], dataType: .float32)
        let base = CVPixelBufferGetBaseAddress(buffer)!.assumingMemoryBound(to: UInt8.self)
        let format = CVPixelBufferGetPixelFormatType(buffer)
        for y in 0..<height {
            for x in 0..<width {
                let pixel = base + y * CVPixelBufferGetBytesPerRow(buffer) + x * (format == kCVPixelFormatType_OneComponent8 ? 1 : 4)
                let values: [Float]
                if format == kCVPixelFormatType_OneComponent8 {
                    values = [Float(pixel[0]) * scale + grayBias]
                } else {
                    #expect(format == kCVPixelFormatType_32BGRA)
                    let (b, g, r) = (Float(pixel[0]), Float(pixel[1]), Float(pixel[2]))
                    let red = r * scale + redBias, green = g * scale + greenBias, blue = b * scale + blueBias
                    values = colorSpace == .bgr ? [blue, green, red] : [red, green, blue]
                }
                for (c, value) in values.enumerated() { array[[c, y, x] as [NSNumber]] = NSNumber(value: value) }
            }
        }
        return array
    }

    static func maxDifference(_ a: MLMultiArray, _ b: MLMultiArray) -> Float {
        (0..<a.count).map { abs(a[$0].floatValue - b[$0].floatValue) }.max() ?? 0
    }

    @Test(arguments: [CoreML_Specification_ImageFeatureType.ColorSpace.rgb, .bgr, .grayscale])
    func predictionFromAnImageEqualsTheEquivalentMultiArray(colorSpace: CoreML_Specification_ImageFeatureType.ColorSpace) throws {
        let channels = colorSpace == .grayscale ? 1 : 3
        let imageModel = try MLModel(specification: Self.model(colorSpace: colorSpace, channels: channels))
        let arrayModel = try MLModel(specification: Self.model(colorSpace: nil, channels: channels))
        let constraint = try #require(imageModel.modelDescription.inputDescriptionsByName["image"]?.imageConstraint)
        #expect(constraint.pixelsWide == 5 && constraint.pixelsHigh == 4)
        #expect(constraint.pixelFormatType == (colorSpace == .grayscale ? kCVPixelFormatType_OneComponent8 : kCVPixelFormatType_32BGRA))
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/images/rgb.png")
        let value = try MLFeatureValue(imageAt: url, constraint: constraint)
        #expect(value.type == .image)
        let buffer = try #require(value.imageBufferValue)
        let fromImage = try imageModel.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": value]))
        let fromArray = try arrayModel.prediction(from: MLDictionaryFeatureProvider(dictionary: [
            "image": Self.preprocessedArray(buffer, colorSpace: colorSpace),
        ]))
        let a = try #require(fromImage.featureValue(for: "out")?.multiArrayValue)
        let b = try #require(fromArray.featureValue(for: "out")?.multiArrayValue)
        #expect(a.count == 40)
        #expect(Self.maxDifference(a, b) < 1e-5)
        // A pixel buffer passed directly (Core ML's dictionary style) gives the same.
        let direct = try imageModel.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": buffer]))
        #expect(Self.maxDifference(direct.featureValue(for: "out")!.multiArrayValue!, a) == 0)
    }

    @Test func trainingOnImagesEqualsTrainingOnTheEquivalentMultiArrays() async throws {
        var random = TestRandom(seed: 5)
        var imageExamples: [MLFeatureProvider] = []
        var arrayExamples: [MLFeatureProvider] = []
        for _ in 0..<7 {
            var made: CVPixelBuffer?
            #expect(CVPixelBufferCreate(nil, Self.width, Self.height, kCVPixelFormatType_32BGRA, nil, &made) == kCVReturnSuccess)
            let buffer = try #require(made)
            #expect(CVPixelBufferLockBaseAddress(buffer, []) == kCVReturnSuccess)
            let bytes = CVPixelBufferGetBaseAddress(buffer)!.assumingMemoryBound(to: UInt8.self)
            for i in 0..<(CVPixelBufferGetBytesPerRow(buffer) * Self.height) { bytes[i] = UInt8(random.int(0..<256)) }
            _ = CVPixelBufferUnlockBaseAddress(buffer, [])
            let target = try MLMultiArray(shape: [2, 4, 5], dataType: .float32)
            for i in 0..<target.count { target[i] = NSNumber(value: random.float(-1, 1)) }
            imageExamples.append(try MLDictionaryFeatureProvider(dictionary: ["image": MLFeatureValue(pixelBuffer: buffer), "out_true": target]))
            arrayExamples.append(try MLDictionaryFeatureProvider(dictionary: [
                "image": Self.preprocessedArray(buffer, colorSpace: .bgr), "out_true": target,
            ]))
        }
        let imageModel = try MLModel(specification: Self.model(colorSpace: .bgr, channels: 3))
        let arrayModel = try MLModel(specification: Self.model(colorSpace: nil, channels: 3))
        let trainedOnImages = try await imageModel.update(with: MLArrayBatchProvider(array: imageExamples))
        let trainedOnArrays = try await arrayModel.update(with: MLArrayBatchProvider(array: arrayExamples))
        let before = imageModel.specification.neuralNetwork.layers[0].convolution.weights.floatValue
        let a = trainedOnImages.specification.neuralNetwork.layers[0].convolution.weights.floatValue
        let b = trainedOnArrays.specification.neuralNetwork.layers[0].convolution.weights.floatValue
        #expect(zip(a, before).map { abs($0 - $1) }.max()! > 1e-3)  // training moved the weights
        #expect(zip(a, b).map { abs($0 - $1) }.max()! < 1e-5)
    }

    @Test func wrongImageSizeAndWrongKindAreClearErrors() throws {
        let model = try MLModel(specification: Self.model(colorSpace: .rgb, channels: 3))
        let small = PixelBuffer(width: 3, height: 3, pixelFormatType: kCVPixelFormatType_32BGRA)!
        #expect {
            try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": small]))
        } throws: { error in
            "\(error)".contains("input 'image' is a 3×3 image; the model expects 5×4")
        }
        let arrayModel = try MLModel(specification: Self.model(colorSpace: nil, channels: 3))
        let fits = PixelBuffer(width: 5, height: 4, pixelFormatType: kCVPixelFormatType_32BGRA)!
        #expect {
            try arrayModel.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": fits]))
        } throws: { error in
            "\(error)".contains("input 'image' is a Image; the model expects a multi-array of shape [3, 4, 5]")
        }
    }
}
#endif
