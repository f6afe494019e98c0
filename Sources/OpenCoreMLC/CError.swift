import COpenCoreML
import CoreMLSpec
import Foundation
import OpenCoreML

/// An `ocm_error`: a status and one line of message, held as a C string for the caller to read.
final class CError {
    let status: ocm_status
    let message: UnsafeMutablePointer<CChar>

    init(_ status: ocm_status, _ message: String) {
        self.status = status
        self.message = strdup(message)!
    }

    deinit { free(message) }

    /// The status and message of anything the library throws.
    convenience init(_ error: Error) {
        switch error {
        case let error as CInterfaceError:
            self.init(error.status, error.message)
        case let error as MLModelError:
            self.init(CError.status(of: error), error.message)
        default:
            self.init(OCM_ERROR_GENERIC, String(describing: error))
        }
    }

    /// The interface's status for one of the library's errors. Core ML has no code for a valid
    /// model that cannot run; the library's messages for one say "not supported" (an operation,
    /// layer, model type or value), which becomes `OCM_ERROR_UNSUPPORTED`.
    static func status(of error: MLModelError) -> ocm_status {
        if error.code == .generic || error.code == .io, error.message.contains("not supported") { return OCM_ERROR_UNSUPPORTED }
        switch error.code {
        case .featureType: return OCM_ERROR_FEATURE_TYPE
        case .io: return OCM_ERROR_IO
        case .parameters: return OCM_ERROR_PARAMETERS
        default: return OCM_ERROR_GENERIC
        }
    }
}

/// A failure found by the interface itself (a NULL pointer, an unknown name or code).
struct CInterfaceError: Error {
    let status: ocm_status
    let message: String

    init(_ status: ocm_status, _ message: String) {
        self.status = status
        self.message = message
    }

    static func argument(_ message: String) -> CInterfaceError { CInterfaceError(OCM_ERROR_ARGUMENT, message) }
}

/// Runs `body`; on a throw, stores a new `ocm_error` in `error` (when given) and returns `failure`.
func catching<Result>(_ error: UnsafeMutablePointer<OpaquePointer?>?, failure: Result, _ body: () throws -> Result) -> Result {
    do {
        return try body()
    } catch let thrown {
        error?.pointee = Handle<CError>.retain(CError(thrown))
        return failure
    }
}

/// Runs `body` for a call that returns a status: `OCM_OK`, or the status of what it threw.
func status(_ error: UnsafeMutablePointer<OpaquePointer?>?, _ body: () throws -> Void) -> ocm_status {
    do {
        try body()
        return OCM_OK
    } catch let thrown {
        let failure = CError(thrown)
        error?.pointee = Handle<CError>.retain(failure)
        return failure.status
    }
}

/// A C string argument as a Swift string; NULL, or bytes that are not UTF-8 (which
/// `String(cString:)` would quietly repair into other text), is an argument error naming `what`.
func string(_ pointer: UnsafePointer<CChar>?, _ what: String) throws -> String {
    guard let pointer else { throw CInterfaceError.argument("\(what) is NULL") }
    guard let text = String(validatingCString: pointer) else { throw CInterfaceError.argument("\(what) is not UTF-8") }
    return text
}

@_cdecl("ocm_error_code")
public func ocmErrorCode(_ error: OpaquePointer?) -> ocm_status {
    guard let error else { return OCM_ERROR_ARGUMENT }
    return Handle<CError>.borrow(error).status
}

@_cdecl("ocm_error_message")
public func ocmErrorMessage(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let error else { return nil }
    return UnsafePointer(Handle<CError>.borrow(error).message)
}

@_cdecl("ocm_error_free")
public func ocmErrorFree(_ error: OpaquePointer?) {
    Handle<CError>.release(error)
}

@_cdecl("ocm_string_free")
public func ocmStringFree(_ string: UnsafeMutablePointer<CChar>?) {
    free(string)
}

/// `ocm_version()`'s string, made once, never changed or freed (so safe to share).
nonisolated(unsafe) private let versionString = UnsafePointer(strdup(OpenCoreMLRuntime.version)!)

@_cdecl("ocm_version")
public func ocmVersion() -> UnsafePointer<CChar> { versionString }

@_cdecl("ocm_max_specification_version")
public func ocmMaxSpecificationVersion() -> Int32 { CoreML_Specification_Model.newestKnownSpecificationVersion }
