import CoreMLSpec
import Foundation

/// A machine-learning model loaded from a Core ML model file.
///
/// ```swift
/// let model = try MLModel(contentsOf: URL(fileURLWithPath: "LeNet.mlmodel"))
/// print(model.modelDescription.inputDescriptionsByName)
/// ```
///
/// Differences from Core ML:
/// - `init(contentsOf:)` takes an `.mlmodel` file as well as a compiled `.mlmodelc` folder
///   (Core ML needs the compiled folder).
/// - Every model is ``MLWritable``, so a compiled model can be written back as an `.mlmodel`
///   (Core ML cannot turn a compiled model back).
open class MLModel: MLWritable, @unchecked Sendable {
    /// The model's specification, as read from the file (an OpenCoreML addition).
    public let specification: CoreML_Specification_Model
    /// What the model takes and produces: its inputs, outputs, training inputs, metadata, class labels and
    /// parameters.
    public let modelDescription: MLModelDescription
    /// The configuration the model was loaded with (a copy: later changes to the caller's object do not
    /// affect the model).
    public let configuration: MLModelConfiguration
    private let runnerCache = RunnerCache()
    /// The function of the program that predicts: the configuration's ``MLModelConfiguration/functionName``
    /// or the default one (`main` for every model that is not a multifunction ML Program).
    let functionName: String
    /// The specification with its linked models replaced by the models their files hold (set once,
    /// while loading from a file); nil when it has none.
    private var linkedSpecification: CoreML_Specification_Model?

    /// Loads and validates the model at `url` with the default configuration.
    ///
    /// - Parameter url: An `.mlmodel` file or a compiled `.mlmodelc` folder.
    /// - Throws: An ``MLModelError``: ``MLModelError/Code/io`` for a missing, unreadable or corrupt file,
    ///   ``MLModelError/Code/generic`` for a model that breaks one of Core ML's rules.
    public convenience init(contentsOf url: URL) throws {
        try self.init(contentsOf: url, configuration: MLModelConfiguration())
    }

    /// Loads and validates the model at `url`; `configuration.parameters` must be values the model allows.
    ///
    /// - Parameters:
    ///   - url: An `.mlmodel` file, an `.mlpackage` folder or a compiled `.mlmodelc` folder.
    ///   - configuration: The settings to load with; the model keeps a copy.
    /// - Throws: An ``MLModelError`` for a file that cannot be read, a model that is not valid, or a
    ///   parameter value the model does not allow (``MLModelError/Code/parameters``).
    public convenience init(contentsOf url: URL, configuration: MLModelConfiguration) throws {
        let specification: CoreML_Specification_Model
        do {
            // An ML Program's weights come into the program, so the model no longer needs its package.
            specification = try CoreML_Specification_Model(selfContainedContentsOf: url)
        } catch {
            throw MLModelError(wrapping: error)
        }
        try self.init(specification: specification, configuration: configuration)
        do {
            // Linked models are found now, so that a missing or misplaced file fails the load.
            linkedSpecification = try LinkedModelResolver.resolving(self.specification, loadedFrom: url)
        } catch {
            throw MLModelError(wrapping: error)
        }
    }

    /// Wraps a specification, validating it and the configuration's parameters (an OpenCoreML addition).
    ///
    /// - Parameters:
    ///   - specification: The model, as the `CoreMLSpec` module's message (for example one built with
    ///     `OpenCoreMLTools`).
    ///   - configuration: The settings to load with; the model keeps a copy.
    /// - Throws: An ``MLModelError`` for a model that is not valid or a parameter value it does not allow.
    public init(specification: CoreML_Specification_Model, configuration: MLModelConfiguration = MLModelConfiguration()) throws {
        do {
            try specification.validate()
        } catch {
            throw MLModelError(wrapping: error)
        }
        let function = try specification.selectingFunction(configuration.functionName)
        functionName = function.function
        let description = MLModelDescription(specification: function.model)
        let overrides = try description.checkOverrides(configuration.parameters ?? [:])
        // Layer weights given in the configuration replace the file's (checked: layer, blob, count).
        let specification = try Self.applyingLayerWeights(overrides, to: specification)
        self.specification = specification
        self.modelDescription = description
        self.configuration = configuration.copy()
        self.configuration.parameters = configuration.parameters == nil ? nil : overrides
    }

    /// Wraps a specification known to be valid (a trained copy of a validated model).
    init(trustedSpecification specification: CoreML_Specification_Model, configuration: MLModelConfiguration) {
        self.specification = specification
        modelDescription = MLModelDescription(specification: specification)
        self.configuration = configuration.copy()
        functionName = CoreML_Specification_MILSpec_Program.mainFunctionName
    }

    /// The compiled runner for predictions, made on first use.
    func runner() throws -> any ModelRunner {
        try runnerCache.runner { [specification, linkedSpecification, configuration, functionName] in
            let function = try (linkedSpecification ?? specification).selectingFunction(functionName)
            return try ModelRunners.make(function.model, parameters: configuration.parameters ?? [:], memoryLimit: configuration.resolvedMemoryLimit,
                                         loopWorkLimit: configuration.resolvedLoopWorkLimit, functionName: function.function)
        }
    }

    /// Compiles the model for prediction now rather than at the first prediction, so that an
    /// operation or layer that cannot run is reported when the model loads, as Core ML does (for the
    /// C interface, whose load compiles).
    package func prepareForPrediction() throws {
        _ = try runner()
    }

    /// Gives this model a runner already made for it (a trained model's, built incrementally).
    func install(runner: any ModelRunner) {
        runnerCache.install(runner)
    }

    /// The value a parameter has in this model: the configuration's override or the model's default,
    /// as `Int`, `Double` or `Bool`. For ``MLParameterKey/weights`` and ``MLParameterKey/biases``
    /// scoped to a layer (and ``MLParameterKey/layerWeight(_:)``, ours), the layer's current values as
    /// a float32 `MLMultiArray` — after training, the trained ones — shaped `[out, in]` for an inner
    /// product, `[out, kernelChannels, height, width]` for a convolution, flat otherwise. Core ML
    /// answers only for updatable layers; OpenCoreML for any layer. The same keys in
    /// `MLModelConfiguration.parameters` set the layer's values when the model loads.
    ///
    /// - Parameter key: One of the keys in ``MLModelDescription/parameterDescriptionsByKey``.
    /// - Returns: The value the model uses for `key`.
    /// - Throws: An ``MLModelError`` with ``MLModelError/Code/parameters`` when the model has no such
    ///   parameter.
    public func parameterValue(for key: MLParameterKey) throws -> Any {
        if let weights = try layerWeightValue(for: key) { return weights }
        if let value = configuration.parameters?[key] { return value }
        guard let description = modelDescription.parameterDescriptionsByKey[key] else {
            throw MLModelError(.parameters, "the model has no parameter '\(key.name)'")
        }
        return description.defaultValue
    }

    /// Writes the model (with any changes training made) as `.mlmodel` or `.mlmodelc`, atomically.
    ///
    /// - Parameter url: The destination; a name ending in `.mlmodelc` gives a compiled-model folder,
    ///   anything else an `.mlmodel` file. An existing file there is replaced only once the new one is
    ///   complete.
    /// - Throws: An ``MLModelError`` with ``MLModelError/Code/io`` when the file cannot be written.
    open func write(to url: URL) throws {
        do {
            try specification.write(to: url)
        } catch {
            throw MLModelError(wrapping: error)
        }
    }

    /// Validates the model at `url` and writes it as an OpenCoreML `.mlmodelc` folder in a new
    /// temporary folder, returning its location. Move it somewhere permanent to keep it.
    ///
    /// The compiled folder holds the full specification (see `CompiledModelLayout`), so it can be
    /// turned back into an `.mlmodel` with ``write(to:)``.
    ///
    /// - Parameter url: An `.mlmodel` file.
    /// - Returns: The location of the new `.mlmodelc` folder, named after the model file.
    /// - Throws: An ``MLModelError`` for a file that cannot be read or a model that is not valid.
    public static func compileModel(at url: URL) throws -> URL {
        let specification: CoreML_Specification_Model
        do {
            specification = try CoreML_Specification_Model(contentsOf: url)
            try specification.validate()
        } catch {
            throw MLModelError(wrapping: error)
        }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("opencoreml-compiled-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw MLModelError(.io, "\(folder.path): could not create a folder for the compiled model")
        }
        let name = url.deletingPathExtension().lastPathComponent
        let compiled = folder.appendingPathComponent(name).appendingPathExtension("mlmodelc")
        do {
            try specification.write(to: compiled)
        } catch {
            throw MLModelError(wrapping: error)
        }
        return compiled
    }

    /// The asynchronous form of ``compileModel(at:)``.
    public static func compileModel(at url: URL) async throws -> URL {
        try await Task.detached { try compileModel(at: url) }.value
    }
}
