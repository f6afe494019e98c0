import CoreMLSpec
import Foundation

/// Turns feature values into the float rows the engine reads.
enum FeatureEncoding {
    /// Writes `value` (the feature `name` of example `example`) as `count` floats at `destination`.
    /// Multi-arrays must hold exactly `count` elements; numbers fill a single float; images (for
    /// inputs of type `image`) must have the input's size.
    static func write(
        _ value: MLFeatureValue?, name: String, example: Int, count: Int, shape: [Int],
        image: CoreML_Specification_ImageFeatureType? = nil, isOptional: Bool = false, to destination: UnsafeMutablePointer<Float>
    ) throws {
        guard let value, !value.isUndefined else {
            // As in Core ML, an optional multi-array left out is zeros of its shape (recurrent
            // state, for example, starts at zero).
            guard isOptional, image == nil else {
                throw MLModelError(.featureType, "example \(example): input '\(name)' is missing")
            }
            destination.update(repeating: 0, count: count)
            return
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
        case .image where image != nil:
            try writeImage(value.imageBufferValue!, name: name, example: example, input: image!, to: destination)
        default:
            let expected = image.map { "an image of \($0.width)×\($0.height) pixels" } ?? "a multi-array of shape \(shape)"
            throw MLModelError(.featureType, "example \(example): input '\(name)' is a \(value.type); the model expects \(expected)")
        }
    }

    /// Writes a pixel buffer as planes of 0…255 floats, one per channel, in the input's colour
    /// order: red, green, blue (RGB); blue, green, red (BGR); or one gray plane. The network's
    /// preprocessing (scale and biases) runs after this, as in Core ML.
    static func writeImage(
        _ buffer: PixelBuffer, name: String, example: Int, input: CoreML_Specification_ImageFeatureType,
        to destination: UnsafeMutablePointer<Float>
    ) throws {
        let (width, height) = (Int(input.width), Int(input.height))
        guard buffer.width == width, buffer.height == height else {
            throw MLModelError(.featureType, "example \(example): input '\(name)' is a \(buffer.width)×\(buffer.height) image; the model expects \(width)×\(height) (use MLFeatureValue(imageAt:constraint:options:) to scale it)")
        }
        let plane = width * height
        for y in 0..<height {
            for x in 0..<width {
                let i = y * width + x
                switch input.colorSpace {
                case .grayscale, .grayscaleFloat16:
                    destination[i] = buffer.gray(x: x, y: y)
                case .bgr:
                    let rgb = buffer.rgb(x: x, y: y)
                    (destination[i], destination[plane + i], destination[2 * plane + i]) = (rgb.z, rgb.y, rgb.x)
                default:
                    let rgb = buffer.rgb(x: x, y: y)
                    (destination[i], destination[plane + i], destination[2 * plane + i]) = (rgb.x, rgb.y, rgb.z)
                }
            }
        }
    }

    /// The image type of a model input, if it is one.
    static func imageType(of feature: CoreML_Specification_FeatureDescription?) -> CoreML_Specification_ImageFeatureType? {
        if case .imageType(let image)? = feature?.type.type { return image }
        return nil
    }

    /// Throws if any of the `count` floats at `pointer` is NaN or infinite.
    static func checkFinite(_ pointer: UnsafePointer<Float>, count: Int, name: String, example: Int) throws {
        for i in 0..<count where !pointer[i].isFinite {
            throw MLModelError(.featureType, "example \(example): input '\(name)' holds \(pointer[i]) at element \(i)")
        }
    }
}
