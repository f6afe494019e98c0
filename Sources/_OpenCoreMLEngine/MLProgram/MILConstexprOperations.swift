import CoreMLSpec

/// The compile-time operations (`constexpr_*`) with which ML Programs store weights compressed:
/// quantized, palettized (a look-up table and indices), pruned (a bit mask and the non-zero
/// values), or float16 to widen. Every parameter is a constant, so ``ProgramPlan`` evaluates them
/// once when it compiles the program and keeps their outputs as constants: a prediction never
/// decompresses a weight.
///
/// iOS 16's forms take their parameters as attributes, iOS 18's as inputs (values, or the names of
/// constants and of earlier constexpr outputs); `constexpr_lut_to_dense` and
/// `constexpr_sparse_to_dense` exist in both versions and are told apart by iOS 16's `shape`
/// parameter. The families are in `MILConstexprOperations+Quantization.swift`, `+Palettization`
/// and `+Sparsity`.
enum MILConstexprOperations {
    typealias Evaluate = @Sendable (ConstexprParameters) throws -> [MILTensor]

    static let table: [String: Evaluate] = [
        "constexpr_affine_dequantize": affineDequantize,
        "constexpr_cast": cast,
        "constexpr_blockwise_shift_scale": blockwiseShiftScale,
        "constexpr_sparse_blockwise_shift_scale": sparseBlockwiseShiftScale,
        "constexpr_lut_to_dense": { $0.has("shape") ? try lutToDenseIOS16($0) : try lutToDense($0) },
        "constexpr_lut_to_sparse": lutToSparse,
        "constexpr_sparse_to_dense": { $0.has("shape") ? try sparseToDenseIOS16($0) : try sparseToDense($0) },
    ]

    /// Evaluates `operation`, a constexpr operation, with `constants` (those defined before it).
    ///
    /// - Parameter limit: the most values one output, or one parameter given in place, may hold.
    /// - Returns: its outputs, in order.
    /// - Throws: `EngineError` naming the operation and parameter: an unknown type, a parameter
    ///   missing, computed while the program runs, or inconsistent with the others (sizes, ranks,
    ///   an index outside its table), an output larger than `limit`.
    static func evaluate(_ operation: CoreML_Specification_MILSpec_Operation, constants: [String: MILConstant],
                         place: String, limit: Int) throws -> [MILTensor] {
        guard let evaluate = table[operation.type] else {
            throw EngineError("\(place): operation type '\(operation.type)' is not supported yet")
        }
        var values: [String: MILConstant] = [:]
        for (name, value) in operation.attributes where name != "name" {
            values[name] = try MILConstant(value, at: "\(place), attribute '\(name)'", limit: limit)
        }
        for (name, argument) in operation.inputs {
            guard let binding = argument.arguments.first, argument.arguments.count == 1 else {
                throw EngineError("\(place): input '\(name)' must be bound to one value")
            }
            switch binding.binding {
            case .value(let value)?:
                values[name] = try MILConstant(value, at: "\(place), input '\(name)'", limit: limit)
            case .name(let source)?:
                guard let constant = constants[source] else {
                    throw EngineError("\(place): input '\(name)' reads '\(source)', which is not a constant")
                }
                values[name] = constant
            case nil:
                throw EngineError("\(place): input '\(name)' is bound to nothing")
            }
        }
        let outputs = try evaluate(ConstexprParameters(values: values, place: place, limit: limit))
        guard outputs.count == operation.outputs.count else {
            throw EngineError("\(place): \(operation.outputs.count) outputs; '\(operation.type)' has \(outputs.count)")
        }
        return outputs
    }
}

/// A constexpr operation's parameters, all constant, and what its evaluation needs to check sizes
/// and name itself in errors.
struct ConstexprParameters {
    let values: [String: MILConstant]
    let place: String
    /// The most values one output may hold.
    let limit: Int

    func has(_ name: String) -> Bool { values[name] != nil }

    func fail(_ message: String) -> EngineError { EngineError("\(place): \(message)") }

    /// A tensor parameter that must be present.
    func tensor(_ name: String) throws -> MILTensor {
        guard let tensor = try optionalTensor(name) else { throw fail("parameter '\(name)' is missing") }
        return tensor
    }

    func optionalTensor(_ name: String) throws -> MILTensor? {
        guard let value = values[name] else { return nil }
        guard let tensor = value.tensor else { throw fail("parameter '\(name)' must be a tensor, not strings") }
        return tensor
    }

    /// An integer parameter (nil when absent).
    func integer(_ name: String) throws -> Int? {
        guard let tensor = try optionalTensor(name) else { return nil }
        guard tensor.count == 1 else { throw fail("parameter '\(name)' must be one integer, not \(tensor.count) values") }
        return try integers(tensor, name).first
    }

    /// The values of `tensor` as integers in 0..<`bound` (bound ≤ 2³⁰ by default).
    func integers(_ tensor: MILTensor, _ name: String, below bound: Int = 1 << 30, allowNegative: Bool = true) throws -> [Int] {
        try tensor.values.map { value in
            guard value.isFinite, value == value.rounded(), abs(value) < Float(1 << 30) else {
                throw fail("parameter '\(name)' holds \(value), not an integer")
            }
            let integer = Int(value)
            guard integer < bound, allowNegative || integer >= 0 else {
                throw fail("parameter '\(name)' holds \(integer), outside 0..<\(bound)")
            }
            return integer
        }
    }

    /// The number of values `shape` holds, checked against the limit.
    func count(_ shape: [Int]) throws -> Int { try MILTensor.checkedCount(shape, limit: limit, place) }
}
