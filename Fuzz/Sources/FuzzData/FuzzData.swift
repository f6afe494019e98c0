// FuzzData: the data-file readers of OpenCreateML and OpenCoreML.
//
// The first byte picks a reader (`Format`), the rest is written to a file of the name that reader
// expects (or to two files where it takes a pair) in a scratch folder, and the reader is called.
// Every Swift error is an accepted answer to a bad file; findings are traps, AddressSanitizer
// reports, timeouts and running out of memory.
//
// Input layout (what `MakeSeeds` writes and `Fuzz/corpus/data/` holds):
//
//     byte 0      format: `Format(rawValue: byte % Format.allCases.count)`
//     byte 1      options for formats that have any (CSV table options, image size, gzip)
//     bytes 2...  the file; for pairs (IDX, NPY pair): a 2-byte little-endian length of the
//                 first file, the first file, then the second file

import Foundation
import FuzzSupport
import OpenCoreML
import OpenCreateML

enum Format: UInt8, CaseIterable {
    /// `LabeledDataset(contentsOf: x.csv)`: label-first CSV (gzipped when it starts with 1f 8b).
    case datasetCSV
    /// `MLDataTable(contentsOf: x.csv)` with the default options.
    case tableCSV
    /// `MLDataTable(contentsOf: x.csv, options:)` with options picked by byte 1.
    case tableCSVOptions
    /// `MLDataTable(contentsOf: x.json)`.
    case tableJSON
    /// `LabeledDataset(contentsOf: folder, split:)`: an IDX images file and an IDX labels file
    /// (see `idx`).
    case datasetIDX
    /// `MLMultiArray(contentsOf: x.npy)`.
    case arrayNPY
    /// `LabeledDataset(npyFeatures: x.npy, labels: y.npy)`.
    case datasetNPYPair
    /// `MLMultiArray(contentsOf: x.json)`.
    case arrayJSON
    /// `MLMultiArray(contentsOf: x.csv)`.
    case arrayCSV
    /// `MLFeatureValue(imageAt:pixelsWide:pixelsHigh:pixelFormatType:options:)`, JPEG or PNG.
    case image
}

/// The scratch folder for the files (FuzzSupport's `makeScratchFolder`).
let scratch = makeScratchFolder(target: "fuzzdata")

@main
enum FuzzData {
    static func main() {
        _ = scratch
        exit(runLibFuzzer { bytes in fuzzOne(bytes) })
    }
}

func fuzzOne(_ input: Data) {
    guard input.count >= 2 else { return }
    let bytes = [UInt8](input)
    let format = Format(rawValue: bytes[0] % UInt8(Format.allCases.count))!
    let options = bytes[1]
    let body = Data(bytes[2...])
    switch format {
    case .datasetCSV:
        let file = write(body, "examples.csv")
        _ = try? LabeledDataset(contentsOf: file, scale: options & 1 == 0 ? 1 / 255 : 1)
    case .tableCSV:
        _ = try? MLDataTable(contentsOf: write(body, "table.csv"))
    case .tableCSVOptions:
        _ = try? MLDataTable(contentsOf: write(body, "table.csv"), options: csvOptions(options))
    case .tableJSON:
        _ = try? MLDataTable(contentsOf: write(body, "table.json"))
    case .datasetIDX:
        idx(body, options: options)
    case .arrayNPY:
        _ = try? MLMultiArray(contentsOf: write(body, "array.npy"), dataType: options & 1 == 0 ? .float32 : .double)
    case .datasetNPYPair:
        let (first, second) = splitPair(body)
        _ = try? LabeledDataset(npyFeatures: write(first, "features.npy"), labels: write(second, "labels.npy"))
    case .arrayJSON:
        _ = try? MLMultiArray(contentsOf: write(body, "array.json"))
    case .arrayCSV:
        _ = try? MLMultiArray(contentsOf: write(body, "array.csv"))
    case .image:
        image(body, options: options)
    }
}

/// Writes `data` to `name` in the scratch folder and returns its URL.
@discardableResult
func write(_ data: Data, _ name: String, in folder: URL = scratch) -> URL {
    let url = folder.appendingPathComponent(name)
    try? data.write(to: url)
    return url
}

/// The two files of a pair: a 2-byte little-endian length (clamped to what is there), then the
/// first file, then the second.
func splitPair(_ body: Data) -> (Data, Data) {
    guard body.count >= 2 else { return (Data(), Data()) }
    let bytes = [UInt8](body)
    let length = min(Int(bytes[0]) | Int(bytes[1]) << 8, bytes.count - 2)
    return (Data(bytes[2..<(2 + length)]), Data(bytes[(2 + length)...]))
}

/// An IDX folder: images and labels of the split byte 1 bit 0 picks, each written as given
/// (gzipped files are recognised by their content, and bit 1 names them `.gz`).
func idx(_ body: Data, options: UInt8) {
    let folder = scratch.appendingPathComponent("idx")
    try? FileManager.default.removeItem(at: folder)
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let split: LabeledDataset.Split = options & 1 == 0 ? .train : .test
    let prefix = split == .train ? "train" : "t10k"
    let suffix = options & 2 == 0 ? "" : ".gz"
    let (images, labels) = splitPair(body)
    write(images, "\(prefix)-images-idx3-ubyte\(suffix)", in: folder)
    write(labels, "\(prefix)-labels-idx1-ubyte\(suffix)", in: folder)
    _ = try? LabeledDataset(contentsOf: folder, split: split)
}

/// CSV options from the bits of one byte, each a choice Create ML's users make.
func csvOptions(_ bits: UInt8) -> MLDataTable.ParsingOptions {
    var options = MLDataTable.ParsingOptions()
    options.containsHeader = bits & 1 == 0
    options.delimiter = [",", ";", "\t", " "][Int(bits >> 1) & 3]
    options.comment = bits & 8 == 0 ? "" : "#"
    options.quote = bits & 16 == 0 ? "\"" : "'"
    options.escape = bits & 32 == 0 ? "\\" : ""
    options.doubleQuote = bits & 64 == 0
    options.lineTerminator = bits & 128 == 0 ? "\n" : "\r"
    options.skipInitialSpaces = bits & 3 != 3
    options.missingValues = bits & 4 == 0 ? ["NA"] : ["NA", "?", ""]
    if bits & 0x81 == 0x81 { options.maxRows = 2 }
    if bits & 0x41 == 0x41 { options.skipRows = 1 }
    return options
}

/// An image decoded and fitted to a small size: byte 1 picks width and height (1...16 each,
/// from its nibbles' low 3 bits and 4 more for the top bit), the pixel format and the scaling.
func image(_ body: Data, options bits: UInt8) {
    let formats: [UInt32] = [
        kCVPixelFormatType_32BGRA, kCVPixelFormatType_OneComponent8, kCVPixelFormatType_32RGBA,
        kCVPixelFormatType_OneComponent16Half,
    ]
    let width = Int(bits & 7) + 1 + (bits & 8 == 0 ? 0 : 8)
    let height = Int((bits >> 4) & 7) + 1 + (bits & 128 == 0 ? 0 : 8)
    let format = formats[Int(bits ^ (bits >> 3)) & 3]
    var options: [MLFeatureValue.ImageOption: Any] = [.cropAndScale: Int(bits % 3)]
    if bits % 5 == 0 { options[.cropRect] = CGRect(x: 0.25, y: 0.1, width: 0.5, height: 0.7) }
    let file = write(body, "picture.img")
    _ = try? MLFeatureValue(imageAt: file, pixelsWide: width, pixelsHigh: height, pixelFormatType: format, options: options)
}
