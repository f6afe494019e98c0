import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// An output declared int64 takes the network's float, rounded. Found by fuzzing: a NaN, an
/// infinity or a value past Int64's range trapped the process; now the prediction fails naming
/// the output, and values in range still come out rounded.
struct Int64OutputTests {
    /// `x` [1] → unary log → `y` (int64): log of a negative number is NaN, of 0 is −∞.
    static func model() -> CoreML_Specification_Model {
        var model = HostileModels.network([("x", [1])], [
            TestSpecs.layer("log", ["x"], ["y"]) { $0.unary.type = .log },
        ])
        model.description_p.output[0].type.int64Type = CoreML_Specification_Int64FeatureType()
        return model
    }

    static func predict(_ value: Float) throws -> MLFeatureProvider {
        let x = try MLMultiArray(shape: [1], dataType: .float32)
        x[0] = NSNumber(value: value)
        return try MLModel(specification: model()).prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x]))
    }

    @Test(arguments: [Float(-1), 0])
    func aNonFiniteValueFailsNamingTheOutput(input: Float) {
        do {
            let output = try Self.predict(input)
            Issue.record("predicted \(String(describing: output.featureValue(for: "y")))")
        } catch {
            #expect("\(error)".contains("output 'y' is declared int64"), "\(error)")
        }
    }

    @Test func aValueInRangeIsRounded() throws {
        // log(e^3.6) = 3.6 → 4
        let output = try Self.predict(Float(exp(3.6)))
        #expect(output.featureValue(for: "y")?.int64Value == 4)
    }
}
