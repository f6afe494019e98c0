import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// k-NN classifiers built by coremltools against scikit-learn's answers (`make_knn_parity.py`).
@Suite("k-NN classifiers")
struct NearestNeighborsTests {
    struct Answer: Decodable {
        var indices: [[Int]]
        var squaredDistances: [[Double]]
        var probabilities: [[Double]]
    }

    struct Parity: Decodable {
        var dimensions: Int
        var classNames: [String: [String]]
        var sampleClasses: [Int]
        var queries: [[Float]]
        var linear: [String: Answer]
        var kdtree: [String: Answer]
    }

    static let folder = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("knn")
    static let parity = try! JSONDecoder().decode(Parity.self, from: Data(contentsOf: folder.appendingPathComponent("parity.json")))

    static func vector(_ values: [Float]) -> MLFeatureValue {
        let array = try! MLMultiArray(shape: [NSNumber(value: values.count)], dataType: .float32)
        for (index, value) in values.enumerated() { array[index] = NSNumber(value: value) }
        return MLFeatureValue(multiArray: array)
    }

    static func queries() -> MLArrayBatchProvider {
        MLArrayBatchProvider(array: parity.queries.map { MLDictionaryFeatureProvider(featureValues: ["features": vector($0)]) })
    }

    /// Our predictions against sklearn's probabilities and label for every query.
    func check(model file: String, k: Int, answers: [String: Answer], names: [String]) throws {
        let configuration = MLModelConfiguration()
        configuration.parameters = [.numberOfNeighbors: k]
        let model = try MLModel(contentsOf: Self.folder.appendingPathComponent(file), configuration: configuration)
        let expected = try #require(answers[String(k)])
        let outputs = try model.predictions(fromBatch: Self.queries())
        for query in 0..<outputs.count {
            let output = outputs.features(at: query)
            let label = try #require(output.featureValue(for: "label"))
            let text = label.type == .string ? label.stringValue : String(label.int64Value)
            let probabilities = try #require(output.featureValue(for: "labelProbability")?.dictionaryValue ?? output.featureValue(for: output.featureNames.first { $0 != "label" } ?? "")?.dictionaryValue)
            for (position, name) in names.enumerated() {
                let key: AnyHashable = label.type == .string ? AnyHashable(name) : AnyHashable(Int64(name)!)
                let ours = probabilities[key]?.doubleValue ?? 0
                #expect(abs(ours - expected.probabilities[query][position]) < 1e-5, "\(file) k=\(k) query \(query) class \(name)")
            }
            let best = expected.probabilities[query].max()!
            let winners = expected.probabilities[query].indices.filter { abs(expected.probabilities[query][$0] - best) < 1e-9 }
            if winners.count == 1 { #expect(text == names[winners[0]], "\(file) k=\(k) query \(query)") }
        }
    }

    @Test(arguments: [1, 5, 15]) func linearUniformMatchesScikitLearn(k: Int) throws {
        try check(model: "parity_linear.mlmodel", k: k, answers: Self.parity.linear, names: Self.parity.classNames["linear"]!)
    }

    @Test(arguments: [1, 5, 7]) func kdTreeInverseDistanceMatchesScikitLearn(k: Int) throws {
        try check(model: "parity_kdtree.mlmodel", k: k, answers: Self.parity.kdtree, names: Self.parity.classNames["kdtree"]!)
    }

    @Test func kOutsideTheAllowedValuesIsAClearError() throws {
        let configuration = MLModelConfiguration()
        configuration.parameters = [.numberOfNeighbors: 4]
        #expect {
            _ = try MLModel(contentsOf: Self.folder.appendingPathComponent("parity_kdtree.mlmodel"), configuration: configuration)
        } throws: { error in
            "\(error)".contains("numberOfNeighbors") && "\(error)".contains("4")
        }
        configuration.parameters = [.numberOfNeighbors: 16]
        #expect(throws: MLModelError.self) {
            _ = try MLModel(contentsOf: Self.folder.appendingPathComponent("parity_linear.mlmodel"), configuration: configuration)
        }
    }

    @Test func anEmptyModelPredictsItsDefaultLabel() throws {
        let model = try MLModel(contentsOf: Fixtures.url("knn_empty_string.mlmodel"))
        let output = try model.prediction(from: MLDictionaryFeatureProvider(featureValues: ["features": Self.vector([Float](repeating: 0.5, count: 8))]))
        #expect(output.featureValue(for: "label")?.stringValue == "unknown")
        let int64 = try MLModel(contentsOf: Fixtures.url("knn_empty_int64.mlmodel"))
        let other = try int64.prediction(from: MLDictionaryFeatureProvider(featureValues: ["features": Self.vector([Float](repeating: 0.5, count: 8))]))
        #expect(other.featureValue(for: "label")?.int64Value == -1)
    }

    @Test func wrongLengthAndNaNInputsAreClearErrors() throws {
        let model = try MLModel(contentsOf: Self.folder.appendingPathComponent("parity_linear.mlmodel"))
        #expect {
            _ = try model.prediction(from: MLDictionaryFeatureProvider(featureValues: ["features": Self.vector([1, 2, 3])]))
        } throws: { "\($0)".contains("'features'") && "\($0)".contains("12") }
        var values = [Float](repeating: 0, count: 12)
        values[3] = .nan
        #expect {
            _ = try model.prediction(from: MLDictionaryFeatureProvider(featureValues: ["features": Self.vector(values)]))
        } throws: { "\($0)".contains("nan") && "\($0)".contains("element 3") }
    }
}
