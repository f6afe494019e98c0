import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// Image features of ML Programs (coremltools' `ct.ImageType`). coremltools writes an image input's
/// preprocessing (`scale`, `bias`) into the program — a `mul` and an `add` ahead of the network —
/// and only the size and colour layout into the model description; so the program is fed the
/// pixel values themselves (0…255, or the half floats of a `GRAYSCALE_FLOAT16` buffer), a
/// [1, C, H, W] tensor with the planes in the layout's order, written by `FeatureEncoding` as for
/// the classic neural networks. An image output is the program's [1, C, H, W] tensor made into
/// pixels by `PixelBuffer.imageOutput`: rounded and clamped to 0…255 (32BGRA for RGB and BGR,
/// OneComponent8 for grayscale), or kept as half floats (OneComponent16Half).
extension MLProgramRunner {
    /// The program's input tensor for the image input `name` of type `type`: `value` must be an
    /// image of a size the input takes (pixel buffers of other sizes are refused, as by Core ML).
    static func imageTensor(_ value: MLFeatureValue?, name: String, type: CoreML_Specification_ImageFeatureType) throws -> MILTensor {
        guard let value, !value.isUndefined else { throw MLModelError(.featureType, "input '\(name)' is missing") }
        guard let buffer = value.imageBufferValue else {
            throw MLModelError(.featureType, "input '\(name)' is a \(value.type); the model expects an image of \(type.width)×\(type.height) pixels")
        }
        try FeatureEncoding.checkImageSize(buffer, name: name, example: 0, input: type)
        let channels = FeatureEncoding.channelCount(type)
        var values = [Float](repeating: 0, count: channels * buffer.width * buffer.height)
        values.withUnsafeMutableBufferPointer { FeatureEncoding.writeImage(buffer, input: type, to: $0.baseAddress!) }
        return MILTensor(shape: [1, channels, buffer.height, buffer.width], values: values)
    }

    /// The image output `name` of type `type` from the program's `tensor`: [1, C, H, W] (or
    /// [C, H, W]) with C = 3 for RGB and BGR, 1 for grayscale; the image takes the tensor's size
    /// (coremltools declares a flexible output's size as 1×1 with open ranges).
    static func imageOutput(_ tensor: MILTensor, name: String, type: CoreML_Specification_ImageFeatureType) throws -> MLFeatureValue {
        let channels = FeatureEncoding.channelCount(type)
        let shape = tensor.shape
        guard shape.count == 3 || shape.count == 4, shape.count == 3 || shape[0] == 1, shape[shape.count - 3] == channels,
              shape[shape.count - 2] > 0, shape[shape.count - 1] > 0
        else {
            throw MLModelError(.generic, "ML Program: image output '\(name)' (\(channels == 1 ? "grayscale" : "colour")) needs a tensor of shape [1, \(channels), height, width]; the program computed \(shape)")
        }
        var sized = type
        sized.height = Int64(shape[shape.count - 2])
        sized.width = Int64(shape[shape.count - 1])
        let buffer = try tensor.values.withUnsafeBufferPointer {
            try PixelBuffer.imageOutput(planes: $0.baseAddress!, count: $0.count, type: sized, name: name)
        }
        return MLFeatureValue(pixelBuffer: buffer)
    }
}
