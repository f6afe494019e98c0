import Foundation
import OpenCoreML
import OpenCreateML
import Testing
import _OpenCoreMLTestSupport

/// NaN and infinities in `predict --input` array files are values, as Core ML passes them to a
/// model: scikit-learn's `SimpleImputer` (converted by coremltools) fills the NaN of an `.npy`,
/// `.json` or `.csv` file exactly as scikit-learn does, and a tree sends NaN down its missing-value
/// branch. (Before, the array readers refused them: "value 1 is nan".)
struct NonFiniteInputCommandTests {
    /// The fixture's examples that have holes (JSON null in the fixture, NaN for scikit-learn).
    private static func examplesWithHoles(_ name: String) throws -> [(input: [Double], output: [Double])] {
        let fixture = try #require(ClassicFixtures.named(name))
        return fixture.examples.compactMap { example in
            guard let input = example.inputs["input"]?.array, let output = example.outputs["output"]?.array,
                  input.contains(.null) else { return nil }
            return (input.map { $0.number ?? .nan }, output.compactMap(\.number))
        }
    }

    /// `predict --json` with `input` given as the file `name` holding `contents`.
    private func predict(_ model: String, _ inputs: [(name: String, file: String, contents: Data)]) throws -> (CommandResult, [String: Any]?) {
        try withTemporaryDirectory { folder in
            var arguments = ["predict", ClassicFixtures.directory.appendingPathComponent(model).path, "--json"]
            for input in inputs {
                let url = folder.appendingPathComponent(input.file)
                try input.contents.write(to: url)
                arguments += ["--input", "\(input.name)=\(url.path)"]
            }
            let result = try CommandRunner.run(arguments)
            return (result, try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        }
    }

    private static func text(_ value: Double, nan: String, infinity: String) -> String {
        value.isNaN ? nan : value.isInfinite ? (value < 0 ? "-" : "") + infinity : "\(value)"
    }

    @Test("an imputer fills NaN read from .npy, .json (NaN and null) and .csv files as scikit-learn does",
          arguments: ["imputer_mean_diabetes", "imputer_median_diabetes"])
    func imputerFillsHolesFromEveryArrayFile(_ name: String) throws {
        let examples = try Self.examplesWithHoles(name)
        #expect(examples.count >= 3)
        for (input, expected) in examples {
            let array = try MLMultiArray(shape: [NSNumber(value: input.count)], dataType: .double)
            for (index, value) in input.enumerated() { array[index] = NSNumber(value: value) }
            let files: [(String, Data)] = [
                ("x.npy", array.npyData()),
                ("x.json", Data(("[" + input.map { Self.text($0, nan: "NaN", infinity: "Infinity") }.joined(separator: ", ") + "]").utf8)),
                ("nulls.json", Data(("[" + input.map { Self.text($0, nan: "null", infinity: "Infinity") }.joined(separator: ", ") + "]").utf8)),
                ("x.csv", Data((input.map { Self.text($0, nan: "nan", infinity: "inf") }.joined(separator: ",") + "\n").utf8)),
            ]
            for (file, contents) in files {
                let (result, object) = try predict("\(name).mlmodel", [("input", file, contents)])
                #expect(result.status == 0, "\(file): \(result.stderr)")
                let output = try #require((object?["output"] as? [String: Any])?["values"] as? [Double], "\(file): \(result.stdout)")
                #expect(output.count == expected.count)
                for (actual, wanted) in zip(output, expected) {
                    #expect(abs(actual - wanted) <= 1e-5 * max(1, abs(wanted)), "\(file): \(output) vs \(expected)")
                }
            }
        }
    }

    /// NaN and ±infinity as number inputs of an XGBoost regressor: the CLI answers, and answers what
    /// the Swift API answers for the same values.
    @Test func treesTakeNaNAndInfinitiesFromNumberFiles() throws {
        let fixture = try #require(ClassicFixtures.named("xgboost_regressor_diabetes"))
        let example = try #require(fixture.examples.first)
        let model = try MLModel(contentsOf: ClassicFixtures.directory.appendingPathComponent(fixture.file))
        for (feature, special) in [("f2", "NaN"), ("f8", "Infinity"), ("f3", "-Infinity")] {
            var inputs: [(String, String, Data)] = []
            var values: [String: MLFeatureValue] = [:]
            for (name, value) in example.inputs.sorted(by: { $0.key < $1.key }) {
                let number = name == feature ? Double(special.replacingOccurrences(of: "Infinity", with: "inf"))! : try #require(value.number)
                inputs.append((name, "\(name).json", Data((name == feature ? special : "\(number)").utf8)))
                values[name] = MLFeatureValue(double: number)
            }
            let (result, object) = try predict(fixture.file, inputs)
            #expect(result.status == 0, "\(feature) = \(special): \(result.stderr)")
            let expected = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: values))
                .featureValue(for: "target")?.doubleValue
            let answer = object?["target"] as? Double
            // The printed number may differ in the last digit from the double it was printed from.
            #expect(answer != nil && expected != nil && abs(answer! - expected!) <= 1e-12 * abs(expected!),
                    "\(feature) = \(special): \(String(describing: answer)) vs \(String(describing: expected))")
        }
    }
}
