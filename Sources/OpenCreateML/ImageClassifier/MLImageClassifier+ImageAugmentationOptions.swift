import _OpenCoreMLImageIO

extension MLImageClassifier {
    /// Random changes applied to extra copies of each training picture (Create ML's
    /// `MLImageClassifier.ImageAugmentationOptions`).
    ///
    /// The ranges are ours (Apple does not publish its own): a crop keeps 64–100 % of each side, a
    /// rotation turns by up to ±20°, a blur has a standard deviation of up to 2 pixels, exposure
    /// changes by up to ±1 stop, noise has a standard deviation of up to 12 levels, and a flip
    /// mirrors left to right half of the time.
    public struct ImageAugmentationOptions: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A random crop, scaled back to the picture's size.
        public static let crop = ImageAugmentationOptions(rawValue: 1 << 0)
        /// A rotation about the centre; corners brought in are black.
        public static let rotation = ImageAugmentationOptions(rawValue: 1 << 1)
        /// A Gaussian blur.
        public static let blur = ImageAugmentationOptions(rawValue: 1 << 2)
        /// A brighter or darker exposure.
        public static let exposure = ImageAugmentationOptions(rawValue: 1 << 3)
        /// A left–right mirror, half of the time.
        public static let flip = ImageAugmentationOptions(rawValue: 1 << 4)
        /// Gaussian noise, independent per pixel and channel.
        public static let noise = ImageAugmentationOptions(rawValue: 1 << 5)

        /// Every augmentation.
        public static let all: ImageAugmentationOptions = [.crop, .rotation, .blur, .exposure, .flip, .noise]

        /// The image library's option set with the same members.
        var imageAugmentation: ImageAugmentation {
            let pairs: [(ImageAugmentationOptions, ImageAugmentation)] = [
                (.crop, .crop), (.rotation, .rotation), (.blur, .blur), (.exposure, .exposure), (.flip, .flip), (.noise, .noise),
            ]
            return pairs.reduce(into: ImageAugmentation()) { if contains($1.0) { $0.insert($1.1) } }
        }
    }
}
