import CoreMLSpec
import Foundation

/// The small pieces of specifications tests build models from.
public enum TestSpecs {
    /// A float32 multi-array feature.
    public static func array(_ name: String, _ shape: [Int64]) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        feature.type.multiArrayType.shape = shape
        feature.type.multiArrayType.dataType = .float32
        return feature
    }

    /// A feature of another type, set by `configure` (`$0.stringType = .init()`, …).
    public static func feature(_ name: String, _ configure: (inout CoreML_Specification_FeatureType) -> Void) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        configure(&feature.type)
        return feature
    }

    /// A model (specification version 4) with these inputs and outputs, its type set by `configure`.
    public static func model(_ inputs: [CoreML_Specification_FeatureDescription], _ outputs: [CoreML_Specification_FeatureDescription],
                             _ configure: (inout CoreML_Specification_Model) -> Void) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = inputs
        model.description_p.output = outputs
        configure(&model)
        return model
    }

    /// Float32 weights holding `values`.
    public static func weights(_ values: [Float], updatable: Bool = false) -> CoreML_Specification_WeightParams {
        var weights = CoreML_Specification_WeightParams()
        weights.floatValue = values
        weights.isUpdatable = updatable
        return weights
    }

    /// Float32 weights holding `count` values of 0.25.
    public static func weights(count: Int, updatable: Bool = false) -> CoreML_Specification_WeightParams {
        weights([Float](repeating: 0.25, count: count), updatable: updatable)
    }

    /// A layer named `name` from `inputs` to `outputs`, its type and parameters set by `configure`.
    public static func layer(
        _ name: String, _ inputs: [String], _ outputs: [String], _ configure: (inout CoreML_Specification_NeuralNetworkLayer) -> Void
    ) -> CoreML_Specification_NeuralNetworkLayer {
        var layer = CoreML_Specification_NeuralNetworkLayer()
        layer.name = name
        layer.input = inputs
        layer.output = outputs
        configure(&layer)
        return layer
    }
}
