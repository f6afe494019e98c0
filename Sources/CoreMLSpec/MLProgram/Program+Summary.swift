import Foundation

extension CoreML_Specification_MILSpec_Program {
    /// Every operation of every function's body and of the blocks nested in them, in order.
    public var allOperations: [CoreML_Specification_MILSpec_Operation] {
        var result: [CoreML_Specification_MILSpec_Operation] = []
        func visit(_ block: CoreML_Specification_MILSpec_Block) {
            for operation in block.operations {
                result.append(operation)
                operation.blocks.forEach(visit)
            }
        }
        for name in functions.keys.sorted() {
            let function = functions[name]!
            if let body = function.blockSpecializations[function.opset] { visit(body) }
        }
        return result
    }

    /// How often each operation type occurs (nested blocks included), most frequent first, ties by
    /// name.
    public var operationCounts: [(type: String, count: Int)] {
        Dictionary(grouping: allOperations, by: \.type).map { ($0.key, $0.value.count) }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
    }
}

extension CoreML_Specification_MILSpec_Operation {
    /// The values an operation holds: its attributes' (a `const` holds its tensor in "val") and
    /// the values bound to its inputs, with the attribute or input name.
    public var heldValues: [(name: String, value: CoreML_Specification_MILSpec_Value)] {
        attributes.keys.sorted().map { ($0, attributes[$0]!) }
            + inputs.keys.sorted().flatMap { name in
                inputs[name]!.arguments.compactMap { binding -> (String, CoreML_Specification_MILSpec_Value)? in
                    if case .value(let value)? = binding.binding { return (name, value) }
                    return nil
                }
            }
    }
}

/// An ML Program's weights as stored: every value kept in a blob file, found in the package's
/// weight file and checked against the type the program declares for it.
public struct MLProgramWeights: Sendable {
    /// One value stored in a blob file.
    public struct Entry: Sendable {
        /// The operation's first output (a `const` op's name), and the attribute or input.
        public var operation: String
        public var name: String
        public var fileName: String
        public var offset: UInt64
        public var dataType: MILBlobFile.DataType
        /// Values, and the bytes they take in the file.
        public var count: Int
        public var bytes: Int
        /// The stored bytes (a slice of the mapped file).
        public var data: Data
    }

    public let entries: [Entry]
    /// Bytes of tensor values stored inside the protobuf (immediate values).
    public let immediateBytes: Int

    /// Resolves every blob file value of `program` in `package`.
    ///
    /// - Throws: ``ModelFileError`` naming the weight file (missing, corrupt, a record past its
    ///   end) or the operation whose value's stored type or size is not the one it declares.
    public init(program: CoreML_Specification_MILSpec_Program, package: ModelPackage) throws {
        var resolver = MILBlobResolver(package: package)
        var entries: [Entry] = []
        var immediate = 0
        for operation in program.allOperations {
            let owner = operation.outputs.first?.name ?? operation.type
            for (name, value) in operation.heldValues {
                switch value.value {
                case .blobFileValue(let blobValue)?:
                    let blob = try resolver.blob(blobValue, declared: value.type, place: "operation '\(owner)', \(name)")
                    entries.append(Entry(operation: owner, name: name, fileName: blobValue.fileName, offset: blobValue.offset,
                                         dataType: blob.dataType, count: blob.count, bytes: blob.data.count, data: blob.data))
                case .immediateValue(let immediateValue)?:
                    if case .tensor(let tensor)? = immediateValue.value { immediate += (try? tensor.serializedBytes() as [UInt8])?.count ?? 0 }
                case nil:
                    break
                }
            }
        }
        self.entries = entries
        immediateBytes = immediate
    }
}

extension MILBlobFile.DataType {
    /// The blob type that stores values of MIL's `type`; nil for types never kept in blob files.
    public init?(_ type: CoreML_Specification_MILSpec_DataType) {
        switch type {
        case .float16: self = .float16
        case .float32: self = .float32
        case .bfloat16: self = .bfloat16
        case .uint8: self = .uint8
        case .int8: self = .int8
        case .int16: self = .int16
        case .uint16: self = .uint16
        case .int32: self = .int32
        case .uint32: self = .uint32
        case .int4: self = .int4
        case .uint1: self = .uint1
        case .uint2: self = .uint2
        case .uint3: self = .uint3
        case .uint4: self = .uint4
        case .uint6: self = .uint6
        case .float8E4M3Fn: self = .float8E4M3FN
        case .float8E5M2: self = .float8E5M2
        default: return nil
        }
    }
}
