import CoreMLSpec
import Foundation
import OpenCoreML
import Testing

/// Non-maximum suppression models built in Swift, against answers worked by hand.
@Suite("Non-maximum suppression")
struct NonMaximumSuppressionTests {
    typealias Spec = CoreML_Specification_Model

    static func arrayFeature(_ name: String, shape: [Int64] = [], dataType: CoreML_Specification_ArrayFeatureType.ArrayDataType = .double,
                             rows: CoreML_Specification_SizeRange? = nil, columns: CoreML_Specification_SizeRange? = nil) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        var array = CoreML_Specification_ArrayFeatureType()
        array.dataType = dataType
        array.shape = shape
        if let rows, let columns {
            var range = CoreML_Specification_ArrayFeatureType.ShapeRange()
            range.sizeRanges = [rows, columns]
            array.shapeRange = range
        }
        feature.type.multiArrayType = array
        return feature
    }

    static func doubleFeature(_ name: String) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        feature.type.doubleType = CoreML_Specification_DoubleFeatureType()
        feature.type.isOptional = true
        return feature
    }

    static func sizeRange(_ lower: UInt64, _ upper: Int64) -> CoreML_Specification_SizeRange {
        var range = CoreML_Specification_SizeRange()
        range.lowerBound = lower
        range.upperBound = upper
        return range
    }

    /// A suppression of boxes × 2 classes ("cat", "dog") with IoU threshold 0.5 and confidence
    /// threshold 0.3, optional threshold inputs "iou" and "minimum".
    static func model(perClass: Bool = false, dataType: CoreML_Specification_ArrayFeatureType.ArrayDataType = .double,
                      outputShape: [Int64] = [], coordinatesShape: [Int64]? = nil, thresholdInputs: Bool = true) -> Spec {
        var spec = Spec()
        spec.specificationVersion = 5
        var suppression = CoreML_Specification_NonMaximumSuppression()
        var pickTop = CoreML_Specification_NonMaximumSuppression.PickTop()
        pickTop.perClass = perClass
        suppression.pickTop = pickTop
        var labels = CoreML_Specification_StringVector()
        labels.vector = ["cat", "dog"]
        suppression.stringClassLabels = labels
        suppression.iouThreshold = 0.5
        suppression.confidenceThreshold = 0.3
        suppression.confidenceInputFeatureName = "rawConfidence"
        suppression.coordinatesInputFeatureName = "rawCoordinates"
        suppression.confidenceOutputFeatureName = "confidence"
        suppression.coordinatesOutputFeatureName = "coordinates"
        spec.description_p.input = [arrayFeature("rawConfidence", shape: [5, 2], dataType: dataType), arrayFeature("rawCoordinates", shape: [5, 4], dataType: dataType)]
        if thresholdInputs {
            suppression.iouThresholdInputFeatureName = "iou"
            suppression.confidenceThresholdInputFeatureName = "minimum"
            spec.description_p.input += [doubleFeature("iou"), doubleFeature("minimum")]
        }
        spec.description_p.output = [arrayFeature("confidence", shape: outputShape, dataType: dataType),
                                     arrayFeature("coordinates", shape: coordinatesShape ?? (outputShape.isEmpty ? [] : [outputShape[0], 4]), dataType: dataType)]
        spec.nonMaximumSuppression = suppression
        return spec
    }

    /// Five boxes (rows: cat, dog confidences; centerX, centerY, width, height):
    /// - 0: (0.9, 0.05) at (0.5, 0.5, 0.4, 0.4)
    /// - 1: (0.8, 0.1) at (0.52, 0.5, 0.4, 0.4): IoU with box 0 = 0.38·0.4 / (0.16 + 0.16 − 0.152) = 0.152 / 0.168 ≈ 0.905
    /// - 2: (0.1, 0.7) at box 0's place: IoU 1, but a dog
    /// - 3: (0.2, 0.1): its best, 0.2, is below the threshold 0.3
    /// - 4: (0.05, 0.6) at (0.1, 0.1, 0.1, 0.1): overlaps nothing
    static let confidences: [[Double]] = [[0.9, 0.05], [0.8, 0.1], [0.1, 0.7], [0.2, 0.1], [0.05, 0.6]]
    static let boxes: [[Double]] = [[0.5, 0.5, 0.4, 0.4], [0.52, 0.5, 0.4, 0.4], [0.5, 0.5, 0.4, 0.4], [0.3, 0.3, 0.2, 0.2], [0.1, 0.1, 0.1, 0.1]]

    static func array(_ rows: [[Double]], dataType: MLMultiArrayDataType = .double) throws -> MLMultiArray {
        let array = try MLMultiArray(shape: [NSNumber(value: rows.count), NSNumber(value: rows[0].count)], dataType: dataType)
        for (r, row) in rows.enumerated() { for (c, value) in row.enumerated() { array[r * row.count + c] = NSNumber(value: value) } }
        return array
    }

    static func rows(_ array: MLMultiArray) -> [[Double]] {
        let shape = array.shape.map(\.intValue)
        return (0..<shape[0]).map { r in (0..<shape[1]).map { c in array[r * shape[1] + c].doubleValue } }
    }

    /// The kept confidences and coordinates for `extra` inputs.
    static func predict(_ spec: Spec, extra: [String: MLFeatureValue] = [:], dataType: MLMultiArrayDataType = .double) throws -> (confidence: MLMultiArray, coordinates: MLMultiArray) {
        let model = try MLModel(specification: spec)
        var inputs: [String: MLFeatureValue] = ["rawConfidence": MLFeatureValue(multiArray: try array(confidences, dataType: dataType)),
                                                "rawCoordinates": MLFeatureValue(multiArray: try array(boxes, dataType: dataType))]
        inputs.merge(extra) { $1 }
        let output = try model.prediction(from: MLDictionaryFeatureProvider(featureValues: inputs))
        return (try #require(output.featureValue(for: "confidence")?.multiArrayValue), try #require(output.featureValue(for: "coordinates")?.multiArrayValue))
    }

    @Test func keepsTheMostConfidentOfOverlappingBoxesOfAnyClass() throws {
        // Box 1 and box 2 overlap box 0 (IoU 0.905 and 1 > 0.5); box 3 is below the threshold.
        let (confidence, coordinates) = try Self.predict(Self.model())
        #expect(Self.rows(confidence) == [Self.confidences[0], Self.confidences[4]])
        #expect(Self.rows(coordinates) == [Self.boxes[0], Self.boxes[4]])
        #expect(confidence.dataType == .double)
    }

    @Test func perClassSuppressesOnlyBoxesOfTheSameTopClass() throws {
        // Box 2 is a dog: box 0 (a cat) does not suppress it. Order: 0.9, 0.7, 0.6.
        let (confidence, coordinates) = try Self.predict(Self.model(perClass: true))
        #expect(Self.rows(confidence) == [Self.confidences[0], Self.confidences[2], Self.confidences[4]])
        #expect(Self.rows(coordinates) == [Self.boxes[0], Self.boxes[2], Self.boxes[4]])
    }

    @Test func thresholdInputsReplaceTheDefaults() throws {
        // Confidence threshold 0.65: only boxes 0, 1, 2 remain; 1 and 2 are suppressed by 0.
        let strict = try Self.predict(Self.model(), extra: ["minimum": MLFeatureValue(double: 0.65)])
        #expect(Self.rows(strict.confidence) == [Self.confidences[0]])
        // IoU threshold 0.95: box 1 (IoU 0.905) survives, box 2 (IoU 1) does not.
        let loose = try Self.predict(Self.model(), extra: ["iou": MLFeatureValue(double: 0.95)])
        #expect(Self.rows(loose.coordinates) == [Self.boxes[0], Self.boxes[1], Self.boxes[4]])
        // A missing optional input keeps the default.
        let defaults = try Self.predict(Self.model(), extra: ["iou": MLFeatureValue(undefined: .double)])
        #expect(Self.rows(defaults.coordinates) == [Self.boxes[0], Self.boxes[4]])
        // A required threshold input must be given.
        var required = Self.model()
        required.description_p.input[2].type.isOptional = false
        #expect(throws: MLModelError.self) { try Self.predict(required) }
        #expect(Self.rows(try Self.predict(required, extra: ["iou": MLFeatureValue(double: 0.95)]).coordinates).count == 3)
    }

    @Test func keepingNoBoxGivesEmptyRows() throws {
        let (confidence, coordinates) = try Self.predict(Self.model(), extra: ["minimum": MLFeatureValue(double: 0.95)])
        #expect(confidence.shape == [0, 2])
        #expect(coordinates.shape == [0, 4])
        #expect(confidence.count == 0)
    }

    @Test func aFixedOutputShapePadsWithZeroRowsAndCuts() throws {
        let padded = try Self.predict(Self.model(outputShape: [3, 2]))
        #expect(Self.rows(padded.confidence) == [Self.confidences[0], Self.confidences[4], [0, 0]])
        #expect(Self.rows(padded.coordinates) == [Self.boxes[0], Self.boxes[4], [0, 0, 0, 0]])
        let cut = try Self.predict(Self.model(outputShape: [1, 2]))
        #expect(Self.rows(cut.confidence) == [Self.confidences[0]])
    }

    @Test func aRangeOfRowsPadsToItsLowerAndCutsAtItsUpperBound() throws {
        var spec = Self.model()
        let columns = Self.sizeRange(2, 2)
        spec.description_p.output = [Self.arrayFeature("confidence", rows: Self.sizeRange(4, 10), columns: columns),
                                     Self.arrayFeature("coordinates", rows: Self.sizeRange(4, 10), columns: Self.sizeRange(4, 4))]
        #expect(Self.rows(try Self.predict(spec).confidence).count == 4)
        spec.description_p.output = [Self.arrayFeature("confidence", rows: Self.sizeRange(0, 1), columns: columns),
                                     Self.arrayFeature("coordinates", rows: Self.sizeRange(0, 1), columns: Self.sizeRange(4, 4))]
        #expect(Self.rows(try Self.predict(spec).coordinates) == [Self.boxes[0]])
    }

    @Test func float32ModelsGiveFloat32Outputs() throws {
        let (confidence, coordinates) = try Self.predict(Self.model(dataType: .float32), dataType: .float32)
        #expect(confidence.dataType == .float32 && coordinates.dataType == .float32)
        #expect(Self.rows(coordinates) == [Self.boxes[0], Self.boxes[4]].map { $0.map { Double(Float($0)) } })
    }

    @Test func mismatchedInputsAreErrorsNamingTheInput() throws {
        let model = try MLModel(specification: Self.model())
        let inputs: [String: MLFeatureValue] = ["rawConfidence": MLFeatureValue(multiArray: try Self.array(Self.confidences)),
                                                "rawCoordinates": MLFeatureValue(multiArray: try Self.array(Array(Self.boxes.prefix(3))))]
        #expect(throws: MLModelError.self) { try model.prediction(from: MLDictionaryFeatureProvider(featureValues: inputs)) }
        let wrongWidth: [String: MLFeatureValue] = ["rawConfidence": MLFeatureValue(multiArray: try Self.array(Self.confidences)),
                                                    "rawCoordinates": MLFeatureValue(multiArray: try Self.array(Self.confidences))]
        do {
            _ = try model.prediction(from: MLDictionaryFeatureProvider(featureValues: wrongWidth))
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("rawCoordinates"))
        }
    }

    // MARK: Validation

    @Test func validationFollowsCoreMLsRules() {
        #expect(Self.model().validationIssues().isEmpty)
        var spec = Self.model()
        spec.nonMaximumSuppression.iouThreshold = 1.5
        #expect(spec.validationIssues().contains { "\($0)".contains("iouThreshold") })
        spec = Self.model()
        spec.nonMaximumSuppression.confidenceThreshold = -0.1
        #expect(spec.validationIssues().contains { "\($0)".contains("confidenceThreshold") })
        spec = Self.model()
        spec.description_p.input.append(Self.doubleFeature("extra"))
        #expect(spec.validationIssues().contains { "\($0)".contains("extra") })
        spec = Self.model()
        spec.nonMaximumSuppression.coordinatesOutputFeatureName = "boxes"
        #expect(spec.validationIssues().contains { "\($0)".contains("boxes") })
        // Float32 needs specification version 5; element types must agree.
        spec = Self.model(dataType: .float32)
        spec.specificationVersion = 4
        #expect(!spec.validationIssues().isEmpty)
        spec = Self.model()
        spec.description_p.output[1].type.multiArrayType.dataType = .float32
        #expect(spec.validationIssues().contains { "\($0)".contains("element type") })
        // Declared shapes: two dimensions, the same rows, as many columns as labels.
        #expect(Self.model(outputShape: [3, 2]).validationIssues().isEmpty)
        #expect(Self.model(outputShape: [3, 2], coordinatesShape: [4, 4]).validationIssues().contains { "\($0)".contains("same number of rows") })
        #expect(Self.model(outputShape: [3, 5]).validationIssues().contains { "\($0)".contains("class labels") })
        #expect(!Self.model(outputShape: [3, 2, 1], coordinatesShape: [3, 4, 1]).validationIssues().isEmpty)
        spec = Self.model()
        spec.description_p.input[2].type.int64Type = CoreML_Specification_Int64FeatureType()
        #expect(spec.validationIssues().contains { "\($0)".contains("must be a double") })
    }
}
