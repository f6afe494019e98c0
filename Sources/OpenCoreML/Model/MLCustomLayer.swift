import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// The implementation of a neural network's `custom` layer, as in Core ML: a model names the
/// layer's class (`CustomLayerParams.className`), and the app supplies a class of that name.
///
/// ```swift
/// final class Swish: MLCustomLayer {
///     required init(parameters: [String: Any]) throws {}
///     func setWeightData(_ weights: [Data]) throws {}
///     func outputShapes(forInputShapes inputShapes: [[NSNumber]]) throws -> [[NSNumber]] { inputShapes }
///     func evaluate(inputs: [MLMultiArray], outputs: [MLMultiArray]) throws {
///         inputs[0].withUnsafeBufferPointer(ofType: Float.self) { x, _ in
///             outputs[0].withUnsafeMutableBufferPointer(ofType: Float.self) { y, _ in
///                 for i in x.indices { y[i] = x[i] / (1 + exp(-x[i])) }
///             }
///         }
///     }
/// }
/// MLCustomLayerRegistry.register(Swish.self, forClassName: "Swish")
/// ```
///
/// When a model is loaded, each custom layer gets an instance of its class: `init(parameters:)`
/// with the layer's parameters (numbers and booleans as `NSNumber`, text as `String`), then
/// `setWeightData(_:)` with its weights (each as the bytes the file stores: float32 values,
/// float16 values, or raw bytes). At every prediction `outputShapes(forInputShapes:)` gives the
/// output shapes and `evaluate(inputs:outputs:)` fills float32 arrays of those shapes. Under the
/// network's rank-5 mapping the arrays are `[Seq, Batch, C, H, W]`, as Core ML passes them; under
/// the exact (ND) mapping they have the blobs' own ranks.
///
/// Differences from Core ML: Core ML finds the class through the Objective-C runtime; here it is
/// found in ``MLCustomLayerRegistry`` (then by `NSClassFromString`, which on Linux knows a class by
/// its module-qualified name). There is no GPU path (`encode(commandBuffer:inputs:outputs:)`). A
/// layer instance is called from one prediction at a time.
public protocol MLCustomLayer: AnyObject {
    /// Makes the layer from the parameters the model stores for it.
    init(parameters: [String: Any]) throws
    /// Receives the layer's weights as the model stores them, once, after `init(parameters:)`.
    func setWeightData(_ weights: [Data]) throws
    /// The shapes of the layer's outputs for inputs of `inputShapes`.
    func outputShapes(forInputShapes inputShapes: [[NSNumber]]) throws -> [[NSNumber]]
    /// Fills `outputs` (allocated, float32, of the shapes last given by
    /// `outputShapes(forInputShapes:)`) from `inputs`, which it must not change.
    func evaluate(inputs: [MLMultiArray], outputs: [MLMultiArray]) throws
}

/// The classes that implement custom layers, by the class name models give for them: where
/// OpenCoreML looks first for a `custom` layer's class (Core ML asks the Objective-C runtime).
public enum MLCustomLayerRegistry {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var classes: [String: any MLCustomLayer.Type] = [:]

    /// Makes `layerType` the implementation of custom layers whose class name is `className`
    /// (replacing an earlier one) for models loaded from now on.
    public static func register(_ layerType: any MLCustomLayer.Type, forClassName className: String) {
        lock.withLock { classes[className] = layerType }
    }

    /// Forgets the implementation registered for `className`.
    public static func unregister(className: String) {
        lock.withLock { classes[className] = nil }
    }

    /// The class registered for `className`, else the class `NSClassFromString` finds by that
    /// name if it implements ``MLCustomLayer``.
    static func layerClass(named className: String) -> (any MLCustomLayer.Type)? {
        if let registered = lock.withLock({ classes[className] }) { return registered }
        return NSClassFromString(className) as? any MLCustomLayer.Type
    }

    /// An instance of its class for every custom layer of `network` (nested networks of branches
    /// and loops included), by layer name, as the engine's `custom_layer` operations take them.
    ///
    /// - Throws: `MLModelError.customLayer` naming the first layer whose class is not found or whose
    ///   `init(parameters:)` or `setWeightData(_:)` fails.
    static func operations(for network: any NeuralNetworkSpecification) throws -> [String: any CustomOperation] {
        var operations: [String: any CustomOperation] = [:]
        // Depth first, without recursion (a file can nest branches deeply).
        var pending = Array(network.layers.reversed())
        while let layer = pending.popLast() {
            for (_, nested) in layer.nestedNetworks.reversed() { pending += nested.layers.reversed() }
            guard case .custom(let p)? = layer.layer else { continue }
            let place = "layer '\(layer.name)' (custom class '\(p.className)')"
            guard let layerClass = layerClass(named: p.className) else {
                throw MLModelError(.customLayer, "\(place): no implementation is registered; register a class conforming to MLCustomLayer "
                    + "with MLCustomLayerRegistry.register(_:forClassName:)")
            }
            do {
                let instance = try layerClass.init(parameters: parameters(p))
                try instance.setWeightData(p.weights.map(weightData))
                operations[layer.name] = CustomLayerOperation(layer: instance, place: place)
            } catch let error as MLModelError {
                throw error
            } catch {
                throw MLModelError(.customLayer, "\(place): \(error)")
            }
        }
        return operations
    }

    /// The layer's parameters as Core ML gives them: numbers and booleans as `NSNumber`, text as `String`.
    private static func parameters(_ p: CoreML_Specification_CustomLayerParams) -> [String: Any] {
        p.parameters.compactMapValues { parameter -> Any? in
            switch parameter.value {
            case .doubleValue(let value)?: return NSNumber(value: value)
            case .intValue(let value)?: return NSNumber(value: value)
            case .longValue(let value)?: return NSNumber(value: value)
            case .boolValue(let value)?: return NSNumber(value: value)
            case .stringValue(let value)?: return value
            case nil: return nil
            }
        }
    }

    /// A weight's stored bytes: its float32 values, else its float16 values, else its raw bytes.
    private static func weightData(_ weights: CoreML_Specification_WeightParams) -> Data {
        if !weights.floatValue.isEmpty { return weights.floatValue.withUnsafeBufferPointer { Data(buffer: $0) } }
        if !weights.float16Value.isEmpty { return weights.float16Value }
        return weights.rawValue
    }
}

/// An ``MLCustomLayer`` as the engine calls it: inputs and outputs copied to and from float32
/// multi-arrays; one call at a time (the app's class need not be thread-safe).
private final class CustomLayerOperation: CustomOperation, @unchecked Sendable {
    private let layer: any MLCustomLayer
    private let place: String
    private let lock = NSLock()

    init(layer: any MLCustomLayer, place: String) {
        self.layer = layer
        self.place = place
    }

    func outputShapes(_ inputShapes: [[Int]]) throws -> [[Int]] {
        try call {
            try layer.outputShapes(forInputShapes: inputShapes.map { $0.map { NSNumber(value: $0) } }).map { $0.map(\.intValue) }
        }
    }

    func evaluate(_ inputs: [MILTensor], _ outputs: inout [MILTensor]) throws {
        let inputArrays = try inputs.map { tensor in
            let array = try Self.array(tensor.shape)
            array.withUnsafeMutableBufferPointer(ofType: Float.self) { destination, _ in
                _ = destination.update(fromContentsOf: tensor.values)
            }
            return array
        }
        let outputArrays = try outputs.map { try Self.array($0.shape) }
        try call { try layer.evaluate(inputs: inputArrays, outputs: outputArrays) }
        for (index, array) in outputArrays.enumerated() {
            array.withUnsafeBufferPointer(ofType: Float.self) { source, _ in
                outputs[index].values.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: source) }
            }
        }
    }

    /// A zero-filled float32 array of `shape` (an empty one for a shape with a zero size, which
    /// `MLMultiArray(shape:dataType:)` refuses; `[1]` for a scalar).
    private static func array(_ shape: [Int]) throws -> MLMultiArray {
        let shape = shape.isEmpty ? [1] : shape  // a scalar as one value: a multi-array has a rank
        if shape.contains(0) { return try MLMultiArray.empty(shape: shape, dataType: .float32) }
        return try MLMultiArray(shape: shape.map { NSNumber(value: $0) }, dataType: .float32)
    }

    /// `body` with the layer to itself; what the app's class throws becomes an error naming the layer.
    private func call<Result>(_ body: () throws -> Result) throws -> Result {
        lock.lock()
        defer { lock.unlock() }
        do {
            return try body()
        } catch let error as MLModelError {
            throw error
        } catch {
            throw MLModelError(.customLayer, "\(place): \(error)")
        }
    }
}
