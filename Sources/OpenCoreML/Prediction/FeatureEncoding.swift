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
            let buffer = value.imageBufferValue!
            try checkImageSize(buffer, name: name, example: example, input: image!)
            // The classic layer graph's input blob has one size; a flexible image input's other sizes
            // do not fit it.
            let channels = channelCount(image!)
            guard channels * buffer.width * buffer.height == count else {
                throw MLModelError(.featureType, "example \(example): input '\(name)' is a \(buffer.width)×\(buffer.height) image; the network takes \(count / max(channels, 1)) pixels")
            }
            writeImage(buffer, input: image!, to: destination)
        default:
            let expected = image.map { "an image of \($0.width)×\($0.height) pixels" } ?? "a multi-array of shape \(shape)"
            throw MLModelError(.featureType, "example \(example): input '\(name)' is a \(value.type); the model expects \(expected)")
        }
    }

    /// Writes a pixel buffer as planes of 0…255 floats (`buffer.width × buffer.height` each), one
    /// per channel, in the input's colour order: red, green, blue (RGB); blue, green, red (BGR); or
    /// one gray plane. The model's preprocessing (scale and biases) runs after this, as in Core ML:
    /// the neural network's `preprocessing` layers, or the `mul` and `add` coremltools writes at the
    /// start of an ML Program. Call `checkImageSize` first.
    static func writeImage(_ buffer: PixelBuffer, input: CoreML_Specification_ImageFeatureType, to destination: UnsafeMutablePointer<Float>) {
        let (width, height) = (buffer.width, buffer.height)
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

    /// The planes an image input has: one for grayscale, three for colour.
    static func channelCount(_ input: CoreML_Specification_ImageFeatureType) -> Int {
        input.colorSpace == .grayscale || input.colorSpace == .grayscaleFloat16 ? 1 : 3
    }

    /// Throws unless the input takes `buffer`'s size: its declared size, one of its enumerated sizes,
    /// or a size within its width and height ranges (an upper bound of -1 is unbounded). As in
    /// Core ML, a pixel buffer of another size is refused, not scaled: scaling is
    /// `MLFeatureValue(imageAt:constraint:options:)`'s job (or Vision's).
    static func checkImageSize(_ buffer: PixelBuffer, name: String, example: Int, input: CoreML_Specification_ImageFeatureType) throws {
        let (width, height) = (buffer.width, buffer.height)
        if width == Int(input.width), height == Int(input.height) { return }
        let allowed: String
        switch input.sizeFlexibility {
        case .enumeratedSizes(let sizes)?:
            if sizes.sizes.contains(where: { Int(clamping: $0.width) == width && Int(clamping: $0.height) == height }) { return }
            allowed = "one of " + sizes.sizes.map { "\($0.width)×\($0.height)" }.joined(separator: ", ")
        case .imageSizeRange(let range)?:
            func within(_ size: Int, _ range: CoreML_Specification_SizeRange) -> Bool {
                size >= Int(clamping: range.lowerBound) && (range.upperBound < 0 || size <= Int(clamping: range.upperBound))
            }
            if within(width, range.widthRange), within(height, range.heightRange) { return }
            func text(_ range: CoreML_Specification_SizeRange) -> String {
                "\(range.lowerBound)…\(range.upperBound < 0 ? "any" : String(range.upperBound))"
            }
            allowed = "a width of \(text(range.widthRange)) and a height of \(text(range.heightRange))"
        case nil:
            allowed = "\(input.width)×\(input.height)"
        }
        throw MLModelError(.featureType, "example \(example): input '\(name)' is a \(width)×\(height) image; the model expects \(allowed) (use MLFeatureValue(imageAt:constraint:options:) to scale it)")
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
