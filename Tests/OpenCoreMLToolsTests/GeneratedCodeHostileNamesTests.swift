import CoreMLSpec
import Foundation
import OpenCoreMLTools
import Testing
import _OpenCoreMLTestSupport

/// The model-class generator on models whose names and metadata are hostile: every generated file
/// type-checks with the real compiler against the built `OpenCoreML` module, and no text from a
/// model ever becomes code (a marker in every payload only appears in comments and string literals).
struct GeneratedCodeHostileNamesTests {
    static let marker = "INJECTED"

    /// Names meant to escape a comment or a string literal, or to hide in the source: each holds
    /// code (`print("INJECTED")`, `deinit`, `func INJECTED`) that must never reach the source as code.
    static let payloads = [
        "x\n    deinit { print(\"\(marker)\") }\n    //",
        "x\r    func \(marker)() {}",
        "x\r\nlet \(marker) = 1",
        "x\u{2028}print(\"\(marker)\")",
        "x\u{2029}print(\"\(marker)\")",
        "x\u{85}print(\"\(marker)\")",
        "x\u{0B}print(\"\(marker)\")",
        "x\u{0C}print(\"\(marker)\")",
        "a */ print(\"\(marker)\") /*",
        "\"\"\"\nprint(\"\(marker)\")\n\"\"\"",
        "\\(print(\"\(marker)\"))",
        "#\"\(marker)\"#",
        "\"#) ; print(\"\(marker)\") ; (#\"",
        "admin\u{202E}\(marker)\u{202C}",
        "\u{2066}\(marker)\u{2069}",
        "\u{200E}\(marker)\u{200F}\u{61C}",
        "\u{0}\(marker)\u{1B}[2J\u{7F}",
        "🐶\(marker)👩‍👩‍👧",
        "`\(marker)`",
    ]

    /// Names that are valid strings for a model but not, as they are, Swift identifiers the
    /// generated classes can use.
    static let names = [
        "Type", "Protocol", "self", "Self", "init", "_", "__", "class", "default", "inout", "Any", "-", ".", "123", "9lives",
        "\u{301}x", "\u{301}", "a.b", "a_b", "model", "model_", "featureValue", "featureValue_", "provider", "featureNames",
        "String", "Int64", "Double", "URL", "MLModel", "MLFeatureValue", "MLMultiArray", "OpenCoreML", "Swift", "Foundation",
        "CVPixelBuffer", "kCVPixelFormatType_32BGRA", "Bundle", "Result", "Error", "Set", "Dictionary", "NSNumber",
        "input", "options", "featureName", "url", "prediction", "predictions", "load", "urlOfModelInThisBundle",
        "pixelBuffer", "Hostile", "HostileInput", "HostileOutput", "setClass", "classAt", "setImage", "imageAt",
        String(repeating: "long", count: 1500), "é", "e\u{301}x", "ǅungla", "Ⅻ", "日本語", "x\u{200B}y",
    ]

    /// Feature types, cycled through the features (with images where derived names matter).
    static func type(_ index: Int, name: String) -> CoreML_Specification_FeatureType {
        var type = CoreML_Specification_FeatureType()
        switch name == "class" || name == "image" || name == "Type" ? 4 : index % 6 {
        case 0:
            var array = CoreML_Specification_ArrayFeatureType()
            array.shape = [3]
            array.dataType = .float32
            type.multiArrayType = array
        case 1: type.doubleType = .init()
        case 2: type.int64Type = .init()
        case 3: type.stringType = .init()
        case 4:
            var image = CoreML_Specification_ImageFeatureType()
            image.width = 4
            image.height = 4
            image.colorSpace = index % 2 == 0 ? .rgb : .grayscale
            type.imageType = image
        default:
            var dictionary = CoreML_Specification_DictionaryFeatureType()
            dictionary.stringKeyType = .init()
            type.dictionaryType = dictionary
        }
        type.isOptional = index % 5 == 3
        return type
    }

    static func feature(_ name: String, _ type: CoreML_Specification_FeatureType, description: String = "") -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        feature.type = type
        feature.shortDescription = description
        return feature
    }

    /// A model with `inputs`, `outputs` and (updatable) `trainingInputs`, and every payload in its
    /// metadata.
    static func model(inputs: [String], outputs: [String], trainingInputs: [String] = [], describe: Bool = false) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        let describe = { (index: Int) in describe && index % 2 == 0 ? payloads[index % payloads.count] : "" }
        model.description_p.input = inputs.enumerated().map { feature($1, type($0, name: $1), description: describe($0)) }
        model.description_p.output = outputs.enumerated().map { feature($1, type($0 + 1, name: $1), description: describe($0 + 1)) }
        model.description_p.trainingInput = trainingInputs.enumerated().map { feature($1, type($0, name: $1)) }
        model.isUpdatable = !trainingInputs.isEmpty
        model.description_p.metadata.shortDescription = payloads.joined(separator: " ")
        model.description_p.metadata.author = payloads.reversed().joined(separator: "\n")
        model.description_p.metadata.license = payloads.joined(separator: "\u{2028}")
        return model
    }

    /// The generated files: class name → source.
    static func sources() throws -> [(className: String, source: String)] {
        let all = payloads + names + ["image"]
        var models: [(String, CoreML_Specification_Model)] = [
            ("Hostile", model(inputs: all, outputs: all.reversed(), trainingInputs: all)),
            ("HostileDescribed", model(inputs: all, outputs: Array(all.prefix(20)), describe: true)),
            ("SingleInput", model(inputs: ["input"], outputs: ["features"])),
            ("SingleOptions", model(inputs: ["options"], outputs: ["provider"])),
            ("NoFeatures", model(inputs: [], outputs: [])),
        ]
        // One model per name, so that each is also the only feature (labels, overloads).
        for (index, name) in (payloads + names).enumerated() { models.append(("Single\(index)", model(inputs: [name], outputs: [name]))) }
        // Class names that shadow the types the generated code uses.
        for name in ["MLModel", "String", "URL", "Result", "Error", "MLFeatureValue", "MLMultiArray", "MLFeatureProvider", "Set",
                     "Int64", "Double", "Dictionary", "NSNumber", "AnyHashable", "Void", "Int", "UInt32", "MLModelConfiguration",
                     "MLPredictionOptions", "MLArrayBatchProvider", "MLDictionaryFeatureProvider", "日本語"] {
            models.append((name, model(inputs: ["image", "input", "x"], outputs: ["label", "features"], trainingInputs: ["image", "label"])))
        }
        return try models.map { name, model in (name, try ModelClassGenerator(model: model, className: name).source()) }
    }

    @Test(.enabled(if: swiftc() != nil, "no swiftc on PATH"))
    func everyGeneratedFileTypeChecks() throws {
        let sources = try Self.sources()
        let swiftc = try #require(Self.swiftc())
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [String] = []
        for (className, source) in sources {
            let file = folder.appendingPathComponent("\(files.count)-\(className).swift")
            try Data(source.utf8).write(to: file)
            files.append(file.path)
        }
        // What SwiftPM generates for a target with resources, which a lone swiftc does not have.
        let shim = folder.appendingPathComponent("BundleModule.swift")
        try Data("import Foundation\nextension Foundation.Bundle { static var module: Foundation.Bundle { .main } }\n".utf8).write(to: shim)
        files.append(shim.path)

        let flags = try #require(Self.moduleFlags(), "the built OpenCoreML module was not found under .build")
        let result = try Self.run(swiftc, ["-typecheck", "-module-name", "HostileNames"] + flags + files)
        let errors = result.output.split(separator: "\n").filter { $0.contains("error:") }.prefix(20)
        #expect(result.status == 0, "swiftc -typecheck failed:\n\(errors.joined(separator: "\n"))")
    }

    @Test func noTextFromTheModelBecomesCode() throws {
        for (className, source) in try Self.sources() {
            for (number, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                // Sanitized identifiers may spell the marker inside a longer word (`x_____INJECTED_`);
                // the payloads' own words standing alone would be their code.
                let words = Self.codeOutsideCommentsAndLiterals(String(line)).split { !($0.isLetter || $0.isNumber || $0 == "_") }
                let injected = words.filter { [Self.marker, "print", "deinit"].contains(String($0)) }
                #expect(injected.isEmpty, "\(className).swift:\(number + 1): model text outside a comment or literal: \(line)")
            }
            let hidden = source.unicodeScalars.filter(Self.isHiddenOrLineBreaking)
            #expect(hidden.isEmpty, "\(className).swift holds \(hidden.map { String($0.value, radix: 16) })")
        }
    }

    @Test func namesAreSanitizedDeterministicallyAndOrdinaryNamesKept() throws {
        let model = Self.model(inputs: ["a.b", "a_b", "model", "model_", "class", "image", "setImage"], outputs: ["x"])
        let source = try ModelClassGenerator(model: model, className: "Names").source()
        #expect(source == (try ModelClassGenerator(model: model, className: "Names").source()))
        for declaration in ["var a_b: Swift.Double", "var a_b_: OpenCoreML.MLMultiArray", "var model__: Swift.Int64", "var model_: Swift.String?",
                            "var `class`: CVPixelBuffer", "func setClass(with url:", "classAt `class`: Foundation.URL",
                            "var image: CVPixelBuffer", "var setImage: OpenCoreML.MLMultiArray", "func setImage_(with url:"] {
            #expect(source.contains(declaration), "missing: \(declaration)")
        }
    }

    /// 3,000 inputs whose names all sanitize to `a__` (an `a` and two mathematical operators each):
    /// each gets its own identifier, one `_` more than the one before, in the model's order.
    @Test func manyNamesThatSanitizeAlikeGetOneIdentifierEach() throws {
        let names = (0..<3000).map { index in
            "a" + String(Character(Unicode.Scalar(0x2200 + index / 256)!)) + String(Character(Unicode.Scalar(0x2200 + index % 256)!))
        }
        let source = try ModelClassGenerator(model: Self.model(inputs: names, outputs: ["y"]), className: "Alike").source()
        for count in [2, 3, 1500, 3001] {
            #expect(source.contains("var a\(String(repeating: "_", count: count)):"), "no input property with \(count) underscores")
        }
        #expect(!source.contains("var a\(String(repeating: "_", count: 3002)):"))
    }

    @Test func namesThatCannotBeMadeValidAreRefusedByName() throws {
        for name in ["Swift", "Foundation", "OpenCoreML", "Bundle", "CVPixelBuffer", "class", "Type", "9lives", "\u{301}x", "", "a b", "x\ny"] {
            #expect(throws: ModelToolsError.self, "class name \(name.debugDescription)") {
                try ModelClassGenerator(model: Self.model(inputs: ["x"], outputs: ["y"]), className: name)
            }
        }
        do {
            _ = try ModelClassGenerator(model: Self.model(inputs: ["x", ""], outputs: ["y"]), className: "Empty")
            Issue.record("a feature without a name was accepted")
        } catch let error as ModelToolsError {
            #expect(error.location == "input #2 with an empty name")
        }
        do {
            _ = try ModelClassGenerator(model: Self.model(inputs: ["x\n", "x\n"], outputs: ["y"]), className: "Twice")
            Issue.record("two inputs of one name were accepted")
        } catch let error as ModelToolsError {
            #expect(error.description.contains("\"x\\n\"") && !error.description.contains("\n"), "\(error)")
        }
    }

    // MARK: The compiler

    /// `swiftc` on PATH.
    static func swiftc() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("swiftc") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// `-I` for the build's Swift modules and `-fmodule-map-file` for its C modules (those
    /// `OpenCoreML` imports), from the build folder this test runs in (or the package's `.build`).
    static func moduleFlags() -> [String]? {
        let fileManager = FileManager.default
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        let build = root.appendingPathComponent(".build")
        for triple in (try? fileManager.contentsOfDirectory(atPath: build.path)) ?? [] {
            candidates.append(build.appendingPathComponent(triple).appendingPathComponent("debug"))
        }
        guard let products = candidates.first(where: {
            fileManager.fileExists(atPath: $0.appendingPathComponent("Modules/OpenCoreML.swiftmodule").path)
        }) else { return nil }
        var maps: [String] = []
        for entry in (try? fileManager.contentsOfDirectory(atPath: products.path)) ?? [] where entry.hasSuffix(".build") && !entry.hasSuffix("-tool.build") {
            let map = products.appendingPathComponent(entry).appendingPathComponent("module.modulemap")
            if fileManager.fileExists(atPath: map.path) { maps.append(map.path) }
        }
        let sources = root.appendingPathComponent("Sources")
        for target in (try? fileManager.contentsOfDirectory(atPath: sources.path)) ?? [] {
            for place in ["module.modulemap", "include/module.modulemap"] {
                let map = sources.appendingPathComponent(target).appendingPathComponent(place)
                if fileManager.fileExists(atPath: map.path) { maps.append(map.path) }
            }
        }
        return ["-I", products.appendingPathComponent("Modules").path] + maps.sorted().flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] }
    }

    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    // MARK: Reading the generated source

    /// `line` without its `//` comment and with the contents of its `"…"` literals removed (the
    /// generator writes only one-line literals with backslash escapes).
    static func codeOutsideCommentsAndLiterals(_ line: String) -> String {
        var code = ""
        var inLiteral = false, escaped = false
        var characters = Array(line.unicodeScalars)[...]
        while let scalar = characters.popFirst() {
            if inLiteral {
                if escaped { escaped = false } else if scalar == "\\" { escaped = true } else if scalar == "\"" { inLiteral = false; code += "\"" }
            } else if scalar == "\"" {
                inLiteral = true
                code += "\""
            } else if scalar == "/", characters.first == "/" {
                break
            } else {
                code.unicodeScalars.append(scalar)
            }
        }
        return code
    }

    /// Characters that must never be in generated source as they are: controls other than the
    /// newline, Unicode line breaks, bidirectional controls.
    static func isHiddenOrLineBreaking(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value == 0x0A { return false }
        return value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
            || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0x200E || value == 0x200F || value == 0x61C
    }
}
