import CoreMLSpec

private typealias Operation = CoreML_Specification_MILSpec_Operation

/// A `pad` folded into the window of the convolution or pooling that reads it: the reader pads
/// its own window instead (`pad_type` `custom` with the two paddings added), and the padded tensor
/// is never made. TensorFlow-converted models pad explicitly before every strided convolution.
///
/// A `pad` at operation i folds into operation j of the same block exactly when:
/// - its `pad` amounts are constant, non-negative, and pad only the last two axes (H and W; more
///   than four amounts must begin with zeros); its `mode` is `constant` (or absent) and its
///   `constant_val` is 0 (or absent);
/// - its output is read exactly once in the block (nested blocks and the block's outputs
///   included), as the `x` of operation j;
/// - j's own padding is `valid` (or absent) or `custom` with constant amounts — not `same` or
///   `same_lower`, whose padding depends on the size of the padded input — and j is
///   - a `conv` (zeros in its window add nothing to the product: the same for every input);
///   - an `avg_pool` that counts the padding (`exclude_padding_from_average` false or absent)
///     without `ceil_mode`: the padded zeros count in the divisor either way;
///   - a `max_pool` without `ceil_mode` whose input the pad reads straight from a `relu` or
///     `relu6` of the block: its window's values are never below 0, so a padded 0 never wins
///     over them, and a window wholly in the padding gives 0 both ways (equal for every input
///     without NaN; a max pool over values that may be negative is never folded, since its padding
///     never wins where an explicit 0 would).
///
/// Anything else (a reflecting or replicating pad, a non-zero constant, a second reader, a pad of N
/// or C) leaves the pad as its own step. The places in later error messages count the operations
/// after folding.
extension ProgramPlan.Builder {
    /// `operations` with every pad that can fold into its reader's window folded (see above).
    func foldingPads(_ operations: [CoreML_Specification_MILSpec_Operation], outputs: [String]) -> [CoreML_Specification_MILSpec_Operation] {
        guard operations.contains(where: { $0.type == "pad" }),
              let readers = Self.readerCounts(Self.namesRead(operations), outputs: outputs) else { return operations }
        var constantValues: [String: CoreML_Specification_MILSpec_Value] = [:], producers: [String: String] = [:]
        for operation in operations {
            for output in operation.outputs { producers[output.name] = operation.type }
            if operation.type == "const", let output = operation.outputs.first, let value = operation.attributes["val"] {
                constantValues[output.name] = value
            }
        }
        /// A parameter of `operation` as a constant: an inline value, a `const` of this block or a
        /// constant the builder already knows; nil otherwise.
        func constant(_ operation: Operation, _ parameter: String) -> MILConstant? {
            guard let argument = operation.inputs[parameter]?.arguments, argument.count == 1 else { return nil }
            switch argument[0].binding {
            case .value(let value)?: return try? MILConstant(value, at: "", limit: 64)
            case .name(let name)?:
                if let value = constantValues[name] { return try? MILConstant(value, at: "", limit: 64) }
                return constants[name]
            case nil: return nil
            }
        }
        func integers(_ operation: Operation, _ parameter: String) -> [Int]? {
            guard let values = constant(operation, parameter)?.tensor?.values,
                  values.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= Float(1 << 16) && $0 == $0.rounded() }) else { return nil }
            return values.map { Int($0) }
        }
        func string(_ operation: Operation, _ parameter: String) -> String? {
            guard case .strings(let strings)? = constant(operation, parameter) else { return nil }
            return strings.first
        }
        func isAbsentOrZero(_ operation: Operation, _ parameter: String) -> Bool {
            operation.inputs[parameter] == nil || constant(operation, parameter)?.tensor?.values.allSatisfy({ $0 == 0 }) == true
        }

        var result = operations
        var removed = Set<Int>()
        for (index, pad) in operations.enumerated() where pad.type == "pad" && pad.outputs.count == 1 {
            let name = pad.outputs[0].name
            guard readers[name] == 1, let source = pad.inputs["x"], source.arguments.count == 1,
                  string(pad, "mode") ?? (pad.inputs["mode"] == nil ? "constant" : nil) == "constant", isAbsentOrZero(pad, "constant_val"),
                  let amounts = integers(pad, "pad"), amounts.count >= 2, amounts.count % 2 == 0,
                  amounts.dropLast(4).allSatisfy({ $0 == 0 }) else { continue }
            let added = Array(repeating: 0, count: max(0, 4 - amounts.count)) + amounts.suffix(4)
            guard let reader = operations.indices.dropFirst(index + 1).first(where: { reads(operations[$0], name) }),
                  case .name(name)? = operations[reader].inputs["x"]?.arguments.first?.binding,
                  let own = ownPadding(operations[reader], integers: integers, string: string, isAbsentOrZero: isAbsentOrZero),
                  // A 1-D or 3-D convolution's padding is not [top, bottom, left, right].
                  operations[reader].type != "conv" || ![3, 5].contains(pad.outputs[0].type.tensorType.rank) else { continue }
            if operations[reader].type == "max_pool" {
                guard case .name(let input)? = source.arguments[0].binding, ["relu", "relu6"].contains(producers[input]) else { continue }
            }
            result[reader].inputs["x"] = source
            result[reader].inputs["pad_type"] = Self.argument(Self.value(strings: ["custom"]))
            result[reader].inputs["pad"] = Self.argument(Self.value(ints: zip(own, added).map { Int32($0 + $1) }))
            removed.insert(index)
        }
        return removed.isEmpty ? operations : result.indices.filter { !removed.contains($0) }.map { result[$0] }
    }

    /// Whether `operation` reads `name` through any parameter.
    private func reads(_ operation: Operation, _ name: String) -> Bool {
        operation.inputs.values.contains { $0.arguments.contains { $0.binding == .name(name) } }
    }

    /// The [top, bottom, left, right] padding of a `conv`, `avg_pool` or `max_pool` a pad can fold
    /// into; nil for another operation or one whose window a fold would change.
    private func ownPadding(_ operation: Operation, integers: (Operation, String) -> [Int]?, string: (Operation, String) -> String?,
                            isAbsentOrZero: (Operation, String) -> Bool) -> [Int]? {
        switch operation.type {
        case "conv": break
        case "avg_pool": guard isAbsentOrZero(operation, "exclude_padding_from_average"), isAbsentOrZero(operation, "ceil_mode") else { return nil }
        case "max_pool": guard isAbsentOrZero(operation, "ceil_mode") else { return nil }
        default: return nil
        }
        switch operation.inputs["pad_type"] == nil ? "valid" : string(operation, "pad_type") {
        case "valid"?: return [0, 0, 0, 0]
        case "custom"?:
            guard let pad = integers(operation, "pad"), pad.count == 4 else { return nil }
            return pad
        default: return nil
        }
    }

    private static func argument(_ value: CoreML_Specification_MILSpec_Value) -> CoreML_Specification_MILSpec_Argument {
        var binding = CoreML_Specification_MILSpec_Argument.Binding()
        binding.value = value
        var argument = CoreML_Specification_MILSpec_Argument()
        argument.arguments = [binding]
        return argument
    }

    /// An immediate 1-D tensor of `ints` (int32) or a scalar string.
    private static func value(ints: [Int32] = [], strings: [String] = []) -> CoreML_Specification_MILSpec_Value {
        var value = CoreML_Specification_MILSpec_Value()
        if strings.isEmpty {
            var dimension = CoreML_Specification_MILSpec_Dimension()
            dimension.constant.size = UInt64(ints.count)
            value.type.tensorType.dataType = .int32
            value.type.tensorType.rank = 1
            value.type.tensorType.dimensions = [dimension]
            value.immediateValue.tensor.ints.values = ints
        } else {
            value.type.tensorType.dataType = .string
            value.immediateValue.tensor.strings.values = strings
        }
        return value
    }
}
