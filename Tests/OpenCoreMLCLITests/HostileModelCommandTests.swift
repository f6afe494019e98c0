import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `inspect`, `predict` and `train` on hostile models (`HostileModels`): exit code 1 and one error
/// line naming the part, never a crash (a trap would end the process by a signal).
struct HostileModelCommandTests {
    private func expectOneErrorLine(_ result: CommandResult, containing message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1, "exit status \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "\(result.stdout)", sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("error: "), sourceLocation: sourceLocation)
        #expect(result.stderr.contains(message), "\(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test(arguments: HostileModels.cases)
    func inspectAndPredictFailWithOneErrorLine(_ hostile: HostileModels.Case) throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("\(hostile.name).mlmodel")
            try hostile.model.write(to: url)
            let inspect = try CommandRunner.run(["inspect", url.path])
            if hostile.failsValidation {
                expectOneErrorLine(inspect, containing: hostile.message)
            } else {
                // Valid by Core ML's rules: inspect shows it; compiling it for a prediction fails.
                #expect(inspect.status == 0, "\(inspect.stderr)")
            }
            var arguments = ["predict", url.path]
            if hostile.inputCount > 0 {
                let input = folder.appendingPathComponent("x.json")
                try Data("[\(Array(repeating: "0.5", count: hostile.inputCount).joined(separator: ", "))]".utf8).write(to: input)
                arguments += ["--input", "x=\(input.path)"]
            }
            expectOneErrorLine(try CommandRunner.run(arguments), containing: hostile.message)
        }
    }

    @Test(arguments: ["classifierWithMoreLabelsThanProbabilities", "trainingInputOfAnotherShape", "crossEntropyTargetOfThreeValues"])
    func trainRefusesTheModelAndWritesNothing(_ name: String) throws {
        let hostile = try #require(HostileModels.cases.first { $0.name == name })
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("\(name).mlmodel")
            var model = hostile.model
            if case .neuralNetworkClassifier? = model.type {
                // The classifier made updatable, so that only its labels are wrong.
                var updatable = HostileModels.updatable()
                updatable.neuralNetworkClassifier.layers = updatable.neuralNetwork.layers
                updatable.neuralNetworkClassifier.updateParams = updatable.neuralNetwork.updateParams
                updatable.neuralNetworkClassifier.stringClassLabels.vector = ["a", "b", "c"]
                updatable.description_p.output = model.description_p.output
                updatable.description_p.predictedFeatureName = "label"
                updatable.description_p.predictedProbabilitiesName = "labelProbabilities"
                updatable.description_p.trainingInput[1] = model.description_p.output[0]
                model = updatable
            }
            try model.write(to: url)
            let data = folder.appendingPathComponent("data.csv")
            try Data("0,1,2,3\n1,3,2,1\n".utf8).write(to: data)
            let output = folder.appendingPathComponent("out.mlmodel")
            let result = try CommandRunner.run(["train", url.path, "--data", data.path, "--output", output.path])
            expectOneErrorLine(result, containing: hostile.message)
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }
}
