import COpenCoreML
import Foundation
import OpenCoreML

/// An `ocm_state`: the model's ``MLState`` (one zero-filled buffer per state the model declares),
/// with the names and shapes the C interface hands out as C strings and arrays.
final class CState {
    let model: CModel
    let state: MLState
    let names: [UnsafeMutablePointer<CChar>]
    private var shapes: [String: UnsafeMutablePointer<Int64>] = [:]

    init(model: CModel) throws {
        self.model = model
        state = model.model.makeState()
        names = state.stateNames.map { strdup($0)! }
        for name in state.stateNames {
            guard let buffer = state.buffer(named: name) else {
                throw CInterfaceError(OCM_ERROR_UNSUPPORTED, "state '\(name)' is larger than the model's memory limit allows")
            }
            let dimensions = buffer.shape.map(\.int64Value)
            let shape = UnsafeMutablePointer<Int64>.allocate(capacity: max(dimensions.count, 1))
            shape.initialize(from: dimensions, count: dimensions.count)
            shapes[name] = shape
        }
    }

    deinit {
        names.forEach { free($0) }
        shapes.values.forEach { $0.deallocate() }
    }

    /// The state `name`'s buffer (its storage, which predictions update in place) and its shape.
    func buffer(_ name: String) throws -> (MLMultiArray, UnsafePointer<Int64>) {
        guard let buffer = state.buffer(named: name), let shape = shapes[name] else {
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
        state.withMultiArray(for: name) { buffer in
            for index in 0..<buffer.count { buffer[index] = source[index] }
        }
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
