import Foundation

/// Turns feature values into the float rows the engine reads.
enum FeatureEncoding {
    /// Writes `value` (the feature `name` of example `example`) as `count` floats at `destination`.
    /// Multi-arrays must hold exactly `count` elements; numbers fill a single float.
    static func write(
        _ value: MLFeatureValue?, name: String, example: Int, count: Int, shape: [Int],
        to destination: UnsafeMutablePointer<Float>
    ) throws {
        guard let value, !value.isUndefined else {
            throw MLModelError(.featureType, "example \(example): input '\(name)' is missing")
        }
        switch value.type {
        case .multiArray:
            let array = value.multiArrayValue!
            guard array.count == count else {
                throw MLModelError(
                    .featureType,
                    "example \(example): input '\(name)' has shape \(array.shape.map(\.intValue)) (\(array.count) values); the model expects \(shape) (\(count) values)")
            }
            array.copyFloats(to: destination)
        case .int64, .double:
            guard count == 1 else {
                throw MLModelError(.featureType, "example \(example): input '\(name)' is a number; the model expects an array of shape \(shape)")
            }
            destination[0] = Float(value.type == .int64 ? Double(value.int64Value) : value.doubleValue)
        default:
            throw MLModelError(.featureType, "example \(example): input '\(name)' is a \(value.type); the model expects a multi-array of shape \(shape)")
        }
    }

    /// Throws if any of the `count` floats at `pointer` is NaN or infinite.
    static func checkFinite(_ pointer: UnsafePointer<Float>, count: Int, name: String, example: Int) throws {
        for i in 0..<count where !pointer[i].isFinite {
            throw MLModelError(.featureType, "example \(example): input '\(name)' holds \(pointer[i]) at element \(i)")
        }
    }
}
