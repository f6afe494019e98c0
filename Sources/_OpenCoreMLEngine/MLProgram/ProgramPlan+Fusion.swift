import CoreMLSpec
import _OpenCoreMLKernels

/// An activation an ML Program applies right after an operation, run inside that operation
/// instead (a `conv` or `add` followed by `relu` or `relu6`): the step writes the activation's output
/// directly, with no pass of its own over the tensor and no tensor in between.
enum MILFusedActivation: Equatable, Sendable {
    /// `min(max(x, lower), upper)`: `relu` is 0 and infinity, `relu6` 0 and 6. NaN stays NaN, as in
    /// the operations run on their own.
    case clamp(lower: Float, upper: Float)

    /// The activation for an operation of MIL type `type`, nil for one that cannot be fused.
    init?(type: String) {
        switch type {
        case "relu": self = .clamp(lower: 0, upper: .infinity)
        case "relu6": self = .clamp(lower: 0, upper: 6)
        default: return nil
        }
    }

    /// The bounds of a kernel that clamps its own output (a ReLU's are 0 and infinity; none is
    /// the whole line).
    static func bounds(_ activation: MILFusedActivation?) -> (lower: Float, upper: Float) {
        switch activation {
        case nil: return (-.infinity, .infinity)
        case .clamp(let lower, let upper): return (lower, upper)
        }
    }

    /// What a GEMM applies to each finished block of its product: `rowBias` (one value per row,
    /// or none), then `activation` (or none).
    static func epilogue(_ activation: MILFusedActivation?, rowBias: UnsafePointer<Float>?) -> ocm_gemm_epilogue {
        switch activation {
        case nil: return ocm_gemm_epilogue(row_bias: rowBias, activation: OCM_EPILOGUE_NONE, lo: 0, hi: 0, col_bias: nil)
        case .clamp(let lower, let upper): return ocm_gemm_epilogue(row_bias: rowBias, activation: OCM_EPILOGUE_CLAMP, lo: lower, hi: upper, col_bias: nil)
        }
    }
}

extension ProgramPlan.Builder {
    /// The operation types that can run an activation on their own output (a residual block's
    /// `add` is followed by a `relu`).
    static let fusingTypes: Set<String> = ["conv", "add"]

    /// How many times each name is read in a block: by its operations (nested blocks included,
    /// as ``namesRead(_:)`` counts them) and by the block's own `outputs`; nil when `reads` is
    /// (a block over the read budget), and then nothing in the block is fused.
    static func readerCounts(_ reads: [[String]]?, outputs: [String]) -> [String: Int]? {
        guard let reads else { return nil }
        var counts: [String: Int] = [:]
        for name in outputs + reads.joined() { counts[name, default: 0] += 1 }
        return counts
    }

    /// The activation `operations[index + 1]` applies to `operations[index]`'s only output when
    /// it can run inside that operation: the first is a fusing type, the second an activation
    /// with no other arguments whose `x` is that output, and nothing else reads the output.
    /// Returns the activation and the value it defines (which the fused step writes).
    static func fusion(at index: Int, in operations: [CoreML_Specification_MILSpec_Operation],
                       readers: [String: Int]?) -> (activation: MILFusedActivation, output: CoreML_Specification_MILSpec_NamedValueType)? {
        guard let readers, index + 1 < operations.count else { return nil }
        let (first, next) = (operations[index], operations[index + 1])
        guard fusingTypes.contains(first.type), first.outputs.count == 1, first.blocks.isEmpty,
              let activation = MILFusedActivation(type: next.type), next.outputs.count == 1, next.inputs.count == 1,
              let x = next.inputs["x"]?.arguments, x.count == 1, case .name(let name)? = x[0].binding,
              name == first.outputs[0].name, readers[name] == 1 else { return nil }
        return (activation, next.outputs[0])
    }
}
