import Foundation
import Testing
import _OpenCoreMLImageIO
import _OpenCoreMLTestSupport

/// `opencoreml predict MODEL --input image=photo.png --output-dir DIR` on ML Programs with image
/// inputs and outputs (Tests/Fixtures/mlprogram/images, made by
/// Scripts/make_image_program_fixtures.py): the PNG is decoded and fed as the image input, the
/// image output written to DIR/styled.png holds the pixels PyTorch computed (rounded, ±1).
struct PredictImageCommandTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mlprogram/images")

    @Test func anImageInFromAPNGAndAnImageOutWrittenAsPNG() throws {
        let facts = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: Self.folder.appendingPathComponent("image_facts.json"))) as? [String: Any])
        let fact = try #require((facts["ImageToImage.mlpackage"] as? [String: Any])?["outputs"] as? [String: Any])
        let expected = try #require((fact["styled"] as? [String: Any])?["values"] as? [Double])
        try withTemporaryDirectory { directory in
            let out = directory.appendingPathComponent("out/images")
            let result = try CommandRunner.run([
                "predict", Self.folder.appendingPathComponent("ImageToImage.mlpackage").path,
                "--input", "image=\(Self.folder.appendingPathComponent("photo.png").path)", "--output-dir", out.path, "--json",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let styled = try #require(object["styled"] as? [String: Any])
            let file = out.appendingPathComponent("styled.png").path
            #expect(styled["file"] as? String == file && styled["width"] as? Int == 8 && styled["height"] as? Int == 6)
            // Only the PNG is left in the folder (no temporary file).
            #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["styled.png"])
            let image = try RGBAImage(contentsOf: URL(fileURLWithPath: file))
            #expect(image.width == 8 && image.height == 6)
            // The facts are [3, 6, 8] planes: red, green, blue.
            var worst = 0.0
            for channel in 0..<3 {
                for pixel in 0..<48 {
                    let wanted = min(max(expected[channel * 48 + pixel].rounded(), 0), 255)
                    worst = max(worst, abs(Double(image.pixels[4 * pixel + channel]) - wanted))
                }
            }
            #expect(worst <= 1, "the PNG's pixels differ from PyTorch's by up to \(worst)")

            // Without --json: the output's size and where it went.
            let text = try CommandRunner.run([
                "predict", Self.folder.appendingPathComponent("GrayToGray.mlpackage").path,
                "--input", "image=\(Self.folder.appendingPathComponent("gray.png").path)", "--output-dir", out.path,
            ])
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stdout.contains("styled: image 8×6") && text.stdout.contains("→ \(file)"), "\(text.stdout)")
        }
    }

    @Test func anImageInputFromAnArrayFileIsAClearError() throws {
        try withTemporaryDirectory { directory in
            let array = directory.appendingPathComponent("x.json")
            try Data("[1, 2, 3]".utf8).write(to: array)
            let result = try CommandRunner.run([
                "predict", Self.folder.appendingPathComponent("ImageRGB.mlpackage").path, "--input", "image=\(array.path)",
            ])
            #expect(result.status != 0)
            #expect(result.stderr.contains("input 'image' is an image; give it as a .jpg or .png file"), "\(result.stderr)")
        }
    }
}
