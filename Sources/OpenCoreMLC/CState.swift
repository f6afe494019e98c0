import COpenCoreML
import Foundation
import OpenCoreML

/// An `ocm_state`: one zero-filled buffer per state the model declares (Core ML's `MLState`).
final class CState {
    let model: CModel
    let names: [UnsafeMutablePointer<CChar>]
    private(set) var buffers: [String: MLMultiArray] = [:]
    private var shapes: [String: UnsafeMutablePointer<Int64>] = [:]

    init(model: CModel) throws {
        self.model = model
        for state in model.states {
            let array = state.type.stateType.arrayType
            let type = MLMultiArrayDataType(rawValue: array.dataType.rawValue) ?? .float32
            buffers[state.name] = try MLMultiArray(shape: array.shape.map { NSNumber(value: $0) }, dataType: type)
        }
        names = model.states.map { strdup($0.name)! }
        for state in model.states {
            let dimensions = state.type.stateType.arrayType.shape
            let shape = UnsafeMutablePointer<Int64>.allocate(capacity: max(dimensions.count, 1))
            shape.initialize(from: dimensions, count: dimensions.count)
            shapes[state.name] = shape
        }
    }

    deinit {
        names.forEach { free($0) }
        shapes.values.forEach { $0.deallocate() }
    }

    func buffer(_ name: String) throws -> (MLMultiArray, UnsafePointer<Int64>) {
        guard let buffer = buffers[name], let shape = shapes[name] else {
            throw CInterfaceError(OCM_ERROR_NOT_FOUND, "the model has no state named '\(name)'")
        }
        return (buffer, UnsafePointer(shape))
    }

    /// Copies `source` into the state `name`, converting its elements; the shapes must agree.
    func write(_ name: String, _ source: MLMultiArray) throws {
        let (buffer, _) = try self.buffer(name)
        guard source.shape == buffer.shape else {
            throw CInterfaceError(OCM_ERROR_FEATURE_TYPE, "state '\(name)' has shape \(buffer.shape.map(\.intValue)); the value has \(source.shape.map(\.intValue))")
        }
        for index in 0..<buffer.count { buffer[index] = source[index] }
    }
}

@_cdecl("ocm_model_make_state")
public func ocmModelMakeState(_ model: OpaquePointer?, _ error: UnsafeMutablePointer<OpaquePointer?>?) -> OpaquePointer? {
    catching(error, failure: nil) {
        guard let model else { throw CInterfaceError.argument("model is NULL") }
        return Handle<CState>.retain(try CState(model: Handle<CModel>.borrow(model)))
    }
}

@_cdecl("ocm_state_free")
public func ocmStateFree(_ state: OpaquePointer?) {
    Handle<CState>.release(state)
}

@_cdecl("ocm_state_count")
public func ocmStateCount(_ state: OpaquePointer?) -> Int {
    guard let state else { return 0 }
    return Handle<CState>.borrow(state).names.count
}

@_cdecl("ocm_state_name")
public func ocmStateName(_ state: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    guard let state else { return nil }
    let names = Handle<CState>.borrow(state).names
    return names.indices.contains(index) ? UnsafePointer(names[index]) : nil
}

@_cdecl("ocm_state_read")
public func ocmStateRead(_ state: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ dtype: UnsafeMutablePointer<ocm_dtype>?,
                         _ rank: UnsafeMutablePointer<Int>?, _ shape: UnsafeMutablePointer<UnsafePointer<Int64>?>?,
                         _ data: UnsafeMutablePointer<UnsafeRawPointer?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    status(error) {
        guard let state else { throw CInterfaceError.argument("state is NULL") }
        let (buffer, dimensions) = try Handle<CState>.borrow(state).buffer(try string(name, "name"))
        dtype?.pointee = ocm_dtype(rawValue: UInt32(buffer.dataType.rawValue))
        rank?.pointee = buffer.shape.count
        shape?.pointee = dimensions
        data?.pointee = UnsafeRawPointer(buffer.dataPointer)
    }
}

@_cdecl("ocm_state_write")
public func ocmStateWrite(_ state: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ dtype: ocm_dtype, _ rank: Int,
                          _ shape: UnsafePointer<Int64>?, _ strides: UnsafePointer<Int64>?, _ data: UnsafeRawPointer?,
                          _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    status(error) {
        guard let state else { throw CInterfaceError.argument("state is NULL") }
        let key = try string(name, "name")
        let source = try borrowedArray(dtype, rank, shape, strides, data.map(UnsafeMutableRawPointer.init(mutating:)), what: "state '\(key)'")
        try Handle<CState>.borrow(state).write(key, source)
    }
}
