import CoreMLSpec
import Foundation
import OpenCoreMLTools
import OpenVision
import Testing

/// `VNCoreMLRequest` on a detector pipeline (a network, then non-maximum suppression) gives
/// `VNRecognizedObjectObservation`s.
@Suite("Vision object detection")
struct ObjectDetectionTests {
    /// The suppression: two classes, "cat" and "dog", IoU threshold 0.5, confidence threshold 0.3.
    static func suppression(labels: [String] = ["cat", "dog"]) -> CoreML_Specification_Model {
        func array(_ name: String, shape: [Int64] = []) -> CoreML_Specification_FeatureDescription {
            var feature = CoreML_Specification_FeatureDescription()
            feature.name = name
            var type = CoreML_Specification_ArrayFeatureType()
            type.dataType = .double
            type.shape = shape
            feature.type.multiArrayType = type
            return feature
        }
        var spec = CoreML_Specification_Model()
        spec.specificationVersion = 4
        var nms = CoreML_Specification_NonMaximumSuppression()
        nms.pickTop = CoreML_Specification_NonMaximumSuppression.PickTop()
        if !labels.isEmpty {
            var vector = CoreML_Specification_StringVector()
            vector.vector = labels
            nms.stringClassLabels = vector
        }
        nms.iouThreshold = 0.5
        nms.confidenceThreshold = 0.3
        nms.confidenceInputFeatureName = "rawConfidence"
        nms.coordinatesInputFeatureName = "rawCoordinates"
        nms.confidenceOutputFeatureName = "confidence"
        nms.coordinatesOutputFeatureName = "coordinates"
        spec.nonMaximumSuppression = nms
        spec.description_p.input = [array("rawConfidence", shape: [2, 2]), array("rawCoordinates", shape: [2, 4])]
        spec.description_p.output = [array("confidence"), array("coordinates")]
        return spec
    }

    /// A detector of two fixed boxes whose confidences follow the picture's mean red r (0…1):
    /// box 0 at (centerX 0.25, centerY 0.25, width 0.2, height 0.3), cat 0.6·r, dog 0.2·r;
    /// box 1 at (0.7, 0.6, 0.4, 0.2), cat 0.1·r, dog 0.5·r. The boxes do not overlap.
    static func detector(labels: [String] = ["cat", "dog"]) throws -> MLModel {
        let model = Model(version: 4, shortDescription: "Two boxes") {
            Input(name: "image", shape: [3, 8, 8], featureType: .image(colorSpace: .rgb))
            Pipeline {
                Model(version: 4) {
                    Input(name: "image", shape: [3, 8, 8], featureType: .image(colorSpace: .rgb))
                    Output(name: "rawConfidence", shape: [2, 2], featureType: .double)
                    Output(name: "rawCoordinates", shape: [2, 4], featureType: .double)
                    NeuralNetwork(preprocessing: [ImagePreprocessing(featureName: "image", scale: 1 / 255)]) {
                        Pooling(name: "mean", input: ["image"], output: ["means"], poolingType: .average, kernelSize: [], stride: [], globalPooling: true)
                        InnerProduct(name: "scores", input: ["means"], output: ["rawConfidence"],
                                     weight: [0.6, 0, 0, 0.2, 0, 0, 0.1, 0, 0, 0.5, 0, 0], bias: [0, 0, 0, 0], inputChannels: 3, outputChannels: 4)
                        InnerProduct(name: "boxes", input: ["means"], output: ["rawCoordinates"], weight: [Float](repeating: 0, count: 24),
                                     bias: [0.25, 0.25, 0.2, 0.3, 0.7, 0.6, 0.4, 0.2], inputChannels: 3, outputChannels: 8)
                    }
                }
                suppression(labels: labels)
            }
        }
        return try MLModel(specification: model.makeSpecification())
    }

    static func perform(_ model: MLModel, colour: SIMD3<UInt8>) throws -> [VNObservation] {
        let request = VNCoreMLRequest(model: try VNCoreMLModel(for: model))
        request.imageCropAndScaleOption = .scaleFill
        try VNImageRequestHandler(cvPixelBuffer: Grid(width: 8, height: 8) { _, _ in colour }.pixelBuffer()).perform([request])
        return try #require(request.results)
    }

    static func close(_ a: CGRect, _ b: CGRect) -> Bool {
        abs(a.minX - b.minX) < 1e-5 && abs(a.minY - b.minY) < 1e-5 && abs(a.width - b.width) < 1e-5 && abs(a.height - b.height) < 1e-5
    }

    @Test func aDetectorPipelineGivesRecognizedObjects() throws {
        let results = try Self.perform(try Self.detector(), colour: [255, 0, 0])
        let objects = try #require(results as? [VNRecognizedObjectObservation])
        try #require(objects.count == 2)
        // Box 0 (best 0.6) first. Its confidence is the sum 0.8; its labels the shares 0.6/0.8 and
        // 0.2/0.8. Box: x 0.25 − 0.1 = 0.15; y from the bottom 1 − 0.25 − 0.15 = 0.6.
        #expect(abs(objects[0].confidence - 0.8) < 1e-5)
        #expect(objects[0].labels.map(\.identifier) == ["cat", "dog"])
        #expect(abs(objects[0].labels[0].confidence - 0.75) < 1e-5 && abs(objects[0].labels[1].confidence - 0.25) < 1e-5)
        #expect(Self.close(objects[0].boundingBox, CGRect(x: 0.15, y: 0.6, width: 0.2, height: 0.3)))
        // Box 1: sum 0.6, dog 0.5/0.6 first; x 0.7 − 0.2 = 0.5, y 1 − 0.6 − 0.1 = 0.3.
        #expect(abs(objects[1].confidence - 0.6) < 1e-5)
        #expect(objects[1].labels.map(\.identifier) == ["dog", "cat"])
        #expect(abs(objects[1].labels[0].confidence - 5.0 / 6) < 1e-5)
        #expect(Self.close(objects[1].boundingBox, CGRect(x: 0.5, y: 0.3, width: 0.4, height: 0.2)))
    }

    @Test func noDetectionGivesNoObservations() throws {
        // A blue picture: every confidence is 0, below the threshold; the suppression keeps nothing.
        let results = try Self.perform(try Self.detector(), colour: [0, 0, 255])
        #expect(results.isEmpty)
    }

    @Test func withoutClassLabelsTheIdentifiersAreClassNumbers() throws {
        let results = try Self.perform(try Self.detector(labels: []), colour: [255, 0, 0])
        let objects = try #require(results as? [VNRecognizedObjectObservation])
        #expect(objects.map { $0.labels.map(\.identifier) } == [["0", "1"], ["1", "0"]])
    }

    @Test func aNetworkWithoutSuppressionGivesFeatureValues() throws {
        // As in Vision: outputs named like a detector's are not boxes without the suppression model.
        let spec = try Self.detector().specification.pipelineModels[0]
        let results = try Self.perform(try MLModel(specification: spec), colour: [255, 0, 0])
        #expect(results.allSatisfy { $0 is VNCoreMLFeatureValueObservation })
        #expect(results.count == 2)
    }
}
