import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// A model's strings are data: `inspect` shows escape sequences and bidirectional overrides in a
/// model's names and metadata as `\u{…}` text, and its errors too, so a model cannot steer the terminal.
struct InspectTerminalEscapingTests {
    /// A valid network whose input, output, layer and author carry an escape sequence.
    private static func hostileNames() -> CoreML_Specification_Model {
        func array(_ name: String) -> CoreML_Specification_FeatureDescription {
            var feature = CoreML_Specification_FeatureDescription()
            feature.name = name
            feature.type.multiArrayType.shape = [2]
            feature.type.multiArrayType.dataType = .float32
            return feature
        }
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.metadata.author = "Eve\u{1B}]0;owned\u{07}"
        model.description_p.metadata.shortDescription = "two\nlines \u{202E}desrever"
        model.description_p.input = [array("x\u{1B}[2J")]
        model.description_p.output = [array("y")]
        var layer = CoreML_Specification_NeuralNetworkLayer()
        layer.name = "relu\u{9B}31m"
        layer.input = ["x\u{1B}[2J"]
        layer.output = ["y"]
        layer.activation.reLu = CoreML_Specification_ActivationReLU()
        model.neuralNetwork.layers = [layer]
        return model
    }

    @Test func namesAndMetadataAreEscaped() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("names.mlmodel")
            try Self.hostileNames().write(to: url)
            let result = try CommandRunner.run(["inspect", url.path])
            #expect(result.status == 0, "\(result.stderr)")
            let controls = result.stdout.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" }
            #expect(controls.isEmpty, "\(result.stdout)")
            #expect(result.stdout.contains("Eve\\u{1B}]0;owned\\u{7}"))
            #expect(result.stdout.contains("x\\u{1B}[2J"))
            #expect(result.stdout.contains("relu\\u{9B}31m"))
            #expect(result.stdout.contains("\\u{202E}desrever"))
            #expect(result.stdout.contains("two\nlines"), "a description's own line breaks stay")
        }
    }

    @Test func errorsQuotingAModelAreEscaped() throws {
        try withTemporaryDirectory { folder in
            var model = Self.hostileNames()
            model.description_p.output[0].name = "z\u{1B}[31m"  // an output no layer produces: the error names it
            let url = folder.appendingPathComponent("bad.mlmodel")
            try model.write(to: url)
            let result = try CommandRunner.run(["inspect", url.path])
            #expect(result.status == 1)
            #expect(!result.stderr.contains("\u{1B}"), "\(result.stderr)")
            #expect(result.stderr.contains("\\u{1B}"), "the error quotes the escaped name: \(result.stderr)")
        }
    }

    /// `predict` prints a model's string outputs escaped too: a categorical mapping from 1 to a
    /// string holding an escape sequence.
    @Test func predictEscapesStringOutputs() throws {
        try withTemporaryDirectory { folder in
            var model = CoreML_Specification_Model()
            model.specificationVersion = 1
            var input = CoreML_Specification_FeatureDescription()
            input.name = "code"
            input.type.int64Type = .init()
            var output = CoreML_Specification_FeatureDescription()
            output.name = "name"
            output.type.stringType = .init()
            model.description_p.input = [input]
            model.description_p.output = [output]
            model.categoricalMapping.int64ToStringMap.map = [1: "one\u{1B}[2J"]
            model.categoricalMapping.strValue = "?"
            let url = folder.appendingPathComponent("map.mlmodel")
            try model.write(to: url)
            let value = folder.appendingPathComponent("code.json")
            try Data("1".utf8).write(to: value)
            let result = try CommandRunner.run(["predict", url.path, "--input", "code=\(value.path)"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("one\\u{1B}[2J") && !result.stdout.contains("\u{1B}"), "\(result.stdout)")
        }
    }
}
