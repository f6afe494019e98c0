import Foundation
import Testing
import _OpenCoreMLImageIO
import _OpenCoreMLTestSupport

/// Create ML-style augmentations: the geometry of each, and repeatability from a seed.
struct AugmentationTests {
    let picture = ImageFixtures.references.decoded["rgb.png"]!.image
    let blocks = ImageFixtures.references.decoded["blocks"]!.image

    static func mean(_ image: RGBAImage) -> Double {
        var sum = 0.0
        for i in stride(from: 0, to: image.pixels.count, by: 4) { sum += Double(image.pixels[i]) + Double(image.pixels[i + 1]) + Double(image.pixels[i + 2]) }
        return sum / Double(image.width * image.height * 3)
    }

    /// The summed differences between horizontally neighbouring bytes.
    static func neighbourDifference(_ image: RGBAImage) -> Int {
        var total = 0
        for i in 0..<(image.pixels.count - 4) { total += abs(Int(image.pixels[i]) - Int(image.pixels[i + 4])) }
        return total
    }

    @Test func rotationByRightAnglesTurnsThePicture() {
        let square = picture.cropped(x: 0, y: 0, width: 20, height: 20)
        #expect(square.rotated(byDegrees: 0) == square)
        #expect(square.rotated(byDegrees: 90) == square.oriented(.left))    // counterclockwise
        #expect(square.rotated(byDegrees: -90) == square.oriented(.right))
        #expect(square.rotated(byDegrees: 180) == square.oriented(.down))
        // A small turn keeps the centre and blackens corners.
        let turned = blocks.rotated(byDegrees: 15)
        #expect(turned[0, 0] == .zero)
        #expect(turned[20, 12] == blocks[20, 12])  // the middle of a flat block near the centre
    }

    @Test func exposureBlurAndNoise() {
        let flat = RGBAImage(width: 9, height: 7, fill: SIMD4(100, 40, 200, 255))
        #expect(flat.exposureAdjusted(byStops: 1)[3, 3] == SIMD4(200, 80, 255, 255))
        #expect(flat.exposureAdjusted(byStops: -1)[3, 3] == SIMD4(50, 20, 100, 255))
        #expect(flat.blurred(sigma: 1.5) == flat)  // a flat picture stays flat
        // Blurring keeps the mean and lowers the spread of the random picture.
        let blurred = picture.blurred(sigma: 1.5)
        #expect(abs(Self.mean(blurred) - Self.mean(picture)) < 2)
        #expect(Self.neighbourDifference(blurred) < Self.neighbourDifference(picture) / 2)
        var random = TestRandom(seed: 3)
        let noisy = flat.withNoise(sigma: 8, using: &random)
        let deviations = stride(from: 0, to: noisy.pixels.count, by: 4).map { Double(noisy.pixels[$0]) - 100 }
        let spread = (deviations.map { $0 * $0 }.reduce(0, +) / Double(deviations.count)).squareRoot()
        #expect(spread > 5 && spread < 11)
        #expect(abs(deviations.reduce(0, +) / Double(deviations.count)) < 3)
    }

    @Test func sameSeedSamePictureAndEveryOptionChangesIt() {
        var first = TestRandom(seed: 42), second = TestRandom(seed: 42), other = TestRandom(seed: 43)
        let a = picture.augmented(.all, using: &first)
        #expect(a == picture.augmented(.all, using: &second))
        #expect(a != picture.augmented(.all, using: &other))
        #expect(a.width == picture.width && a.height == picture.height)
        for option in [ImageAugmentation.crop, .rotation, .blur, .exposure, .noise] {
            var random = TestRandom(seed: 7)
            #expect(picture.augmented(option, using: &random) != picture, "\(option)")
        }
        // Flip mirrors about half of the time.
        var random = TestRandom(seed: 9)
        let flips = (0..<200).filter { _ in picture.augmented(.flip, using: &random) == picture.oriented(.upMirrored) }.count
        #expect(flips > 70 && flips < 130)
        var none = TestRandom(seed: 1)
        #expect(picture.augmented([], using: &none) == picture)
    }
}
