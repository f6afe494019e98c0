import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// Small specifications of the feature-engineering models (one-hot encoder, imputer, scaler, …),
/// their inputs, and checks of their outputs and errors.
enum FeatureSpecs {
    static func double(_ name: String, optional: Bool = false) -> CoreML_Specification_FeatureDescription {
        feature(name, optional: optional) { $0.doubleType = .init() }
    }

    static func int64(_ name: String, optional: Bool = false) -> CoreML_Specification_FeatureDescription {
        feature(name, optional: optional) { $0.int64Type = .init() }
    }

    static func string(_ name: String, optional: Bool = false) -> CoreML_Specification_FeatureDescription {
        feature(name, optional: optional) { $0.stringType = .init() }
    }

    static func dictionary(_ name: String, stringKeys: Bool, optional: Bool = false) -> CoreML_Specification_FeatureDescription {
        feature(name, optional: optional) { type in
            if stringKeys { type.dictionaryType.stringKeyType = .init() } else { type.dictionaryType.int64KeyType = .init() }
        }
    }

    static func array(_ name: String, _ shape: [Int64], _ dataType: CoreML_Specification_ArrayFeatureType.ArrayDataType = .double,
                      optional: Bool = false) -> CoreML_Specification_FeatureDescription {
        feature(name, optional: optional) { type in
            type.multiArrayType.shape = shape
            type.multiArrayType.dataType = dataType
        }
    }

    static func feature(_ name: String, optional: Bool = false,
                        _ configure: (inout CoreML_Specification_FeatureType) -> Void) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        configure(&feature.type)
        feature.type.isOptional = optional
        return feature
    }

    /// A model with these inputs and outputs, its type set by `configure`.
    static func model(_ inputs: [CoreML_Specification_FeatureDescription], _ outputs: [CoreML_Specification_FeatureDescription],
                      _ configure: (inout CoreML_Specification_Model) -> Void) -> CoreML_Specification_Model {
        TestSpecs.model(inputs, outputs, configure)
    }

    /// The model's outputs for one example.
    static func predict(_ model: CoreML_Specification_Model, _ inputs: [String: MLFeatureValue]) throws -> MLFeatureProvider {
        try MLModel(specification: model).prediction(from: MLDictionaryFeatureProvider(featureValues: inputs))
    }

    static func vector(_ values: [Double], _ dataType: MLMultiArrayDataType = .double) -> MLFeatureValue {
        let array = try! MLMultiArray(shape: [NSNumber(value: values.count)], dataType: dataType)
        for (index, value) in values.enumerated() { array[index] = NSNumber(value: value) }
        return MLFeatureValue(multiArray: array)
    }

    static func dictionary(_ entries: [AnyHashable: Double]) -> MLFeatureValue {
        try! MLFeatureValue(dictionary: entries.mapValues { NSNumber(value: $0) })
    }

    /// A multi-array output's elements in row-major order.
    static func elements(_ value: MLFeatureValue?) -> [Double] {
        guard let array = value?.multiArrayValue else { return [] }
        return (0..<array.count).map { array[$0].doubleValue }
    }

    /// A dictionary output as plain doubles.
    static func entries(_ value: MLFeatureValue?) -> [AnyHashable: Double] {
        (value?.dictionaryValue ?? [:]).mapValues(\.doubleValue)
    }

    /// The validation messages of `model`, joined.
    static func issues(_ model: CoreML_Specification_Model) -> String {
        model.validationIssues().map(\.description).joined(separator: "\n")
    }

    /// Expects `body` to throw an error whose text contains every one of `fragments`.
    static func expectError(_ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("no error; expected one mentioning \(fragments)", sourceLocation: sourceLocation)
        } catch {
            let text = "\(error)"
            for fragment in fragments {
                #expect(text.contains(fragment), "\(text)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Expects the doubles to agree within `tolerance`, element by element.
    static func expectClose(_ actual: [Double], _ expected: [Double], tolerance: Double = 1e-12, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(actual.count == expected.count, "\(actual) vs \(expected)", sourceLocation: sourceLocation)
        for (a, e) in zip(actual, expected) {
            let same = (a.isNaN && e.isNaN) || abs(a - e) <= tolerance
            #expect(same, "\(actual) vs \(expected)", sourceLocation: sourceLocation)
        }
    }
}
