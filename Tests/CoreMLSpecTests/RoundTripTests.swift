import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// A model read and written without edits is the same bytes, through both file layouts.
struct RoundTripTests {
    @Test(arguments: Fixtures.allNames)
    func reserializesByteIdentically(_ name: String) throws {
        let original = try Fixtures.data(name)
        let model = try CoreML_Specification_Model(serializedModel: original)
        #expect(try model.serializedModel() == original)
    }

    @Test(arguments: Fixtures.allNames)
    func writesAndReadsBothLayouts(_ name: String) throws {
        let original = try Fixtures.data(name)
        let model = try Fixtures.model(name)
        try withTemporaryDirectory { folder in
            let file = folder.appendingPathComponent("copy.mlmodel")
            try model.write(to: file)
            #expect(try Data(contentsOf: file) == original)

            let compiled = folder.appendingPathComponent("Copy.mlmodelc")
            try model.write(to: compiled)
            let reread = try CoreML_Specification_Model(contentsOf: compiled)
            #expect(reread == model)
            #expect(try Data(contentsOf: compiled.appendingPathComponent(CompiledModelLayout.specificationFileName)) == original)
            let metadata = try JSONDecoder().decode(
                CompiledModelLayout.Metadata.self,
                from: Data(contentsOf: compiled.appendingPathComponent(CompiledModelLayout.metadataFileName)))
            #expect(metadata.modelType == model.modelTypeName)
            #expect(metadata.inputs == model.description_p.input.map(\.name))

            // Writing again replaces the folder whole, leaving no temporary files behind.
            try model.write(to: compiled)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }
            #expect(leftovers == [])
        }
    }

    @Test func unknownLayerFieldsSurviveEdits() throws {
        var model = try Fixtures.model("unmodeled_layer.mlmodel")
        let before = model.neuralNetwork.layers[0].unknownFields.data
        #expect(!before.isEmpty)
        model.description_p.metadata.author = "someone else"
        let reread = try CoreML_Specification_Model(serializedModel: try model.serializedModel())
        #expect(reread.neuralNetwork.layers[0].unknownFields.data == before)
        #expect(reread.neuralNetwork.layers[0].layerTypeName == "lrn")
        #expect(reread.description_p.metadata.author == "someone else")
    }

    @Test func failedWriteLeavesNoFile() throws {
        let model = try Fixtures.model("knn_empty_string.mlmodel")
        try withTemporaryDirectory { folder in
            let target = folder.appendingPathComponent("missing-folder/model.mlmodel")
            #expect(throws: ModelFileError.self) { try model.write(to: target) }
            #expect(!FileManager.default.fileExists(atPath: target.path))
        }
    }
}
