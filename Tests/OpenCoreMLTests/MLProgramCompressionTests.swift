import CoreMLSpec
import Foundation
import OpenCoreML
import Testing

/// ML Programs whose weights coremltools 9.0 compressed (make_compressed_mlprograms.py: linear
/// quantization, palettization, pruning and their joint forms, for iOS 16 and iOS 18; vector LUTs
/// built with the MIL builder), run through
/// `MLModel` against numpy's forward pass with the weights as coremltools decompresses them
/// (compressed_facts.json), within 1e-4; and their weight files read by stored type.
@Suite("ML Programs with compressed weights")
struct MLProgramCompressionTests {
    static let packages = ["QuantizedInt8.mlpackage", "QuantizedUInt8.mlpackage", "Palettized16.mlpackage", "Pruned16.mlpackage",
                           "QuantizedInt4.mlpackage", "Palettized18.mlpackage", "PrunedQuantized18.mlpackage",
                           "PrunedPalettized18.mlpackage", "Vector18.mlpackage"]
    /// The packages compressed from the float network (Vector18 is built compressed).
    static let compressedFromFloat = packages.filter { $0 != "Vector18.mlpackage" }

    static func facts(_ package: String) throws -> [String: Any] {
        try #require(try MLProgramTorchTests.facts("compressed_facts.json")[package] as? [String: Any])
    }

    @Test(arguments: packages)
    func predictsWhatNumpyComputesFromTheDecompressedWeights(package: String) throws {
        try MLProgramTorchTests.check(package, Self.facts(package), float16: false)
    }

    /// The references depend on the decompression: the uncompressed weights' outputs are at least
    /// ten times the tolerance away from them, so a decompression that ignored scales, offsets,
    /// tables or masks could not pass.
    @Test(arguments: compressedFromFloat)
    func theCompressionChangesTheOutputsByMoreThanTheTolerance(package: String) throws {
        let facts = try Self.facts(package)
        let reference = try MLProgramTorchTests.Tensor((facts["outputs"] as? [String: Any])?["y"])
        let uncompressed = try MLProgramTorchTests.Tensor((facts["floatOutputs"] as? [String: Any])?["y"])
        let difference = zip(reference.values, uncompressed.values).map { abs($0 - $1) }.max() ?? 0
        #expect(difference > 1e-3, "\(package): the uncompressed weights' outputs are within \(difference) of the reference")
    }

    /// Every constexpr operation type is exercised by some fixture (a regenerated fixture that lost
    /// one would otherwise pass without running it).
    @Test func theFixturesHoldEveryConstexprOperation() throws {
        var types: Set<String> = []
        for package in Self.packages {
            types.formUnion(((try Self.facts(package))["operationCounts"] as? [String: Int] ?? [:]).keys)
        }
        #expect(types.isSuperset(of: ["constexpr_affine_dequantize", "constexpr_cast", "constexpr_lut_to_dense",
                                      "constexpr_sparse_to_dense", "constexpr_blockwise_shift_scale",
                                      "constexpr_sparse_blockwise_shift_scale", "constexpr_lut_to_sparse"]))
    }

    /// The weight file's blobs by stored type (sub-byte ones included) are the ones the program
    /// declares, as coremltools counted them.
    @Test(arguments: packages)
    func readsTheWeightFileByStoredType(package: String) throws {
        let url = MLProgramTorchTests.folder.appendingPathComponent(package)
        let model = try CoreML_Specification_Model(contentsOf: url)
        guard case .mlProgram(let program)? = model.type else { Issue.record("\(package) is not an ML Program"); return }
        let weights = try MLProgramWeights(program: program, package: ModelPackage(contentsOf: url))
        var counts: [String: Int] = [:]
        for entry in weights.entries { counts["\(entry.dataType)", default: 0] += 1 }
        let expected = try #require(try Self.facts(package)["blobTypes"] as? [String: Int])
        // coremltools spells types "UINT4"; the blob types are named "uint4".
        #expect(counts == Dictionary(uniqueKeysWithValues: expected.map { ($0.key.lowercased().replacingOccurrences(of: "_", with: ""), $0.value) }))
        for entry in weights.entries {
            #expect(entry.bytes == entry.dataType.byteCount(for: entry.count), "\(package): \(entry.operation).\(entry.name)")
        }
    }
}
