import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// ML Programs in `.mlpackage` folders, against what coremltools 9.0 wrote and read back
/// (`Tests/Fixtures/mlprogram`, made by make_mlprograms.py): the package, the program, its weight
/// file; and what a damaged package gets.
@Suite("ML Programs (.mlpackage)")
struct MLProgramTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mlprogram")
    static let names = ["Dense.mlpackage", "Dense16.mlpackage", "Conv.mlpackage"]

    static func facts(_ name: String) throws -> [String: Any] {
        let all = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("facts.json"))) as! [String: Any]
        return all[name] as! [String: Any]
    }

    /// A copy of fixture `name` in `folder` (to damage).
    static func copy(_ name: String, into folder: URL) throws -> URL {
        let destination = folder.appendingPathComponent(name)
        try FileManager.default.copyItem(at: Self.folder.appendingPathComponent(name), to: destination)
        return destination
    }

    static func program(_ model: CoreML_Specification_Model) throws -> CoreML_Specification_MILSpec_Program {
        guard case .mlProgram(let program)? = model.type else { throw ModelFileError(.notCoreML, path: "", reason: "not an ML Program") }
        return program
    }

    @Test(arguments: names)
    func readsThePackageAsCoremltoolsWroteIt(name: String) throws {
        let facts = try Self.facts(name)
        let url = Self.folder.appendingPathComponent(name)
        #expect(ModelPackage.isPackage(url))
        let package = try ModelPackage(contentsOf: url)
        #expect(package.rootItem.path == "com.apple.CoreML/model.mlmodel" && package.fileFormatVersion == "1.0.0")
        #expect(package.items.map(\.name).sorted() == ["model.mlmodel", "weights"])

        let model = try CoreML_Specification_Model(contentsOf: url)
        #expect(model.modelTypeName == "mlProgram")
        #expect(Int(model.specificationVersion) == facts["specificationVersion"] as! Int)
        #expect(model.validationIssues().isEmpty, "\(model.validationIssues())")
        #expect(model.description_p.input.map(\.name) == facts["inputs"] as! [String])
        #expect(model.description_p.output.map(\.name) == facts["outputs"] as! [String])

        let program = try Self.program(model)
        let functions = facts["functions"] as! [String: [String: Any]]
        #expect(program.functions.keys.sorted() == functions.keys.sorted())
        for (functionName, expected) in functions {
            let function = program.functions[functionName]!
            #expect(function.opset == expected["opset"] as! String)
            let inputs = expected["inputs"] as! [[String: Any]]
            #expect(function.inputs.map(\.name) == inputs.map { $0["name"] as! String })
            #expect(function.inputs.map { $0.type.tensorType.dimensions.map { Int($0.constant.size) } } == inputs.map { $0["shape"] as! [Int] })
            #expect(function.blockSpecializations[function.opset]!.outputs == expected["outputs"] as! [String])
        }
        let counts = Dictionary(uniqueKeysWithValues: program.operationCounts.map { ($0.type, $0.count) })
        #expect(counts == facts["operationCounts"] as! [String: Int])
    }

    @Test(arguments: names)
    func findsEveryWeightInTheWeightFile(name: String) throws {
        let facts = try Self.facts(name)
        let url = Self.folder.appendingPathComponent(name)
        let package = try ModelPackage(contentsOf: url)
        let weights = try MLProgramWeights(program: Self.program(CoreML_Specification_Model(contentsOf: url)), package: package)
        let expected = facts["blobs"] as! [[String: Any]]
        #expect(weights.entries.count == expected.count)
        for (entry, fact) in zip(weights.entries, expected) {
            #expect(entry.operation == fact["operation"] as! String && entry.name == fact["name"] as! String)
            #expect(entry.fileName == "@model_path/weights/weight.bin" && entry.offset == UInt64(fact["offset"] as! Int))
            #expect(entry.count == fact["count"] as! Int)
            // The MIL type's name as coremltools spells it ("FLOAT32"), then the blob type that stores it.
            let declared = CoreML_Specification_MILSpec_DataType.allCases.first {
                String(describing: $0).lowercased() == (fact["dataType"] as! String).lowercased().replacingOccurrences(of: "_", with: "")
            }
            #expect(declared.flatMap(MILBlobFile.DataType.init) == entry.dataType, "\(fact)")
            #expect(entry.bytes == entry.count * entry.dataType.bits / 8)
        }
        // The file's own list of blobs holds each of them.
        let file = try MILBlobFile(contentsOf: package.blobFileURL("@model_path/weights/weight.bin"))
        let blobs = try file.blobs()
        #expect(blobs.count == file.count)
        #expect(Set(blobs.map(\.metadataOffset)) == Set(weights.entries.map(\.offset)))
        #expect(try Data(contentsOf: file.url).count == facts["weightFileBytes"] as! Int)
    }

    @Test func float16WeightsAreStoredAsHalves() throws {
        let url = Self.folder.appendingPathComponent("Dense16.mlpackage")
        let weights = try MLProgramWeights(program: Self.program(CoreML_Specification_Model(contentsOf: url)), package: ModelPackage(contentsOf: url))
        #expect(!weights.entries.isEmpty && weights.entries.allSatisfy { $0.dataType == .float16 })
    }

    // MARK: Damaged packages

    @Test func aTruncatedWeightFileIsAnErrorNamingTheBlob() throws {
        try withTemporaryDirectory { folder in
            let url = try Self.copy("Dense.mlpackage", into: folder)
            let weightURL = url.appendingPathComponent("Data/com.apple.CoreML/weights/weight.bin")
            let bytes = try Data(contentsOf: weightURL)
            try bytes.prefix(bytes.count - 100).write(to: weightURL)
            let model = try CoreML_Specification_Model(contentsOf: url)
            let error = #expect(throws: ModelFileError.self) {
                try MLProgramWeights(program: Self.program(model), package: ModelPackage(contentsOf: url))
            }
            #expect(error?.path == weightURL.path && error?.reason.contains("past the end of the file") == true, "\(String(describing: error))")
        }
    }

    @Test func damagedRecordsAndOffsetsAreErrorsNeverReadsPastTheEnd() throws {
        try withTemporaryDirectory { folder in
            let url = try Self.copy("Dense.mlpackage", into: folder)
            let weightURL = url.appendingPathComponent("Data/com.apple.CoreML/weights/weight.bin")
            let original = try Data(contentsOf: weightURL)
            let file = try MILBlobFile(contentsOf: weightURL)
            let first = try file.blobs()[0].metadataOffset
            for offset in [0, 65, first + 1, UInt64(original.count), UInt64.max - 63] {
                #expect(throws: ModelFileError.self, "offset \(offset)") { try file.blob(at: offset) }
            }
            // A wrong sentinel, an unknown type, a size past the end.
            for (position, value) in [(Int(first), UInt8(0)), (Int(first) + 4, UInt8(99)), (Int(first) + 15, UInt8(0x7f))] {
                var damaged = original
                damaged[position] = value
                try damaged.write(to: weightURL)
                #expect(throws: ModelFileError.self, "byte \(position)") { try MILBlobFile(contentsOf: weightURL).blob(at: first) }
            }
            var badVersion = original
            badVersion[4] = 7
            try badVersion.write(to: weightURL)
            #expect(throws: ModelFileError.self) { try MILBlobFile(contentsOf: weightURL) }
            try Data([1, 2, 3]).write(to: weightURL)
            #expect(throws: ModelFileError.self) { try MILBlobFile(contentsOf: weightURL) }
        }
    }

    @Test func aValueWhoseStoredTypeIsNotTheDeclaredOneIsAnError() throws {
        try withTemporaryDirectory { folder in
            let url = try Self.copy("Dense.mlpackage", into: folder)
            let package = try ModelPackage(contentsOf: url)
            var model = try CoreML_Specification_Model(contentsOf: url)
            var program = try Self.program(model)
            var function = program.functions["main"]!
            var block = function.blockSpecializations[function.opset]!
            let index = block.operations.firstIndex { $0.type == "const" && $0.attributes["val"]?.blobFileValue.fileName.isEmpty == false }!
            block.operations[index].attributes["val"]!.type.tensorType.dataType = .float16
            function.blockSpecializations[function.opset] = block
            program.functions["main"] = function
            model.mlProgram = program
            try model.write(to: package.rootModelURL)
            let error = #expect(throws: ModelFileError.self) {
                try MLProgramWeights(program: Self.program(CoreML_Specification_Model(contentsOf: url)), package: package)
            }
            #expect(error?.reason.contains("holds float32, the program declares float16") == true, "\(String(describing: error))")
        }
    }

    @Test func aManifestThatIsMissingBrokenOrLeavesThePackageIsAnError() throws {
        try withTemporaryDirectory { folder in
            let url = try Self.copy("Dense.mlpackage", into: folder)
            let manifest = url.appendingPathComponent("Manifest.json")
            let original = try String(contentsOf: manifest, encoding: .utf8)
            for (broken, expected) in [("not json", "not a JSON object"),
                                       (original.replacingOccurrences(of: "com.apple.CoreML/model.mlmodel", with: "../../model.mlmodel"), "leaves the package"),
                                       (original.replacingOccurrences(of: "\"1.0.0\"", with: "\"2.0.0\""), "newer"),
                                       (original.replacingOccurrences(of: "rootModelIdentifier", with: "root"), "no rootModelIdentifier")] {
                try broken.write(to: manifest, atomically: true, encoding: .utf8)
                let error = #expect(throws: ModelFileError.self) { try CoreML_Specification_Model(contentsOf: url) }
                #expect(error?.reason.contains(expected) == true, "\(String(describing: error))")
            }
            try FileManager.default.removeItem(at: manifest)
            #expect(throws: ModelFileError.self) { try CoreML_Specification_Model(contentsOf: url) }
            #expect(!ModelPackage.isPackage(url))
        }
    }

    // MARK: Validation

    @Test func coreMLsRulesForProgramsAreChecked() throws {
        let url = Self.folder.appendingPathComponent("Conv.mlpackage")
        let valid = try CoreML_Specification_Model(contentsOf: url)

        var updatable = valid
        updatable.isUpdatable = true
        #expect(updatable.validationIssues().map(\.message).contains { $0.contains("an ML Program cannot be updatable") })

        var old = valid
        old.specificationVersion = 5
        #expect(old.validationIssues().map(\.message).contains { $0.contains("ML Programs need specification version 6") })

        var renamed = valid
        var program = try Self.program(valid)
        program.functions["other"] = program.functions.removeValue(forKey: "main")
        renamed.mlProgram = program
        #expect(renamed.validationIssues().map(\.message).contains { $0.contains("no function 'main' (it has other)") })

        var unordered = valid
        program = try Self.program(valid)
        var function = program.functions["main"]!
        var block = function.blockSpecializations[function.opset]!
        block.operations.reverse()
        function.blockSpecializations[function.opset] = block
        program.functions["main"] = function
        unordered.mlProgram = program
        let issues = unordered.validationIssues()
        #expect(issues.contains { $0.message.contains("which nothing before it defines") && $0.location.contains("function 'main'") }, "\(issues)")
    }
    /// A nested block sees the names around it; the names it defines stay inside it, and one it
    /// defines again (an outer name) stays defined after it; a chain of conds, each reading the one
    /// before, is valid.
    @Test func nestedBlockNamesStayInside() {
        typealias P = HostilePrograms
        func branch(_ name: String, reading: String) -> CoreML_Specification_MILSpec_Block {
            var block = CoreML_Specification_MILSpec_Block()
            block.operations = [P.operation("relu", ["x": reading], output: name)]
            block.outputs = [name]
            return block
        }
        func cond(_ output: String, _ yes: CoreML_Specification_MILSpec_Block, _ no: CoreML_Specification_MILSpec_Block) -> P.Operation {
            var operation = P.operation("cond", ["pred": "p"], output: output)
            operation.blocks = [yes, no]
            return operation
        }
        let prefix = [P.constant("zero", floats: [0], shape: []), P.operation("greater", ["x": "x", "y": "zero"], output: "p")]
        // The inner name 't' is read after the cond: an issue. The outer 'x' redefined inside stays defined.
        let leaking = P.model(prefix + [cond("c", branch("t", reading: "x"), branch("x", reading: "p")),
                                        P.operation("relu", ["x": "t"], output: "y"), P.operation("relu", ["x": "x"], output: "z")],
                              outputs: ["y", "z"])
        let issues = leaking.validationIssues()
        #expect(issues.count == 1, "\(issues)")
        #expect(issues.first?.message.contains("input 'x' reads 't', which nothing before it defines") == true, "\(issues)")
        #expect(issues.first?.location.contains("operation 3 (relu → y)") == true, "\(issues)")
        // 2,000 conds, each branch reading the cond before it.
        var operations = prefix
        var last = "x"
        for index in 0..<2000 {
            operations.append(cond("c\(index)", branch("t\(index)", reading: last), branch("f\(index)", reading: last)))
            last = "c\(index)"
        }
        operations.append(P.operation("relu", ["x": last], output: "y"))
        #expect(P.model(operations, outputs: ["y"]).validationIssues().isEmpty)
    }
}
