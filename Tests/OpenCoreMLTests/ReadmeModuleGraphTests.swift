import Foundation
import Testing

/// README.md's module list ("## Modules": one target a line, `Module → Dep, Dep [Product]`) against
/// the targets `Package.swift` declares, and the rules README states for the graph. Test targets
/// are not part of the graph; external products (`.product(name:package:)`) are compared too, in
/// brackets.
@Suite("README module graph")
struct ReadmeModuleGraphTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func read(_ name: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
    }

    @Test func readmeDrawsThePackageGraph() throws {
        let package = try PackageManifest(source: Self.read("Package.swift"))
        let readme = try ReadmeModuleList(source: Self.read("README.md"))
        let differences = ReadmeModuleList.differences(readme: readme.modules, package: package.graphTargets)
        #expect(differences.isEmpty, "README.md's module list differs from Package.swift:\n\(differences.joined(separator: "\n"))")
        // The parser itself: every kind of target this Package.swift uses was found.
        #expect(package.graphTargets.contains { $0.kind == .systemLibrary && $0.name == "CZlib" })
        #expect(package.graphTargets.contains { $0.kind == .executable && $0.name == "opencoreml" })
        #expect(package.graphTargets.contains { $0.kind == .plugin && $0.name == "OpenCoreMLCodeGen" })
        #expect(package.targets.contains { $0.kind == .test })
        #expect(package.publicModules.contains("OpenCoreML") && package.publicModules.contains("CoreMLSpec"))
    }

    /// Rule 1: each module depends only on modules README lists above it (so the graph has no cycle).
    @Test func readmeListsAStack() throws {
        let readme = try ReadmeModuleList(source: Self.read("README.md"))
        #expect(readme.modules.count > 10)
        let problems = ReadmeModuleList.stackViolations(readme.modules)
        #expect(problems.isEmpty, "README.md's module list is not a stack:\n\(problems.joined(separator: "\n"))")
        let package = try PackageManifest(source: Self.read("Package.swift"))
        let cycle = PackageManifest.cycle(in: package.graphTargets)
        #expect(cycle == nil, "Package.swift's targets form a cycle: \((cycle ?? []).joined(separator: " → "))")
    }

    /// Rules 2 and 3: nothing depends on the command line, the C interface or an executable;
    /// implementation modules depend on no public module but `CoreMLSpec`.
    @Test func nothingReachesBackUp() throws {
        let package = try PackageManifest(source: Self.read("Package.swift"))
        let problems = PackageManifest.layeringViolations(package.graphTargets, publicModules: package.publicModules)
        #expect(problems.isEmpty, "Package.swift breaks README's rules:\n\(problems.joined(separator: "\n"))")
    }

    /// README's one Swift example is the program `ReadmeExampleTests` runs: each of its lines, apart from
    /// imports and the lines naming files or the epoch count, is a line of that test.
    @Test func readmeExampleIsTheTestedProgram() throws {
        let readme = try Self.read("README.md").components(separatedBy: "\n")
        let open = try #require(readme.firstIndex(of: "```swift"), "README.md has no Swift example")
        let close = try #require(readme[(open + 1)...].firstIndex(of: "```"))
        let tested = Set(try Self.read("Tests/OpenCreateMLTests/ReadmeExampleTests.swift").components(separatedBy: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) })
        let checked = readme[(open + 1)..<close].map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("import ") && !$0.contains("fileURLWithPath") && !$0.contains("configuration.parameters") }
        #expect(checked.count >= 8)
        let missing = checked.filter { !tested.contains($0) }
        #expect(missing.isEmpty, "README's example has lines ReadmeExampleTests.swift does not run:\n\(missing.joined(separator: "\n"))")
        #expect(readme[(close + 1)...].firstIndex(of: "```swift") == nil, "README should hold one Swift example")
    }

    /// The checks find what they are meant to find: a missing module, an extra arrow, a missing
    /// product, an upward arrow, a cycle.
    @Test func checksCatchBrokenGraphs() throws {
        let package = try PackageManifest(source: """
            let package = Package(
                name: "P",
                products: [.library(name: "Api", targets: ["Api"]), .executable(name: "tool", targets: ["tool"])],
                targets: [
                    // A comment with "quotes", [brackets] and (parentheses).
                    .target(name: "_Impl", dependencies: [.target(name: "CLib", condition: .when(platforms: [.linux]))]),
                    .systemLibrary(name: "CLib", pkgConfig: "lib", providers: [.apt(["lib-dev"])]),
                    .target(name: "Api", dependencies: ["_Impl", .product(name: "Ext", package: "ext")]),
                    .target(name: "CLI", dependencies: ["Api"]),
                    .executableTarget(name: "tool", dependencies: ["CLI"]),
                    .testTarget(name: "ApiTests", dependencies: ["Api", "CLI"]),
                ]
            )
            """)
        #expect(package.graphTargets.map(\.name) == ["_Impl", "CLib", "Api", "CLI", "tool"])
        #expect(package.publicModules == ["Api"])
        let good = try ReadmeModuleList(source: """
            ## Modules

            ```text
            # comment
            CLib                     # system
            _Impl → CLib
            Api   → _Impl [Ext]
            CLI   → Api
            tool  → CLI
            ```
            """)
        #expect(ReadmeModuleList.differences(readme: good.modules, package: package.graphTargets).isEmpty)
        #expect(ReadmeModuleList.stackViolations(good.modules).isEmpty)
        #expect(PackageManifest.layeringViolations(package.graphTargets, publicModules: package.publicModules).isEmpty)

        let broken = try ReadmeModuleList(source: """
            ## Modules
            ```
            _Impl → CLib
            CLib
            Api   → _Impl, CLI
            tool  → CLI
            Ghost
            ```
            """)
        let differences = ReadmeModuleList.differences(readme: broken.modules, package: package.graphTargets)
        #expect(differences.contains("Package.swift declares CLI, which README does not list"))
        #expect(differences.contains("README lists Ghost, which Package.swift does not declare"))
        #expect(differences.contains("README draws Api → CLI, which Package.swift does not declare"))
        #expect(differences.contains("Package.swift declares Api → [Ext], which README does not draw"))
        #expect(ReadmeModuleList.stackViolations(broken.modules) == [
            "_Impl depends on CLib, which README lists below it",
            "Api depends on CLI, which README does not list above it",
            "tool depends on CLI, which README does not list above it",
        ])

        let upward = try PackageManifest(source: """
            let package = Package(name: "P", products: [.library(name: "Api", targets: ["Api"])], targets: [
                .target(name: "Api", dependencies: ["CLI"]),
                .target(name: "_Impl", dependencies: ["Api"]),
                .target(name: "CLI", dependencies: ["Api"]),
                .executableTarget(name: "tool", dependencies: []),
                .target(name: "Lib", dependencies: ["tool"]),
            ])
            """)
        // The other target kinds' rules with their usual names: nothing may use OpenCoreMLCLI or OpenCoreMLC.
        let named = upward.graphTargets.map { target in
            PackageManifest.Target(name: target.name == "CLI" ? "OpenCoreMLCLI" : target.name, kind: target.kind,
                                   dependencies: target.dependencies.map { $0 == "CLI" ? "OpenCoreMLCLI" : $0 }, products: target.products)
        }
        #expect(PackageManifest.layeringViolations(named, publicModules: upward.publicModules) == [
            "Api depends on OpenCoreMLCLI (the command line)",
            "_Impl depends on Api, a public module other than CoreMLSpec",
            "Lib depends on tool, an executable",
        ])
        #expect(PackageManifest.cycle(in: upward.graphTargets) == ["Api", "CLI", "Api"])
        #expect(throws: ReadmeGraphError.self) { try ReadmeModuleList(source: "# No module list\n") }
        #expect(throws: ReadmeGraphError.self) { try PackageManifest(source: "let package = Package(name: \"P\")") }
    }
}

struct ReadmeGraphError: Error, CustomStringConvertible {
    let description: String
}

/// The targets of a `Package.swift`, read by a small tolerant parser: comments are dropped, then
/// `Package(…)`'s `targets:` and `products:` arrays are split into their elements, and each element's
/// `name:` and `dependencies:` are read. A dependency is a string literal or `.target(name:…)` /
/// `.byName(name:…)` (a target) or `.product(name:package:)` (external).
struct PackageManifest {
    enum Kind: String { case regular, executable, systemLibrary, plugin, test, binary, macro }

    struct Target: Equatable {
        var name: String
        var kind: Kind
        var dependencies: [String]
        var products: [String]
    }

    var targets: [Target] = []
    /// Targets of `.library` products.
    var publicModules: Set<String> = []

    /// Every target but test targets: the graph README draws.
    var graphTargets: [Target] { targets.filter { $0.kind != .test } }

    init(source: String) throws {
        let code = Self.strippingComments(source)
        guard let start = code.range(of: "Package(") else { throw ReadmeGraphError(description: "Package.swift: no Package(") }
        let arguments = Self.topLevelArguments(code, from: start.upperBound)
        guard let targetList = arguments["targets"] else { throw ReadmeGraphError(description: "Package.swift: no targets: array") }
        for element in Self.elements(ofArray: targetList) {
            guard let open = element.firstIndex(of: "("), element.hasPrefix(".") else {
                throw ReadmeGraphError(description: "Package.swift: cannot read target \(element)")
            }
            let call = String(element[element.index(after: element.startIndex)..<open])
            let kinds: [String: Kind] = ["target": .regular, "executableTarget": .executable, "systemLibrary": .systemLibrary,
                                         "plugin": .plugin, "testTarget": .test, "binaryTarget": .binary, "macro": .macro]
            guard let kind = kinds[call] else { throw ReadmeGraphError(description: "Package.swift: unknown target kind .\(call)") }
            let fields = Self.topLevelArguments(element, from: element.index(after: open))
            guard let name = fields["name"].flatMap(Self.stringLiteral) else {
                throw ReadmeGraphError(description: "Package.swift: a .\(call) without a literal name")
            }
            var target = Target(name: name, kind: kind, dependencies: [], products: [])
            if let list = fields["dependencies"] {
                for dependency in Self.elements(ofArray: list) {
                    if let literal = Self.stringLiteral(dependency) {
                        target.dependencies.append(literal)
                    } else if dependency.hasPrefix(".product("),
                              let product = Self.topLevelArguments(dependency, from: dependency.index(dependency.startIndex, offsetBy: 9))["name"].flatMap(Self.stringLiteral) {
                        target.products.append(product)
                    } else if let open = dependency.firstIndex(of: "("), dependency.hasPrefix(".target(") || dependency.hasPrefix(".byName("),
                              let name = Self.topLevelArguments(dependency, from: dependency.index(after: open))["name"].flatMap(Self.stringLiteral) {
                        target.dependencies.append(name)
                    } else {
                        throw ReadmeGraphError(description: "Package.swift: target \(name): cannot read dependency \(dependency)")
                    }
                }
            }
            targets.append(target)
        }
        for product in arguments["products"].map(Self.elements(ofArray:)) ?? [] where product.hasPrefix(".library(") {
            let fields = Self.topLevelArguments(product, from: product.index(product.startIndex, offsetBy: 9))
            for target in fields["targets"].map(Self.elements(ofArray:)) ?? [] {
                if let name = Self.stringLiteral(target) { publicModules.insert(name) }
            }
        }
    }

    /// The source without `//` and `/* */` comments (string literals kept as they are).
    static func strippingComments(_ source: String) -> String {
        var result = "", inString = false, escaped = false
        var characters = Array(source)[...]
        while let character = characters.first {
            characters = characters.dropFirst()
            if inString {
                result.append(character)
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
                result.append(character)
            } else if character == "/", characters.first == "/" {
                characters = characters.drop { $0 != "\n" }
            } else if character == "/", characters.first == "*" {
                characters = characters.dropFirst()
                while !characters.isEmpty, !(characters.first == "*" && characters.dropFirst().first == "/") { characters = characters.dropFirst() }
                characters = characters.dropFirst(2)
                result.append(" ")
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// Walks the text from just inside an opening bracket to its closing one and returns the pieces
    /// between top-level commas.
    static func topLevelPieces(_ text: String, from start: String.Index) -> [Substring] {
        var pieces: [Substring] = [], depth = 0, inString = false, escaped = false, pieceStart = start
        var index = start
        while index < text.endIndex {
            let character = text[index]
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if "([{".contains(character) {
                depth += 1
            } else if ")]}".contains(character) {
                if depth == 0 {
                    pieces.append(text[pieceStart..<index])
                    return pieces
                }
                depth -= 1
            } else if character == ",", depth == 0 {
                pieces.append(text[pieceStart..<index])
                pieceStart = text.index(after: index)
            }
            index = text.index(after: index)
        }
        pieces.append(text[pieceStart...])
        return pieces
    }

    /// `label: value` arguments of a call, from just inside its parenthesis.
    static func topLevelArguments(_ text: String, from start: String.Index) -> [String: String] {
        var arguments: [String: String] = [:]
        for piece in topLevelPieces(text, from: start) {
            guard let colon = piece.firstIndex(of: ":") else { continue }
            let label = piece[..<colon].trimmingCharacters(in: .whitespacesAndNewlines)
            guard !label.isEmpty, label.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { continue }
            arguments[label] = piece[piece.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return arguments
    }

    /// The elements of an array literal `[a, b, …]`.
    static func elements(ofArray text: String) -> [String] {
        guard text.hasPrefix("[") else { return [] }
        return topLevelPieces(text, from: text.index(after: text.startIndex))
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
    }

    /// The value of a plain string literal `"…"`, or nil.
    static func stringLiteral(_ text: String) -> String? {
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\""), !text.dropFirst().dropLast().contains("\"") else { return nil }
        return String(text.dropFirst().dropLast())
    }

    /// A cycle among the targets' dependencies, as a path that returns to its start, or nil.
    static func cycle(in targets: [Target]) -> [String]? {
        let dependencies = Dictionary(targets.map { ($0.name, $0.dependencies) }, uniquingKeysWith: { first, _ in first })
        var done: Set<String> = []
        func visit(_ name: String, _ path: [String]) -> [String]? {
            if let index = path.firstIndex(of: name) { return Array(path[index...]) + [name] }
            if done.contains(name) { return nil }
            for dependency in dependencies[name] ?? [] {
                if let cycle = visit(dependency, path + [name]) { return cycle }
            }
            done.insert(name)
            return nil
        }
        for target in targets {
            if let cycle = visit(target.name, []) { return cycle }
        }
        return nil
    }

    /// README's rules 2 and 3.
    static func layeringViolations(_ targets: [Target], publicModules: Set<String>) -> [String] {
        let kinds = Dictionary(targets.map { ($0.name, $0.kind) }, uniquingKeysWith: { first, _ in first })
        var problems: [String] = []
        for target in targets {
            for dependency in target.dependencies {
                if dependency == "OpenCoreMLCLI", target.kind != .executable {
                    problems.append("\(target.name) depends on OpenCoreMLCLI (the command line)")
                }
                if dependency == "OpenCoreMLC" {
                    problems.append("\(target.name) depends on OpenCoreMLC (the C interface)")
                }
                if kinds[dependency] == .executable, target.kind != .plugin {
                    problems.append("\(target.name) depends on \(dependency), an executable")
                }
                if target.name.hasPrefix("_"), publicModules.contains(dependency), dependency != "CoreMLSpec" {
                    problems.append("\(target.name) depends on \(dependency), a public module other than CoreMLSpec")
                }
            }
        }
        return problems
    }
}

/// README's module list: the first fenced block after the heading `## Modules`. Each line is
/// `Module`, or `Module → Dep, Dep`, optionally followed by `[Product, Product]`; `#` starts a
/// comment; blank lines are skipped.
struct ReadmeModuleList {
    struct Module: Equatable {
        var name: String
        var dependencies: [String]
        var products: [String]
    }

    var modules: [Module] = []

    init(source: String) throws {
        let lines = source.components(separatedBy: "\n")
        guard let heading = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "## Modules" }) else {
            throw ReadmeGraphError(description: "README.md: no '## Modules' section")
        }
        guard let open = lines[heading...].firstIndex(where: { $0.hasPrefix("```") }),
              let close = lines[(open + 1)...].firstIndex(where: { $0.hasPrefix("```") }) else {
            throw ReadmeGraphError(description: "README.md: no fenced block under '## Modules'")
        }
        for (offset, raw) in lines[(open + 1)..<close].enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            var text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            var products: [String] = []
            if let bracket = text.firstIndex(of: "[") {
                guard text.hasSuffix("]") else {
                    throw ReadmeGraphError(description: "README.md line \(open + offset + 2): '[' without a closing ']' at the end")
                }
                products = Self.names(text[text.index(after: bracket)..<text.index(before: text.endIndex)])
                text = text[..<bracket].trimmingCharacters(in: .whitespaces)
            }
            let sides = text.components(separatedBy: "→")
            guard sides.count <= 2, let name = sides.first?.trimmingCharacters(in: .whitespaces), !name.isEmpty, !name.contains(" ") else {
                throw ReadmeGraphError(description: "README.md line \(open + offset + 2): cannot read '\(raw)'")
            }
            modules.append(Module(name: name, dependencies: sides.count == 2 ? Self.names(Substring(sides[1])) : [], products: products))
        }
    }

    static func names(_ text: Substring) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Every way README's list and the package's targets differ, one line each.
    static func differences(readme: [Module], package: [PackageManifest.Target]) -> [String] {
        var problems: [String] = []
        let drawn = Dictionary(readme.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let declared = Dictionary(package.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in Set(readme.map(\.name)) where readme.filter({ $0.name == name }).count > 1 {
            problems.append("README lists \(name) more than once")
        }
        for target in package where drawn[target.name] == nil {
            problems.append("Package.swift declares \(target.name), which README does not list")
        }
        for module in readme where declared[module.name] == nil {
            problems.append("README lists \(module.name), which Package.swift does not declare")
        }
        for module in readme {
            guard let target = declared[module.name] else { continue }
            for dependency in module.dependencies where !target.dependencies.contains(dependency) {
                problems.append("README draws \(module.name) → \(dependency), which Package.swift does not declare")
            }
            for dependency in target.dependencies where !module.dependencies.contains(dependency) {
                problems.append("Package.swift declares \(module.name) → \(dependency), which README does not draw")
            }
            for product in module.products where !target.products.contains(product) {
                problems.append("README draws \(module.name) → [\(product)], which Package.swift does not declare")
            }
            for product in target.products where !module.products.contains(product) {
                problems.append("Package.swift declares \(module.name) → [\(product)], which README does not draw")
            }
        }
        return problems
    }

    /// README's rule 1: every dependency is listed above the module that has it.
    static func stackViolations(_ modules: [Module]) -> [String] {
        var above: Set<String> = [], problems: [String] = []
        let listed = Set(modules.map(\.name))
        for module in modules {
            for dependency in module.dependencies where !above.contains(dependency) {
                problems.append(listed.contains(dependency)
                    ? "\(module.name) depends on \(dependency), which README lists below it"
                    : "\(module.name) depends on \(dependency), which README does not list above it")
            }
            above.insert(module.name)
        }
        return problems
    }
}
