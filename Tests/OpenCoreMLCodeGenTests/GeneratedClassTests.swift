import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// The classes the OpenCoreMLCodeGen plugin generated at build time for this target's models
/// (`Models/*.mlmodel`, also resources of the target), used the way Xcode's generated classes are.
@Suite("Generated model classes")
struct GeneratedClassTests {
    static func array(_ values: [Double]) throws -> MLMultiArray {
        let array = try MLMultiArray(shape: [NSNumber(value: values.count)], dataType: .float32)
        for (index, value) in values.enumerated() { array[index] = NSNumber(value: value) }
        return array
    }

    /// `let model = ClassifierSGD()`, typed prediction, the same answer as MLModel.
    @Test func aClassifierPredictsThroughItsTypedClasses() throws {
        let classifier = try ClassifierSGD(configuration: MLModelConfiguration())
        let features = try Self.array([1.5, -1, 0.5, 0])
        let typed = try classifier.prediction(features: features)
        let plain = try classifier.model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["features": features]))
        #expect(typed.classLabel == plain.featureValue(for: "classLabel")?.stringValue)
        let probabilities = typed.classProbability
        #expect(Set(probabilities.keys) == ["setosa", "versicolor", "virginica"])
        #expect(abs(probabilities.values.reduce(0, +) - 1) < 1e-5)
        #expect(probabilities[typed.classLabel] == probabilities.values.max())

        let batch = try classifier.predictions(inputs: [ClassifierSGDInput(features: features), ClassifierSGDInput(features: Self.array([0, 0, -1.5, -1.5]))])
        #expect(batch.count == 2 && batch[0].classLabel == typed.classLabel)
        #expect(ClassifierSGD.urlOfModelInThisBundle.lastPathComponent == "ClassifierSGD.mlmodel")
    }

    /// The updatable model gets a training-input class that MLUpdateTask accepts.
    @Test func anUpdatableModelHasATrainingInputClass() throws {
        let examples = try (0..<12).map { index -> MLFeatureProvider in
            ClassifierSGDTrainingInput(features: try Self.array([Double(index % 3), 1, 0, -1]), classLabel: ["setosa", "versicolor", "virginica"][index % 3])
        }
        #expect(examples[1].featureNames == ["features", "classLabel"])
        #expect(examples[1].featureValue(for: "classLabel")?.stringValue == "versicolor")
        let result = try ClassifierSGD(configuration: MLModelConfiguration()).model.updated(with: MLArrayBatchProvider(array: examples), parameters: [.epochs: 10])
        #expect(result.epochs.count == 10 && result.epochs.last!.loss! < result.epochs.first!.loss!)
    }

    /// A regressor with an image input (from a file or a pixel buffer) and an optional input.
    @Test func aRegressorWithAnImageAndAnOptionalInput() throws {
        let regressor = try Regressor(contentsOf: Regressor.urlOfModelInThisBundle)
        let buffer = try #require(PixelBuffer(width: 4, height: 4, pixelFormatType: kCVPixelFormatType_OneComponent8))
        _ = CVPixelBufferLockBaseAddress(buffer, [])
        let base = CVPixelBufferGetBaseAddress(buffer)!.assumingMemoryBound(to: UInt8.self)
        let stride = CVPixelBufferGetBytesPerRow(buffer)
        for y in 0..<4 { for x in 0..<4 { base[y * stride + x] = UInt8(16 * (y * 4 + x)) } }
        _ = CVPixelBufferUnlockBaseAddress(buffer, [])
        // Mean of 0, 16, …, 240 is 120: brightness 120/255; the offset is optional.
        let plain = try regressor.prediction(image: buffer)
        #expect(abs(plain.brightness[0].doubleValue - 120.0 / 255) < 1e-5)
        let shifted = try regressor.prediction(image: buffer, offset: Self.array([1]))
        #expect(abs(shifted.brightness[0].doubleValue - (1 + 120.0 / 255)) < 1e-5)
        #expect(RegressorInput(image: buffer).featureValue(for: "offset") == nil)
    }

    /// A pipeline (feature extractor + k-NN) loads asynchronously through its generated class.
    @Test func aPipelineLoadsAsynchronously() async throws {
        let pipeline = try await PipelineKNN.load()
        let image = try MLMultiArray(shape: [1, 28, 28], dataType: .float32)
        let output = try pipeline.prediction(image: image)
        // The k-NN holds no samples yet: its default label.
        #expect(output.label == pipeline.model.specification.pipelineClassifier.pipeline.models.last?.kNearestNeighborsClassifier.defaultStringLabel)
    }
}
