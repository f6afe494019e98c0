import CoreMLSpec
import Foundation

/// Everything `opencoreml inspect` shows about a model, as plain values. Encoded as JSON for `--json`
/// (keys are stable; absent sections are omitted) and rendered as text for a terminal.
struct ModelReport: Encodable {
    struct Feature: Encodable {
        var name: String
        var type: String
        var dataType: String?
        var shape: [Int64]?
        /// A flexible multi-array's size ranges, `[lower, upper]` per dimension (upper -1 when unbounded).
        var shapeRanges: [[Int64]]?
        /// A flexible multi-array's enumerated shapes.
        var enumeratedShapes: [[Int64]]?
        var keyType: String?
        var colorSpace: String?
        var width: Int64?
        var height: Int64?
        var isOptional: Bool
        var shortDescription: String?
    }

    /// One function a multifunction model describes (iOS 18): what `--function NAME` predicts with.
    struct DescribedFunction: Encodable {
        var name: String
        var isDefault: Bool
        var inputs: [Feature]
        var outputs: [Feature]
        var states: [Feature]
    }

    struct Metadata: Encodable {
        var author: String?
        var license: String?
        var shortDescription: String?
        var versionString: String?
        var userDefined: [String: String]
    }

    struct Layer: Encodable {
        var name: String
        var type: String
        var inputs: [String]
        var outputs: [String]
        var parameterCount: Int
        var isUpdatable: Bool
        /// Whether OpenCoreML runs the layer's type (the key's name predates the full schema).
        var isModeled: Bool
    }

    /// A parameter's default and what it may be changed to.
    struct Parameter: Encodable {
        var defaultValue: Double
        var range: [Double]?
        var set: [Double]?
    }

    struct Loss: Encodable {
        var name: String
        var type: String
        var input: String
        var target: String
    }

    struct Optimizer: Encodable {
        var type: String
        var learningRate: Parameter?
        var miniBatchSize: Parameter?
        var momentum: Parameter?
        var beta1: Parameter?
        var beta2: Parameter?
        var eps: Parameter?
    }

    struct UpdateParameters: Encodable {
        var losses: [Loss]
        var optimizer: Optimizer?
        var epochs: Parameter?
        var shuffle: Bool?
        var seed: Parameter?
    }

    struct NeuralNetwork: Encodable {
        var layerCount: Int
        var parameterCount: Int
        var updatableParameterCount: Int
        var layers: [Layer]
        var updateParameters: UpdateParameters?
    }

    struct NearestNeighbors: Encodable {
        var numberOfDimensions: Int
        var sampleCount: Int
        var numberOfNeighbors: Parameter
        var indexType: String
        var leafSize: Int?
        var weighting: String
        var distance: String
        var labelType: String
        var labelCounts: [String: Int]
        var defaultLabel: String?
    }

    struct LinearClassifier: Encodable {
        var classEncoding: String
        var postEvaluationTransform: String
        var classCount: Int
        var inputDimensions: Int
    }

    /// An ML Program: its functions, operations and stored weights.
    struct MLProgram: Codable {
        struct Function: Codable {
            var name: String
            var opset: String
            var inputs: [String]
            var outputs: [String]
        }
        struct OperationCount: Codable {
            var type: String
            var count: Int
        }
        struct WeightType: Codable {
            var dataType: String
            var blobs: Int
            var values: Int
            var bytes: Int
        }
        var functions: [Function]
        var operationCount: Int
        var operations: [OperationCount]
        /// Values in blob files by stored type (nil when the package was not at hand).
        var weights: [WeightType]?
        var immediateBytes: Int?
    }

    var path: String?
    var modelType: String
    var specificationVersion: Int
    var coreMLVersion: String
    var isUpdatable: Bool
    var metadata: Metadata
    var inputs: [Feature]
    var outputs: [Feature]
    var trainingInputs: [Feature]
    /// The states of a stateful model (iOS 18), empty for others.
    var states: [Feature]
    /// A multifunction model's functions, the default one marked; nil for other models.
    var functions: [DescribedFunction]?
    var predictedFeatureName: String?
    var predictedProbabilitiesName: String?
    var classLabels: [String]?
    var neuralNetwork: NeuralNetwork?
    var kNearestNeighbors: NearestNeighbors?
    var glmClassifier: LinearClassifier?
    /// What a classic model (trees, SVM, scaler, NMS, …) holds, in one line.
    var summary: String?
    var mlProgram: MLProgram?
    /// The models of a pipeline, in order, with their names.
    var pipeline: [ModelReport]?
    var pipelineModelName: String?
    var issues: [String]
}
