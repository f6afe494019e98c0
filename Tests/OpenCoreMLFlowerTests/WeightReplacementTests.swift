import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCreateML
import Testing
@testable import OpenCoreMLFlower

/// Setting a round's arrays into a loaded model goes through `MLModel(specification:configuration:)`
/// with the arrays as layer-weight parameters. The values may come as `[Float]` (the packed form),
/// `[Double]` or `MLMultiArray` (the named form); `[Float]` is looked for first, as asking whether
/// one is an `MLMultiArray` made Foundation bridge it to one NSNumber per value (60 % of setting
/// LeNet's weights). Every form must still set the same values, and wrong ones stay errors.
struct WeightReplacementTests {
    /// Every exchanged value changed (a pattern unlike the initial weights).
    private static func changedValues(of model: MLModel) throws -> [(MLParameterKey, [Float])] {
        try model.updatableWeightKeys.enumerated().map { index, key in
            let count = try #require(try model.parameterValue(for: key) as? MLMultiArray).count
            return (key, (0..<count).map { Float(($0 * 31 + index * 7) % 101) / 400 - 0.12 })
        }
    }

    private static func configuration(_ values: [(MLParameterKey, [Float])], as form: (([Float]) throws -> Any)) rethrows -> MLModelConfiguration {
        var parameters: [MLParameterKey: Any] = [:]
        for (key, floats) in values { parameters[key] = try form(floats) }
        let configuration = MLModelConfiguration()
        configuration.parameters = parameters
        return configuration
    }

    @Test func floatsDoublesAndMultiArraysSetTheSameValues() throws {
        let model = try SmallNetwork.model()
        let values = try Self.changedValues(of: model)
        let floats = try MLModel(specification: model.specification, configuration: Self.configuration(values) { $0 })
        let doubles = try MLModel(specification: model.specification, configuration: Self.configuration(values) { $0.map(Double.init) })
        let arrays = try MLModel(specification: model.specification, configuration: Self.configuration(values) { floats in
            let array = try MLMultiArray(shape: [NSNumber(value: floats.count)], dataType: .float32)
            for (index, value) in floats.enumerated() { array[index] = NSNumber(value: value) }
            return array
        })
        #expect(floats.specification != model.specification)
        #expect(doubles.specification == floats.specification)
        #expect(arrays.specification == floats.specification)
        for (key, expected) in values {
            let set = try #require(try floats.parameterValue(for: key) as? MLMultiArray)
            #expect(set.floatValues() == expected)
        }
    }

    @Test func wrongCountsNaNAndUnknownLayersAreErrorsInEveryForm() throws {
        let model = try SmallNetwork.model()
        var withNaN = [Float](repeating: 0.5, count: 10)
        withNaN[4] = .nan
        let cases: [(MLParameterKey, [Float], String)] = [
            (.biases.scoped(to: "dense2"), [Float](repeating: 0, count: 9), "holds 10 values, 9 given"),
            (.biases.scoped(to: "dense2"), withNaN, "value 4 is nan"),
            (.weights.scoped(to: "dense9"), [Float](repeating: 0, count: 10), "no neural-network layer 'dense9'"),
        ]
        let forms: [([Float]) throws -> Any] = [{ $0 }, { $0.map(Double.init) }, { floats in
            let array = try MLMultiArray(shape: [NSNumber(value: floats.count)], dataType: .float32)
            for (index, value) in floats.enumerated() { array[index] = NSNumber(value: value) }
            return array
        }]
        for (key, value, expected) in cases {
            for form in forms {
                let configuration = try Self.configuration([(key, value)], as: form)
                let error = try #require(throws: MLModelError.self) { try MLModel(specification: model.specification, configuration: configuration) }
                #expect("\(error)".contains(expected))
            }
        }
    }
}
