/// Swift objects handed to C as opaque pointers: retained when given out, released by the
/// matching `ocm_*_free`, borrowed (not retained) while a call uses them.
enum Handle<Object: AnyObject> {
    static func retain(_ object: Object) -> OpaquePointer {
        OpaquePointer(Unmanaged.passRetained(object).toOpaque())
    }

    static func borrow(_ pointer: OpaquePointer) -> Object {
        Unmanaged<Object>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    static func release(_ pointer: OpaquePointer?) {
        guard let pointer else { return }
        Unmanaged<Object>.fromOpaque(UnsafeRawPointer(pointer)).release()
    }
}
