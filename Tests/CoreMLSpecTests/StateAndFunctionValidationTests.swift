import CoreMLSpec
import Foundation
import Testing

/// Core ML's rules for states and multifunction models (iOS 18), each broken in an otherwise valid
/// fixture (make_stateful_mlprograms.py, make_multifunction_mlprograms.py): the validator names
/// the broken part.
struct StateAndFunctionValidationTests {
    static let programs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mlprogram")

    static func model(_ package: String) throws -> CoreML_Specification_Model {
        try CoreML_Specification_Model(selfContainedContentsOf: programs.appendingPathComponent(package))
    }

    static func issues(_ model: CoreML_Specification_Model) -> String {
        model.validationIssues().map(\.description).joined(separator: "\n")
    }

    @Test func theFixturesAreValid() throws {
        for package in ["TorchKVCache.mlpackage", "TorchKVCache16.mlpackage", "TorchMultifunction.mlpackage"] {
            #expect(try Self.model(package).validationIssues().isEmpty, "\(package)")
        }
    }

    @Test func aStateMustWrapAFixedArrayUnderANewName() throws {
        var model = try Self.model("TorchKVCache.mlpackage")
        model.description_p.state[1].name = "ids"
        #expect(Self.issues(model).contains("state 'ids': the name is used twice"))
        model = try Self.model("TorchKVCache.mlpackage")
        model.description_p.state[0].type.type = .multiArrayType(model.description_p.input[1].type.multiArrayType)
        #expect(Self.issues(model).contains("state 'k_cache': a state must be of state type"))
        model = try Self.model("TorchKVCache.mlpackage")
        model.specificationVersion = 8
        #expect(Self.issues(model).contains("states need specification version 9"))
    }

    @Test func aMultifunctionModelDescribesEachFunctionOfItsProgram() throws {
        var model = try Self.model("TorchMultifunction.mlpackage")
        model.description_p.defaultFunctionName = "main"
        #expect(Self.issues(model).contains("the default function 'main' is not one of the model's functions"))
        model = try Self.model("TorchMultifunction.mlpackage")
        model.description_p.input = model.description_p.functions[0].input
        #expect(Self.issues(model).contains("declares its inputs, outputs and states in its functions"))
        model = try Self.model("TorchMultifunction.mlpackage")
        model.description_p.functions[1].name = "base"
        #expect(Self.issues(model).contains("function 'base': two functions have this name"))
        model = try Self.model("TorchMultifunction.mlpackage")
        model.description_p.functions[1].input[0].name = "z"
        #expect(Self.issues(model).contains("model input 'z' is not an input of function 'adapter'"))
        model = try Self.model("TorchMultifunction.mlpackage")
        model.description_p.functions[1].name = "decoder"
        model.description_p.defaultFunctionName = "decoder"
        #expect(Self.issues(model).contains("the program has no function 'decoder'"))
    }
}
