import Foundation
import Testing
import _OpenCoreMLImageIO

/// Resampling and crop-and-scale against Pillow's `resize(BILINEAR, box=…)` (which rounds to
/// 8 bits between its two passes, hence one level of tolerance).
struct ResamplingTests {
    let source = ImageFixtures.references.decoded["rgb.png"]!.image

    @Test(arguments: ["down", "up", "box"])
    func resampleMatchesPillow(label: String) throws {
        let reference = ImageFixtures.references.resizes.first { $0.label == label }!
        let box = reference.box
        let image = source.resampled(
            from: PixelRect(x: box[0], y: box[1], width: box[2] - box[0], height: box[3] - box[1]),
            width: reference.width, height: reference.height)
        #expect(ImageFixtures.maxDifference(image, reference.image).map { $0 <= 1 } == true)
    }

    @Test(arguments: [("centerCrop", CropAndScale.centerCrop), ("scaleFit", .scaleFit), ("scaleFill", .scaleFill)])
    func cropAndScaleGeometry(label: String, mode: CropAndScale) throws {
        let reference = ImageFixtures.references.resizes.first { $0.label == label }!
        let image = source.scaled(toWidth: 16, height: 16, mode: mode)
        #expect(ImageFixtures.maxDifference(image, reference.image).map { $0 <= 1 } == true)
    }

    @Test func scaleFitLeavesTransparentBarsAndCenterCropKeepsTheMiddle() {
        // A 4×2 picture, left half red, right half blue.
        var image = RGBAImage(width: 4, height: 2, fill: SIMD4(255, 0, 0, 255))
        for y in 0..<2 { for x in 2..<4 { image[x, y] = SIMD4(0, 0, 255, 255) } }
        let fit = image.scaled(toWidth: 4, height: 4, mode: .scaleFit)
        #expect(fit[0, 0] == .zero && fit[3, 3] == .zero)           // bars above and below
        #expect(fit[0, 1] == SIMD4(255, 0, 0, 255) && fit[3, 2] == SIMD4(0, 0, 255, 255))
        let crop = image.scaled(toWidth: 2, height: 2, mode: .centerCrop)  // the middle 2×2, unscaled
        #expect(crop == image.cropped(x: 1, y: 0, width: 2, height: 2))
        #expect(image.resized(width: 4, height: 2) == image)             // identity
    }

    @Test func cropAndComposite() {
        var image = RGBAImage(width: 3, height: 3, fill: SIMD4(200, 100, 50, 255))
        image[1, 1] = SIMD4(200, 100, 50, 128)
        let cropped = image.cropped(x: 1, y: 1, width: 2, height: 1)
        #expect(cropped.width == 2 && cropped[0, 0] == SIMD4(200, 100, 50, 128))
        #expect(cropped.compositedOverBlack()[0, 0] == SIMD4(100, 50, 25, 255))
        #expect(cropped.compositedOverBlack()[1, 0] == SIMD4(200, 100, 50, 255))
    }
}
