import CoreMLSpec
import Foundation
import OpenCoreML
import Testing

/// Linked models: found only inside the loaded model's folder, then predicting as the model they name.
@Suite("Linked models")
struct LinkedModelTests {
    typealias Spec = CoreML_Specification_Model

    /// A fresh temporary folder, removed by the caller.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("linked-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The suppression model of `NonMaximumSuppressionTests` (the linked target).
    static let target = NonMaximumSuppressionTests.model()

    /// A linked model with the target's interface, naming `file` on `searchPath`.
    static func link(_ file: String, searchPath: String = "") -> Spec {
        var spec = Spec()
        spec.specificationVersion = 4
        spec.description_p = target.description_p
        var link = CoreML_Specification_LinkedModelFile()
        link.linkedModelFileName.defaultValue = file
        link.linkedModelSearchPath.defaultValue = searchPath
        spec.linkedModel.linkedModelFile = link
        return spec
    }

    /// A pipeline of one linked model.
    static func pipeline(of link: Spec) -> Spec {
        var spec = Spec()
        spec.specificationVersion = 4
        spec.description_p = link.description_p
        spec.pipeline.models = [link]
        return spec
    }

    static func predictedCoordinates(_ model: MLModel) throws -> [[Double]] {
        let inputs: [String: MLFeatureValue] = [
            "rawConfidence": MLFeatureValue(multiArray: try NonMaximumSuppressionTests.array(NonMaximumSuppressionTests.confidences)),
            "rawCoordinates": MLFeatureValue(multiArray: try NonMaximumSuppressionTests.array(NonMaximumSuppressionTests.boxes)),
        ]
        let output = try model.prediction(from: MLDictionaryFeatureProvider(featureValues: inputs))
        return NonMaximumSuppressionTests.rows(try #require(output.featureValue(for: "coordinates")?.multiArrayValue))
    }

    /// Pipelines of links to pipelines of links load a number of files exponential in their depth:
    /// 20 links to a pipeline of 20 links to the target are 420 files, past the 256 allowed. A
    /// pipeline of 10 links to a pipeline of 10 (110 files) loads.
    @Test func linksFanningOutAreBounded() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.target.write(to: folder.appendingPathComponent("Target.mlmodel"))
        func fan(_ file: String, _ count: Int) -> Spec {
            var spec = Self.pipeline(of: Self.link(file))
            spec.pipeline.models = Array(repeating: Self.link(file), count: count)
            return spec
        }
        try fan("Target.mlmodel", 20).write(to: folder.appendingPathComponent("Middle.mlmodel"))
        try fan("Middle.mlmodel", 20).write(to: folder.appendingPathComponent("Top.mlmodel"))
        #expect(Self.loadError(folder.appendingPathComponent("Top.mlmodel")).contains("more than 256 model files"))
        try fan("Target.mlmodel", 10).write(to: folder.appendingPathComponent("Middle.mlmodel"))
        try fan("Middle.mlmodel", 10).write(to: folder.appendingPathComponent("Top.mlmodel"))
        #expect(Self.loadError(folder.appendingPathComponent("Top.mlmodel")) == "")
    }

    /// The error loading `url` gives, as text; "" when it loads.
    static func loadError(_ url: URL) -> String {
        do {
            _ = try MLModel(contentsOf: url)
            return ""
        } catch {
            return "\(error)"
        }
    }

    /// Boxes 0 and 4 are what the suppression keeps (see `NonMaximumSuppressionTests`).
    static let expected = [NonMaximumSuppressionTests.boxes[0], NonMaximumSuppressionTests.boxes[4]]

    @Test func aLinkBesideTheModelPredictsAsTheModelItNames() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.target.write(to: folder.appendingPathComponent("Detector.mlmodel"))
        try Self.link("Detector.mlmodel").write(to: folder.appendingPathComponent("Link.mlmodel"))
        #expect(try Self.predictedCoordinates(MLModel(contentsOf: folder.appendingPathComponent("Link.mlmodel"))) == Self.expected)
    }

    @Test func aLinkInAPipelineSearchesItsPathInOrderSkippingBundles() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("models"), withIntermediateDirectories: true)
        try Self.target.write(to: folder.appendingPathComponent("models/Detector.mlmodel"))
        let url = folder.appendingPathComponent("Pipeline.mlmodel")
        try Self.pipeline(of: Self.link("Detector.mlmodel", searchPath: "$BUNDLE_MAIN:.:models")).write(to: url)
        let model = try MLModel(contentsOf: url)
        #expect(try Self.predictedCoordinates(model) == Self.expected)
        // The model keeps its link: written back, it is still a pipeline of a linked model.
        #expect(model.specification.pipelineModels.first?.linkedModel.linkedModelFile.linkedModelFileName.defaultValue == "Detector.mlmodel")
        // Inside a compiled model the folder is the .mlmodelc itself.
        let compiled = folder.appendingPathComponent("Pipeline.mlmodelc")
        try Self.pipeline(of: Self.link("Detector.mlmodel", searchPath: "models")).write(to: compiled)
        try FileManager.default.createDirectory(at: compiled.appendingPathComponent("models"), withIntermediateDirectories: true)
        try Self.target.write(to: compiled.appendingPathComponent("models/Detector.mlmodel"))
        #expect(try Self.predictedCoordinates(MLModel(contentsOf: compiled)) == Self.expected)
    }

    @Test func aMissingFileIsALoadErrorNamingWhereItLooked() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Link.mlmodel")
        try Self.link("Detector.mlmodel", searchPath: "$BUNDLE_MAIN:models").write(to: url)
        let message = Self.loadError(url)
        #expect(message.contains("Detector.mlmodel") && message.contains("models") && message.contains("$BUNDLE_MAIN"))
    }

    @Test func pathsLeavingTheFolderAreRefused() throws {
        let parent = try Self.folder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = parent.appendingPathComponent("model")
        let outside = parent.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Self.target.write(to: outside.appendingPathComponent("Detector.mlmodel"))
        let url = folder.appendingPathComponent("Link.mlmodel")

        // `..` in the file name or in the search path.
        try Self.link("../outside/Detector.mlmodel").write(to: url)
        #expect(Self.loadError(url).contains("../outside/Detector.mlmodel"))
        try Self.link("Detector.mlmodel", searchPath: "../outside").write(to: url)
        #expect(Self.loadError(url).contains("leaves"))
        // Absolute folders and file names.
        try Self.link("Detector.mlmodel", searchPath: outside.path).write(to: url)
        #expect(Self.loadError(url).contains(outside.path) && Self.loadError(url).contains("absolute"))
        try Self.link(outside.appendingPathComponent("Detector.mlmodel").path).write(to: url)
        #expect(Self.loadError(url).contains("absolute"))
        // A symbolic link inside the folder that leads out of it: the folder `models`, then the file.
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("models"), withDestinationURL: outside)
        try Self.link("Detector.mlmodel", searchPath: "models").write(to: url)
        let escape = Self.loadError(url)
        #expect(escape.contains("symbolic link") && escape.contains(folder.appendingPathComponent("models").path))
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("Detector.mlmodel"),
                                                   withDestinationURL: outside.appendingPathComponent("Detector.mlmodel"))
        try Self.link("Detector.mlmodel").write(to: url)
        #expect(Self.loadError(url).contains("symbolic link"))
    }

    @Test func aLinkCycleIsRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.link("B.mlmodel").write(to: folder.appendingPathComponent("A.mlmodel"))
        try Self.link("A.mlmodel").write(to: folder.appendingPathComponent("B.mlmodel"))
        #expect(Self.loadError(folder.appendingPathComponent("A.mlmodel")).contains("cycle"))
        try Self.link("Self.mlmodel").write(to: folder.appendingPathComponent("Self.mlmodel"))
        #expect(Self.loadError(folder.appendingPathComponent("Self.mlmodel")).contains("cycle"))
    }

    @Test func theLinkedModelMustGiveTheLinksOutputs() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.target.write(to: folder.appendingPathComponent("Detector.mlmodel"))
        var link = Self.link("Detector.mlmodel")
        link.description_p.output[1].name = "boxes"
        try link.write(to: folder.appendingPathComponent("Link.mlmodel"))
        #expect(Self.loadError(folder.appendingPathComponent("Link.mlmodel")).contains("'boxes'"))
    }

    @Test func aLinkWithoutAFileCannotPredictAndMustNameItsFile() throws {
        let model = try MLModel(specification: Self.link("Detector.mlmodel"))
        #expect(throws: MLModelError.self) { try Self.predictedCoordinates(model) }
        #expect(!Self.link("").validationIssues().isEmpty)
        var updatable = Self.link("Detector.mlmodel")
        updatable.isUpdatable = true
        #expect(updatable.validationIssues().contains { "\($0)".contains("updatable") })
    }
}
