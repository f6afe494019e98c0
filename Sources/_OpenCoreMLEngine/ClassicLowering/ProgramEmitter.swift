import CoreMLSpec

/// Writes the operations of one ML Program block: constants, operations whose inputs are bound by
/// name, and value names that never collide with the names the program must keep (the network's
/// blob and feature names).
///
/// Every value an operation makes is named `<scope>/<hint>·<n>` with a counter (the scope is the
/// layer being written, so the interpreter's errors name it), skipping any name in `reserved`, so a
/// lowered layer's values cannot shadow a blob another layer reads.
struct ProgramEmitter {
    typealias Operation = CoreML_Specification_MILSpec_Operation
    typealias Value = CoreML_Specification_MILSpec_Value
    typealias ValueType = CoreML_Specification_MILSpec_ValueType

    private(set) var operations: [Operation] = []
    private var counter = 0
    private var reserved: Set<String>
    /// The name of the layer whose operations are being written ("" outside layers).
    var scope = ""

    init(reserving names: Set<String>) {
        reserved = names
    }

    /// A fresh value name built from `hint`.
    mutating func name(_ hint: String) -> String {
        while true {
            counter += 1
            let candidate = scope.isEmpty ? "\(hint)·\(counter)" : "\(scope)/\(hint)·\(counter)"
            if !reserved.contains(candidate) {
                reserved.insert(candidate)
                return candidate
            }
        }
    }

    static func tensorType(_ shape: [Int], _ dataType: CoreML_Specification_MILSpec_DataType) -> ValueType {
        var type = ValueType()
        type.tensorType.dataType = dataType
        type.tensorType.rank = Int64(shape.count)
        type.tensorType.dimensions = shape.map { size in
            var dimension = CoreML_Specification_MILSpec_Dimension()
            dimension.constant.size = UInt64(clamping: size)
            return dimension
        }
        return type
    }

    /// A `const` operation holding `value`; returns its name.
    private mutating func constant(_ value: Value, hint: String) -> String {
        var operation = Operation()
        operation.type = "const"
        operation.attributes["val"] = value
        var output = CoreML_Specification_MILSpec_NamedValueType()
        output.name = name(hint)
        output.type = value.type
        operation.outputs = [output]
        operations.append(operation)
        return output.name
    }

    /// A float32 constant of `shape` (a scalar when `shape` is empty).
    mutating func floats(_ values: [Float], shape: [Int]) -> String {
        var value = Value()
        value.type = Self.tensorType(shape, .float32)
        value.immediateValue.tensor.floats.values = values
        return constant(value, hint: "const")
    }

    mutating func float(_ value: Float) -> String { floats([value], shape: []) }

    /// An int32 constant: a vector of `values`, or a scalar when `scalar` is set.
    mutating func ints(_ values: [Int], scalar: Bool = false) -> String {
        var value = Value()
        value.type = Self.tensorType(scalar ? [] : [values.count], .int32)
        value.immediateValue.tensor.ints.values = values.map { Int32(clamping: $0) }
        return constant(value, hint: "const")
    }

    mutating func int(_ value: Int) -> String { ints([value], scalar: true) }

    mutating func bool(_ flag: Bool) -> String {
        var value = Value()
        value.type = Self.tensorType([], .bool)
        value.immediateValue.tensor.bools.values = [flag]
        return constant(value, hint: "const")
    }

    mutating func string(_ text: String) -> String {
        var value = Value()
        value.type = Self.tensorType([], .string)
        value.immediateValue.tensor.strings.values = [text]
        return constant(value, hint: "const")
    }

    /// An operation of `type` whose parameters are bound to the values named in `inputs` (a
    /// parameter taking several values, like `concat`'s `values`, lists them all); its outputs are
    /// named `outputs`.
    mutating func operation(_ type: String, _ inputs: [String: [String]], outputs: [String], immediates: [String: Value] = [:]) {
        var operation = Operation()
        operation.type = type
        for (parameter, names) in inputs {
            var argument = CoreML_Specification_MILSpec_Argument()
            argument.arguments = names.map { name in
                var binding = CoreML_Specification_MILSpec_Argument.Binding()
                binding.name = name
                return binding
            }
            operation.inputs[parameter] = argument
        }
        for (parameter, value) in immediates {
            var argument = CoreML_Specification_MILSpec_Argument()
            var binding = CoreML_Specification_MILSpec_Argument.Binding()
            binding.value = value
            argument.arguments = [binding]
            operation.inputs[parameter] = argument
        }
        operation.outputs = outputs.map { name in
            var output = CoreML_Specification_MILSpec_NamedValueType()
            output.name = name
            return output
        }
        operations.append(operation)
    }

    /// How many operations have been written so far.
    var operationCount: Int { operations.count }

    /// Removes the operations written since `start` (the `operationCount` then) and returns them: a
    /// nested block's operations are written here first, then moved into their block.
    mutating func takeOperations(from start: Int) -> [Operation] {
        let taken = Array(operations[start...])
        operations.removeSubrange(start...)
        return taken
    }

    /// An operation holding nested `blocks` (`cond`, `while_loop`); its outputs are named `outputs`.
    mutating func operation(_ type: String, _ inputs: [String: [String]], outputs: [String], blocks: [CoreML_Specification_MILSpec_Block]) {
        operation(type, inputs, outputs: outputs)
        operations[operations.count - 1].blocks = blocks
    }

    /// A one-output operation of `type`; returns the output's fresh name.
    @discardableResult
    mutating func operation(_ type: String, _ inputs: [String: String], hint: String? = nil) -> String {
        let output = name(hint ?? type)
        operation(type, inputs.mapValues { [$0] }, outputs: [output])
        return output
    }
}
