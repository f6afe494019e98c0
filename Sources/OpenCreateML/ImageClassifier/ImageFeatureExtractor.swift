import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCoreMLTools
import _OpenCoreMLImageIO

/// A Core ML feature extractor run on picture files: one image input, one multi-array output of
/// `featureCount` values. Built from a neural network with exactly that, or cut from a neural
/// network classifier at its one multi-array output.
public struct ImageFeatureExtractor: @unchecked Sendable {
    /// The extractor as stored in exported pipelines.
    public let specification: CoreML_Specification_Model
    /// The name of the extractor's image input.
    public let inputName: String
    /// The name of the extractor's multi-array output: the features.
    public let outputName: String
    /// The number of values the extractor gives per picture.
    public let featureCount: Int
    /// A hash of the model file's bytes: extracted features are cached under it.
    public let fingerprint: String
    let model: MLModel
    let constraint: MLImageConstraint

    /// Loads the feature extractor in the model file at `url`.
    ///
    /// - Parameters:
    ///   - url: An `.mlmodel` file: a neural network (or neural-network classifier) with one
    ///     input, an image.
    ///   - outputName: The blob whose values are the features (a layer output or a model output):
    ///     the network is cut after the layer that writes it. nil: the model's one multi-array
    ///     output (a classifier is cut there).
    /// - Throws: A ``CreateMLError`` naming the file when it cannot be read or is not such a model.
    public init(contentsOf url: URL, outputName: String? = nil) throws {
        let location = "feature extractor \(url.path)"
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw CreateMLError(location, "cannot read the file") }
        var spec: CoreML_Specification_Model
        do { spec = try CoreML_Specification_Model(serializedModel: data, path: url.path) } catch { throw CreateMLError(location, "not a Core ML model (\(error))") }
        let images = spec.description_p.input.filter { if case .imageType? = $0.type.type { return true } else { return false } }
        guard images.count == 1, spec.description_p.input.count == 1 else {
            throw CreateMLError(location, "not a feature extractor: it needs exactly one input, an image (it has \(spec.description_p.input.map(\.name).joined(separator: ", ")))")
        }
        if let outputName {
            switch spec.type {
            case .neuralNetwork?, .neuralNetworkClassifier?, .neuralNetworkRegressor?:
                do { spec = try spec.featureExtractor(outputBlob: outputName) } catch {
                    throw CreateMLError(location, "cannot cut the network at '\(outputName)': \(error)")
                }
            default:
                throw CreateMLError(location, "not a feature extractor: a neural network is needed, not a \(spec.modelTypeName)")
            }
        }
        let arrays = spec.description_p.output.filter { if case .multiArrayType? = $0.type.type { return true } else { return false } }
        guard arrays.count == 1 else {
            throw CreateMLError(location, "not a feature extractor: it needs exactly one multi-array output, found \(arrays.count)"
                                + (arrays.count > 1 ? " (name one as the output: \(arrays.map(\.name).joined(separator: ", ")))" : ""))
        }
        switch spec.type {
        case .neuralNetwork?:
            if spec.description_p.output.count != 1 {
                throw CreateMLError(location, "not a feature extractor: it has outputs other than '\(arrays[0].name)'")
            }
        case .neuralNetworkClassifier?:
            do { spec = try spec.featureExtractor(outputBlob: arrays[0].name) } catch {
                throw CreateMLError(location, "cannot cut the classifier at '\(arrays[0].name)': \(error)")
            }
        default:
            throw CreateMLError(location, "not a feature extractor: a neural network is needed, not a \(spec.modelTypeName)")
        }
        spec.isUpdatable = false
        spec.description_p.trainingInput = []
        let shape = spec.description_p.output[0].type.multiArrayType.shape
        guard let count = checkedProduct(shape), count > 0 else {
            throw CreateMLError(location, "the output '\(arrays[0].name)' has no usable shape (\(shape))")
        }
        if shape.count > 1 { try Self.flattenOutput(&spec, count: Int64(count), location: location) }
        let model: MLModel
        do { model = try MLModel(specification: spec) } catch { throw CreateMLError(location, "\(error)") }
        guard let constraint = model.modelDescription.inputDescriptionsByName[images[0].name]?.imageConstraint else {
            throw CreateMLError(location, "the image input has no size")
        }
        self.specification = spec
        self.inputName = images[0].name
        self.outputName = arrays[0].name
        self.featureCount = count
        self.fingerprint = Self.hash(data) + (outputName.map { "-" + Self.hash($0) } ?? "")
        self.model = model
        self.constraint = constraint
    }

    /// Makes the output of C×H×W values one vector of C·H·W (channel first), so that the
    /// classifier after it sees a vector: the layer writing the output writes `<name>_unflattened`,
    /// and a flatten layer writes the output from it.
    static func flattenOutput(_ spec: inout CoreML_Specification_Model, count: Int64, location: String) throws {
        let name = spec.description_p.output[0].name
        var layers = spec.neuralNetwork.layers
        guard let producer = layers.lastIndex(where: { $0.output.contains(name) }) else {
            throw CreateMLError(location, "no layer writes the output '\(name)'")
        }
        let unflattened = name + "_unflattened"
        layers[producer].output = layers[producer].output.map { $0 == name ? unflattened : $0 }
        layers.append(try Flatten(name: name + "_flatten", input: [unflattened], output: [name], mode: .first).layerSpecification())
        spec.neuralNetwork.layers = layers
        spec.description_p.output[0].type.multiArrayType.shape = [count]
    }

    /// The features of the picture at `url`.
    public func features(ofImageAt url: URL) throws -> [Float] {
        let value: MLFeatureValue
        do { value = try MLFeatureValue(imageAt: url, constraint: constraint) } catch {
            throw CreateMLError(url.path, "cannot read the picture: \(error)")
        }
        return try features(of: value, name: url.path)
    }

    /// The features of a decoded picture (for example an augmented one).
    func features(of image: RGBAImage, name: String) throws -> [Float] {
        try features(of: MLFeatureValue(image: image, constraint: constraint, name: name), name: name)
    }

    private func features(of value: MLFeatureValue, name: String) throws -> [Float] {
        let output = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: [inputName: value]))
        guard let array = output.featureValue(for: outputName)?.multiArrayValue else {
            throw CreateMLError(name, "the feature extractor gave no '\(outputName)'")
        }
        let values = array.floatValues()
        guard values.count == featureCount, values.allSatisfy(\.isFinite) else {
            throw CreateMLError(name, "the feature extractor gave \(values.count) values (expected \(featureCount) finite ones)")
        }
        return values
    }

    /// 128 bits of two FNV-1a hashes (different offsets) as hex.
    static func hash(_ data: Data) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x8422_2325_cbf2_9ce4
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            for byte in bytes {
                a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
                b = (b ^ UInt64(byte)) &* 0x100_0000_01b3 &+ 1
            }
        }
        return String(format: "%016llx%016llx", a, b)
    }

    static func hash(_ text: String) -> String { hash(Data(text.utf8)) }
}
