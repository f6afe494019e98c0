import CoreMLSpec

/// Writes classic neural-network layers as MIL operations, one layer at a time, into a program
/// block (``ProgramEmitter``), so that the ML Program interpreter's operations compute them: each
/// operation is implemented once, for both kinds of model.
///
/// A blob's value is the tensor of one example as the network sees it (the batch stays outside):
/// classic layers read its last three dimensions as C, H and W and fold the ones before them into
/// an outer axis, rank-N layers take it as it is. Only ranks are known while lowering (inputs may
/// have flexible sizes): sizes that a layer needs are read at run time with `shape`.
struct LayerLowering {
    /// A blob's value in the program, and its rank.
    struct Value {
        var name: String
        var rank: Int
    }

    /// The rank of a value whose rank is known only when the layer runs (after `squeeze` of every
    /// unit axis, a dynamic reshape, …): layers that need the rank refuse it.
    static let unknownRank = -1

    var emitter: ProgramEmitter
    /// The value of each blob written so far, by blob name.
    var values: [String: Value] = [:]
    /// Whether the network's multi-arrays use `EXACT_ARRAY_MAPPING` (some layers' rank rules differ).
    let exactMapping: Bool
    /// Whether the layers being lowered are (at any depth of branches) in a loop's body, where
    /// `loopBreak` and `loopContinue` may stand.
    var inLoopBody = false

    init(emitter: ProgramEmitter, exactMapping: Bool) {
        self.emitter = emitter
        self.exactMapping = exactMapping
    }

    /// Lowers `layer`, whose inputs must already have values, and records its outputs' values.
    ///
    /// - Throws: `EngineError` naming the layer and what it cannot do.
    mutating func lower(_ layer: CoreML_Specification_NeuralNetworkLayer) throws {
        let location = "layer '\(layer.name)' (\(layer.layerTypeName))"
        let inputs = try layer.input.map { name in
            guard let value = values[name] else { throw EngineError(location, "input '\(name)' is produced by no layer or model input") }
            return value
        }
        let results: [Value]
        let enclosingScope = emitter.scope
        emitter.scope = layer.name
        defer { emitter.scope = enclosingScope }
        do {
            results = try rule(for: layer, inputs)
        } catch let error as LayerSpecificationError {
            throw EngineError(location, error.message)
        }
        guard results.count >= layer.output.count else {
            throw EngineError(location, "the layer has \(layer.output.count) outputs; it computes \(results.count)")
        }
        for (blob, value) in zip(layer.output, results) {
            // A rank worked out below 0 (from an input of unknown rank) is unknown.
            values[blob] = Value(name: value.name, rank: max(value.rank, Self.unknownRank))
        }
    }

    // MARK: Building blocks

    /// A one-output operation; returns its value name.
    mutating func op(_ type: String, _ inputs: [String: String]) -> String {
        emitter.operation(type, inputs)
    }

    /// `x` reshaped to its first `keep` dimensions followed by `trailing` (one of which may be −1).
    mutating func reshape(_ x: String, keeping keep: Int, then trailing: [Int]) -> String {
        guard keep > 0 else { return op("reshape", ["x": x, "shape": emitter.ints(trailing)]) }
        let leading = dimensions(of: x, from: 0, to: keep)
        let target = concat([leading, emitter.ints(trailing)], axis: 0)
        return op("reshape", ["x": x, "shape": target])
    }

    /// The sizes of dimensions `start..<end` of `x`, as a run-time vector.
    mutating func dimensions(of x: String, from start: Int, to end: Int) -> String {
        let shape = op("shape", ["x": x])
        return op("slice_by_index", ["x": shape, "begin": emitter.ints([start]), "end": emitter.ints([end])])
    }

    mutating func concat(_ values: [String], axis: Int, interleave: Bool = false) -> String {
        let output = emitter.name("concat")
        emitter.operation("concat", ["values": values, "axis": [emitter.int(axis)], "interleave": [emitter.bool(interleave)]], outputs: [output])
        return output
    }

    mutating func expandDims(_ x: String, _ axes: [Int]) -> String {
        op("expand_dims", ["x": x, "axes": emitter.ints(axes)])
    }

    mutating func squeeze(_ x: String, _ axes: [Int]) -> String {
        op("squeeze", ["x": x, "axes": emitter.ints(axes)])
    }

    mutating func transpose(_ x: String, _ perm: [Int]) -> String {
        op("transpose", ["x": x, "perm": emitter.ints(perm)])
    }

    /// `body` applied to `x` seen as `[N, C, H, W]` (the leading dimensions folded into N), its
    /// result given back the leading dimensions of `x`; the rank of `x` is kept.
    mutating func asNCHW(_ x: Value, _ body: (inout LayerLowering, String) throws -> String) throws -> Value {
        switch x.rank {
        case 3:
            let y = try body(&self, expandDims(x.name, [0]))
            return Value(name: squeeze(y, [0]), rank: 3)
        case 4:
            return Value(name: try body(&self, x.name), rank: 4)
        case let rank where rank > 4:
            let planes = dimensions(of: x.name, from: rank - 3, to: rank)
            let folded = op("reshape", ["x": x.name, "shape": concat([emitter.ints([-1]), planes], axis: 0)])
            let y = try body(&self, folded)
            let leading = dimensions(of: x.name, from: 0, to: rank - 3)
            let result = op("reshape", ["x": y, "shape": concat([leading, dimensions(of: y, from: 1, to: 4)], axis: 0)])
            return Value(name: result, rank: rank)
        case Self.unknownRank:
            throw LayerSpecificationError("the input's rank is known only when the network runs; this layer needs C, H and W (rank 3 or more)")
        default:
            throw LayerSpecificationError("the input has rank \(x.rank); this layer needs C, H and W (rank 3 or more)")
        }
    }

    /// The number of values a tensor of `shape` holds, or an error naming `what` when that
    /// overflows.
    func count(_ shape: [Int], _ what: String) throws -> Int {
        guard let count = checkedProduct(shape) else { throw LayerSpecificationError("\(what) \(shape) holds more values than can be counted") }
        return count
    }

    /// A weight's values, decoded from any stored form: exactly `count` of them when given (an error
    /// naming the field otherwise).
    func weights(_ params: CoreML_Specification_WeightParams, _ field: String, count: Int? = nil) throws -> [Float] {
        let values: [Float]
        do {
            values = try params.floatValues(count: count)
        } catch let error as LayerSpecificationError {
            throw LayerSpecificationError("\(field): \(error.message)")
        }
        if let count, values.count != count {
            throw LayerSpecificationError("\(field) holds \(values.count) values; the layer's parameters give it \(count)")
        }
        return values
    }

    /// A per-channel constant `[C, 1, 1]` for a classic value (a scalar for one value), so that it
    /// broadcasts along the channel axis (rank − 3) of any rank-3-or-more value.
    mutating func perChannel(_ values: [Float]) -> String {
        values.count == 1 ? emitter.float(values[0]) : emitter.floats(values, shape: [values.count, 1, 1])
    }

    /// Binary elementwise `type` over `values`, left to right, with NumPy broadcasting.
    mutating func fold(_ type: String, _ values: [Value]) -> Value {
        var result = values[0]
        for next in values.dropFirst() {
            result = Value(name: op(type, ["x": result.name, "y": next.name]), rank: max(result.rank, next.rank))
        }
        return result
    }
}
