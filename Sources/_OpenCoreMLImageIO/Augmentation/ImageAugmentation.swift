/// Create ML's image augmentations (`MLImageClassifier.ImageAugmentationOptions`): which random
/// changes `augmented(using:)` applies to a training picture.
package struct ImageAugmentation: OptionSet, Sendable, Hashable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// A random crop of 64–100 % of each side, scaled back to the picture's size.
    package static let crop = ImageAugmentation(rawValue: 1 << 0)
    /// A rotation by −20…20 degrees about the centre; corners brought in are black.
    package static let rotation = ImageAugmentation(rawValue: 1 << 1)
    /// A Gaussian blur with a standard deviation of 0…2 pixels.
    package static let blur = ImageAugmentation(rawValue: 1 << 2)
    /// Exposure changed by −1…1 stop (colours multiplied by 2^−1…2^1, clamped).
    package static let exposure = ImageAugmentation(rawValue: 1 << 3)
    /// A left–right mirror, half of the time.
    package static let flip = ImageAugmentation(rawValue: 1 << 4)
    /// Gaussian noise with a standard deviation of 0…12 levels, independent per pixel and channel.
    package static let noise = ImageAugmentation(rawValue: 1 << 5)

    package static let all: ImageAugmentation = [.crop, .rotation, .blur, .exposure, .flip, .noise]
}

extension RGBAImage {
    /// The picture with each augmentation in `options` applied once, with parameters drawn from
    /// `generator` (in the order crop, rotation, flip, exposure, blur, noise): the same generator
    /// state gives the same picture on every platform.
    package func augmented(_ options: ImageAugmentation, using generator: inout some RandomNumberGenerator) -> RGBAImage {
        var image = self
        if options.contains(.crop) {
            let fraction = Double.random(in: 0.64...1, using: &generator)
            let aspect = Double.random(in: 0.9...1.1, using: &generator)
            let cropWidth = min(Double(width), Double(width) * fraction * aspect.squareRoot())
            let cropHeight = min(Double(height), Double(height) * fraction / aspect.squareRoot())
            let x = Double.random(in: 0...(Double(width) - cropWidth), using: &generator)
            let y = Double.random(in: 0...(Double(height) - cropHeight), using: &generator)
            image = image.resampled(from: PixelRect(x: x, y: y, width: cropWidth, height: cropHeight), width: width, height: height)
        }
        if options.contains(.rotation) {
            image = image.rotated(byDegrees: Double.random(in: -20...20, using: &generator))
        }
        if options.contains(.flip), Bool.random(using: &generator) {
            image = image.oriented(.upMirrored)
        }
        if options.contains(.exposure) {
            image = image.exposureAdjusted(byStops: Float.random(in: -1...1, using: &generator))
        }
        if options.contains(.blur) {
            image = image.blurred(sigma: Float.random(in: 0...2, using: &generator))
        }
        if options.contains(.noise) {
            image = image.withNoise(sigma: Float.random(in: 0...12, using: &generator), using: &generator)
        }
        return image
    }
}
