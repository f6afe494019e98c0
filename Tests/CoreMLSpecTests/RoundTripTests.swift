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

    /// A layer field Apple's specification does not define (number 1999, a length-delimited
    /// message) stays an unknown field through an edit and a rewrite, next to a modeled layer type.
    @Test func unknownLayerFieldsSurviveEdits() throws {
        var model = try Fixtures.model("unmodeled_layer.mlmodel")
        let unknownField: [UInt8] = [0xFA, 0x7C, 0x02, 0x08, 0x05]  // field 1999, wire type 2: { field 1 = 5 }
        let layerBytes: [UInt8] = try model.neuralNetwork.layers[0].serializedBytes()
        model.neuralNetwork.layers[0] = try CoreML_Specification_NeuralNetworkLayer(serializedBytes: layerBytes + unknownField)
        let before = model.neuralNetwork.layers[0].unknownFields.data
        #expect([UInt8](before) == unknownField)
        model.description_p.metadata.author = "someone else"
        let bytes = try model.serializedModel()
        let reread = try CoreML_Specification_Model(serializedModel: bytes)
        #expect(reread.neuralNetwork.layers[0].unknownFields.data == before)
        #expect(reread.neuralNetwork.layers[0].layerTypeName == "lrn")
        #expect(reread.neuralNetwork.layers[0].lrn.localSize == 3)
        #expect(reread.description_p.metadata.author == "someone else")
        #expect(try reread.serializedModel() == bytes)
    }

    /// A layer whose only type field is one the specification does not define has no type.
    @Test func aLayerOfAnUndefinedTypeIsNamedNone() throws {
        let layer = try CoreML_Specification_NeuralNetworkLayer(serializedBytes: [0xFA, 0x7C, 0x00] as [UInt8])
        #expect(layer.layer == nil)
        #expect(!layer.isModeledLayerType)
        #expect(layer.layerTypeName == "none")
        #expect(try layer.serializedBytes() == [0xFA, 0x7C, 0x00] as [UInt8])
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
