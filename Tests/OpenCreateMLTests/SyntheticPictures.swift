import Foundation
import OpenCoreMLTools
import _OpenCoreMLTestSupport

/// Labelled folders of small PNG pictures the tests make themselves, and a tiny random-weights
/// convolutional feature extractor over them.
enum SyntheticPictures {
    /// Base colours of the classes.
    static let colours: [String: (UInt8, UInt8, UInt8)] = [
        "red": (200, 40, 40), "green": (40, 190, 60), "blue": (40, 60, 210), "yellow": (220, 210, 40),
    ]

    /// `root/<class>/<n>.png` for each class, `count` pictures each: the class colour with noise
    /// and a random darker square, 16×16.
    static func makeFolders(at root: URL, classes: [String], count: Int, seed: UInt64) throws {
        var random = TestRandom(seed: seed)
        for label in classes {
            let folder = root.appendingPathComponent(label, isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for index in 0..<count {
                try png(colour: colours[label]!, random: &random).write(to: folder.appendingPathComponent("\(index).png"))
            }
        }
    }

    static func png(colour: (UInt8, UInt8, UInt8), size: Int = 16, random: inout TestRandom) -> Data {
        var pixels = [UInt8]()
        let square = (x: random.int(0..<size / 2), y: random.int(0..<size / 2), side: random.int(3..<size / 2))
        for y in 0..<size {
            for x in 0..<size {
                let inSquare = x >= square.x && x < square.x + square.side && y >= square.y && y < square.y + square.side
                for channel in [colour.0, colour.1, colour.2] {
                    let value = Int(channel) / (inSquare ? 2 : 1) + random.int(-30..<30)
                    pixels.append(UInt8(clamping: value))
                }
                pixels.append(255)
            }
        }
        return PNGWriter.rgba(width: size, height: size, pixels: pixels)
    }

    /// conv 3×3 (8 channels, Glorot weights seeded by name) → ReLU → global average pool:
    /// 16×16 RGB picture → 8 features.
    static func extractor() -> Model {
        Model(shortDescription: "Tiny random feature extractor") {
            Input(name: "image", shape: [3, 16, 16], featureType: .image(colorSpace: .rgb))
            Output(name: "features", shape: [8])
            NeuralNetwork(preprocessing: [ImagePreprocessing(featureName: "image", scale: 1 / 255, redBias: -0.5, greenBias: -0.5, blueBias: -0.5)]) {
                Convolution(name: "conv", input: ["image"], output: ["conv_out"], outputChannels: 8, kernelChannels: 3,
                            kernelSize: [3, 3], paddingType: .same(mode: .bottomRightHeavy))
                ReLu(name: "relu", input: ["conv_out"], output: ["relu_out"])
                Pooling(name: "gap", input: ["relu_out"], output: ["features"], poolingType: .average, kernelSize: [], stride: [], globalPooling: true)
            }
        }
    }
}

/// A minimal PNG encoder (8-bit RGBA, filter 0, zlib stored blocks): enough for test pictures.
enum PNGWriter {
    static func rgba(width: Int, height: Int, pixels: [UInt8]) -> Data {
        var raw = [UInt8]()
        for y in 0..<height {
            raw.append(0)
            raw += pixels[(y * width * 4)..<((y + 1) * width * 4)]
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65535, raw.count - offset)
            zlib.append(offset + length == raw.count ? 1 : 0)
            zlib += [UInt8(length & 0xff), UInt8(length >> 8), UInt8(~length & 0xff), UInt8((~length >> 8) & 0xff)]
            zlib += raw[offset..<(offset + length)]
            offset += length
        } while offset < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        zlib += bigEndian((b << 16) | a)

        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        data += chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 6, 0, 0, 0])
        data += chunk("IDAT", zlib)
        data += chunk("IEND", [])
        return data
    }

    private static func chunk(_ type: String, _ body: [UInt8]) -> Data {
        let typed = Array(type.utf8) + body
        return Data(bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed)))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)]
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~crc
    }
}
