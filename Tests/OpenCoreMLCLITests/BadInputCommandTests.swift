import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// Bad input: one line on standard error naming the path, exit code 1 (2 for usage), nothing written.
struct BadInputCommandTests {
    private func expectOneLineFailure(_ arguments: [String], mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 1, sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("error: "), sourceLocation: sourceLocation)
        #expect(result.stderr.contains(text), "\(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test func badModelFiles() throws {
        try withTemporaryDirectory { folder in
            try expectOneLineFailure(["inspect", folder.appendingPathComponent("missing.mlmodel").path], mentioning: "missing.mlmodel: no such file")
            try expectOneLineFailure(["inspect", folder.path], mentioning: "not a compiled model")

            let lenet = try Fixtures.data("lenet_updatable.mlmodel")
            let truncated = folder.appendingPathComponent("truncated.mlmodel")
            try lenet.prefix(lenet.count - 1000).write(to: truncated)
            try expectOneLineFailure(["inspect", truncated.path], mentioning: "truncated.mlmodel: truncated")

            var generator = SystemRandomNumberGenerator()
            let random = folder.appendingPathComponent("random.mlmodel")
            for _ in 0..<5 {
                try Data((0..<2048).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: random)
                let result = try CommandRunner.run(["inspect", random.path])
                #expect(result.status == 1)
                #expect(result.stderr.hasPrefix("error: ") && result.stderr.contains("random.mlmodel"))
            }

            var parameter = CoreML_Specification_Int64Parameter()
            parameter.defaultValue = 4
            let other = folder.appendingPathComponent("other.pb")
            try (parameter.serializedBytes() as Data).write(to: other)
            try expectOneLineFailure(["inspect", other.path], mentioning: "not a Core ML model")

            var invalid = try Fixtures.model("lenet_updatable.mlmodel")
            invalid.neuralNetwork.layers[3].input = ["nowhere"]
            let invalidURL = folder.appendingPathComponent("invalid.mlmodel")
            try invalid.write(to: invalidURL)
            try expectOneLineFailure(["inspect", invalidURL.path], mentioning: "layer 'conv2': input 'nowhere'")

            // convert refuses the invalid model and writes nothing.
            let output = folder.appendingPathComponent("out.mlmodelc")
            try expectOneLineFailure(["convert", invalidURL.path, output.path], mentioning: "invalid model")
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }

    @Test func usageErrorsExitWith2() throws {
        for arguments in [["inspect"], ["inspect", "a", "b"], ["no-such-command"], ["convert", "a.mlmodel", "b.txt"]] {
            let result = try CommandRunner.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(!result.stderr.isEmpty)
        }
    }
}
