import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `opencoreml image-classifier`: bad input is one line on standard error, exit code 1, no model
/// written. (Training itself is tested in OpenCreateMLTests.)
struct ImageClassifierCommandTests {
    private func expectFailure(_ arguments: [String], mentioning text: String, output: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 1, sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("error: ") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(text), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: output.path), sourceLocation: sourceLocation)
    }

    @Test func badInputFailsWithOneLine() throws {
        try withTemporaryDirectory { folder in
            let output = folder.appendingPathComponent("out.mlmodel")
            let empty = folder.appendingPathComponent("empty")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            let knn = Fixtures.url("knn_linear_string.mlmodel").path
            try expectFailure(["image-classifier", "train", empty.path, "--extractor", knn, "--output", output.path],
                              mentioning: "not a feature extractor", output: output)
            try expectFailure(["image-classifier", "train", empty.path, "--extractor", folder.appendingPathComponent("missing.mlmodel").path,
                               "--output", output.path], mentioning: "missing.mlmodel", output: output)
            try expectFailure(["image-classifier", "train", empty.path, "--augment", "wobble", "--output", output.path],
                              mentioning: "unknown augmentation 'wobble'", output: output)
            try expectFailure(["image-classifier", "evaluate", knn, empty.path], mentioning: "not an image classifier", output: output)
        }
    }
}
