// FuzzCInput: the C interface's input conversion, called as a C program (or the Python package)
// would, with arguments chosen by the fuzzer.
//
// Each input is a sequence of `ocm_features_set_*` calls on one features object: element type
// codes (valid or not), ranks, shapes and strides, data offsets (misaligned too), strings (any
// bytes), dictionaries and images with any pixel format, size and row stride; then
// `ocm_model_predict` (and sometimes `ocm_model_predict_batch`) on one of a few small fixture
// models, and every output read back. Every failure the interface reports is an accepted answer;
// findings are traps, AddressSanitizer reports, timeouts and running out of memory.
//
// The C interface takes the caller's memory on trust: an array's data is read wherever its shape
// and strides say, an image's rows wherever its row stride says. So the harness only makes calls
// whose memory lies inside a buffer it owns (`Arena`) — or calls the interface must refuse before
// reading anything (a size below 1, a negative stride, a product or offset that overflows, a rank
// past 64, an unknown type code or pixel format, a row stride shorter than a row). A valid-looking
// call that would reach past the buffer is skipped, not made: reading there would be the
// harness's bug, not the library's.
//
// Input layout (what `Fuzz/corpus/cinput/` holds):
//
//     byte 0       the model: `models[byte % models.count]`
//     byte 1       flags: bit 0 batch-predicts twice as well, bit 1 sets one name twice
//     then calls until the bytes run out, each `op` (byte % 6: array, int64, double, string,
//     dictionary, image) then `name` (byte: one of the model's input names, a fixed unknown name,
//     or a length-prefixed name from the bytes) then the call's own fields, read by `Reader` (a
//     field past the end reads as zero).
//
// The arena (64 KB, 64-byte aligned) is filled from the input's bytes, repeated, so arrays hold
// what the fuzzer wrote: NaN, infinities, subnormals, any integer.

import COpenCoreML
import Foundation
import FuzzSupport

/// The fixture models, loaded once (relative to the repository, found from this file's path).
nonisolated(unsafe) let models: [(model: OpaquePointer, inputs: [String])] = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    let paths = [
        "Tests/Fixtures/mlprogram/Dense.mlpackage",  // x: float32 [1, 32]
        "Tests/Fixtures/mlprogram/Dense16.mlpackage",  // x: float16 [1, 32]
        "Tests/Fixtures/classic/imputer_mean_diabetes.mlmodel",  // input: double [10], NaN imputed
        "Tests/Fixtures/classic/decision_tree_wine.mlmodel",  // input: double [13]
        "Tests/Fixtures/classic/dict_vectorizer_words.mlmodel",  // input: dictionary of strings
        "Tests/Fixtures/classic/one_hot_encoder_ints.mlmodel",  // a, b, c: int64
        "Tests/Fixtures/models/knn_linear_string.mlmodel",  // features: [4], refuses NaN
        "Tests/Fixtures/mlprogram/images/ImageToImage.mlpackage",  // image in, image out
        "Tests/Fixtures/mlprogram/images/ImageToImageFlexible.mlpackage",  // flexible image size
    ]
    return paths.map { path in
        var error: OpaquePointer?
        guard let model = ocm_model_load(root.appendingPathComponent(path).path, nil, 256 << 20, &error) else {
            fatalError("FuzzCInput: cannot load \(path): \(String(cString: ocm_error_message(error)))")
        }
        guard let json = ocm_model_description_json(model, nil) else { fatalError("FuzzCInput: no description for \(path)") }
        defer { ocm_string_free(json) }
        let description = try! JSONSerialization.jsonObject(with: Data(String(cString: json).utf8)) as! [String: Any]
        let inputs = (description["inputs"] as! [[String: Any]]).map { $0["name"] as! String }
        return (model, inputs)
    }
}()

/// The memory the harness owns and hands to the interface.
let arenaSize = 1 << 16
nonisolated(unsafe) let arena = UnsafeMutableRawPointer.allocate(byteCount: arenaSize, alignment: 64)

/// The largest rank whose shape and strides the harness holds (the interface's limit is 64; a
/// larger rank is passed only to see it refused).
let heldRank = 64

@main
enum FuzzCInput {
    static func main() {
        _ = models
        exit(runLibFuzzer { bytes in fuzzOne([UInt8](bytes)) })
    }
}

/// Reads fields from the input; past the end everything is zero.
struct Reader {
    let bytes: [UInt8]
    var position = 0

    var atEnd: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        defer { position += 1 }
        return position < bytes.count ? bytes[position] : 0
    }

    mutating func u64() -> UInt64 {
        (0..<8).reduce(0) { value, shift in value | UInt64(byte()) << (8 * UInt64(shift)) }
    }

    mutating func u32() -> UInt32 {
        (0..<4).reduce(0) { value, shift in value | UInt32(byte()) << (8 * UInt32(shift)) }
    }

    /// Mostly small sizes; byte 255 reads any 64-bit value (negative, huge), 254 a size near a power of two.
    mutating func size() -> Int64 {
        let first = byte()
        switch first {
        case 255: return Int64(bitPattern: u64())
        case 254: return Int64(1) << (Int64(byte()) % 63) + Int64(Int8(bitPattern: byte()))
        default: return Int64(first % 12)
        }
    }

    /// `count` bytes (fewer at the end).
    mutating func take(_ count: Int) -> [UInt8] {
        let start = min(position, bytes.count)
        let end = min(start + count, bytes.count)
        position += count
        return Array(bytes[start..<end])
    }
}

func fuzzOne(_ bytes: [UInt8]) {
    guard bytes.count >= 2 else { return }
    // The arena holds the input, repeated.
    let raw = arena.assumingMemoryBound(to: UInt8.self)
    for index in 0..<arenaSize { raw[index] = bytes[index % bytes.count] }
    var reader = Reader(bytes: bytes)
    let (model, inputs) = models[Int(reader.byte()) % models.count]
    let flags = reader.byte()
    guard let features = ocm_features_create() else { fatalError("ocm_features_create returned NULL") }
    defer { ocm_features_free(features) }
    var calls = 0
    while !reader.atEnd && calls < 32 {
        calls += 1
        let op = reader.byte() % 6
        let name = pickName(&reader, inputs).map { CChar(bitPattern: $0) }
        name.withUnsafeBufferPointer { name in
            let pointer = name.baseAddress!
            switch op {
            case 0: setArray(&reader, features, pointer)
            case 1: expectStatus(ocm_features_set_int64(features, pointer, Int64(bitPattern: reader.u64()), nil))
            case 2: expectStatus(ocm_features_set_double(features, pointer, Double(bitPattern: reader.u64()), nil))
            case 3: setString(&reader, features, pointer)
            case 4: setDictionary(&reader, features, pointer)
            default: setImage(&reader, features, pointer)
            }
        }
    }
    predict(model, features, batch: flags & 1 != 0)
}

/// A NUL-terminated name: one of the model's inputs, an unknown one, the empty one, or bytes.
func pickName(_ reader: inout Reader, _ inputs: [String]) -> [UInt8] {
    let choice = Int(reader.byte())
    if choice < 200 && !inputs.isEmpty { return Array(inputs[choice % inputs.count].utf8) + [0] }
    switch choice % 3 {
    case 0: return Array("unknown".utf8) + [0]
    case 1: return [0]
    default:
        let length = Int(reader.byte() % 16)
        return reader.take(length) + [0]
    }
}

/// A status is OK or an error: never anything else.
func expectStatus(_ status: ocm_status) {
    precondition(status.rawValue <= OCM_ERROR_CANCELLED.rawValue, "unknown status \(status.rawValue)")
}

let dtypes: [UInt32] = [OCM_DTYPE_FLOAT64.rawValue, OCM_DTYPE_FLOAT32.rawValue, OCM_DTYPE_FLOAT16.rawValue,
                        OCM_DTYPE_INT32.rawValue, OCM_DTYPE_INT8.rawValue]

func elementSize(_ code: UInt32) -> Int? {
    switch code {
    case OCM_DTYPE_FLOAT64.rawValue: return 8
    case OCM_DTYPE_FLOAT32.rawValue, OCM_DTYPE_INT32.rawValue: return 4
    case OCM_DTYPE_FLOAT16.rawValue: return 2
    case OCM_DTYPE_INT8.rawValue: return 1
    default: return nil
    }
}

/// Whether the interface must refuse an array before reading it: the rules of `borrowedArray`.
/// Nil when the call is valid; then `extent` is the bytes it reads from `data`.
func arrayIsRefused(code: UInt32, rank: Int, shape: [Int64], strides: [Int64]?, offset: Int) -> (refused: Bool, extent: Int) {
    guard let size = elementSize(code), (1...heldRank).contains(rank) else { return (true, 0) }
    if offset % size != 0 { return (true, 0) }
    let sizes = shape.prefix(rank)
    if sizes.contains(where: { $0 < 1 }) { return (true, 0) }
    var count = size
    for dimension in sizes {
        let (product, overflow) = count.multipliedReportingOverflow(by: Int(dimension))
        if overflow { return (true, 0) }
        count = product
    }
    guard let strides else { return (false, count) }
    if strides.prefix(rank).contains(where: { $0 < 0 }) { return (true, 0) }
    var last = 0
    for (dimension, step) in zip(sizes, strides.prefix(rank)) {
        let (offset, overflow) = Int(dimension - 1).multipliedReportingOverflow(by: Int(step))
        let (sum, overflowSum) = last.addingReportingOverflow(offset)
        if overflow || overflowSum { return (true, 0) }
        last = sum
    }
    let (end, overflow) = last.multipliedReportingOverflow(by: size)
    if overflow || end > Int.max - size { return (true, 0) }
    return (false, end + size)
}

func setArray(_ reader: inout Reader, _ features: OpaquePointer, _ name: UnsafePointer<CChar>) {
    let pick = reader.byte()
    let code = pick < 250 ? dtypes[Int(pick) % dtypes.count] : (pick == 250 ? 0 : reader.u32())
    let rankByte = reader.byte()
    let rank: Int = rankByte == 255 ? Int(truncatingIfNeeded: reader.u64()) : Int(rankByte % 9)
    var shape = [Int64](repeating: 1, count: heldRank)
    for axis in 0..<min(max(rank, 0), 8) { shape[axis] = reader.size() }
    let stridesKind = reader.byte()
    var strides: [Int64]?
    if stridesKind & 1 == 1 {
        var steps = [Int64](repeating: 0, count: heldRank)
        for axis in 0..<min(max(rank, 0), 8) {
            let step = reader.byte()
            steps[axis] = step == 255 ? Int64(bitPattern: reader.u64()) : Int64(step % 16) - (stridesKind & 2 == 2 ? 2 : 0)
        }
        strides = steps
    }
    let offset = Int(reader.byte() % 64)
    let nullShape = stridesKind & 4 == 4 && stridesKind & 8 == 8
    let nullData = stridesKind & 4 == 4 && stridesKind & 16 == 16
    let (refused, extent) = arrayIsRefused(code: code, rank: rank, shape: shape, strides: strides, offset: offset)
    if !refused && !nullShape && !nullData && extent > arenaSize - offset { return }  // would read past the arena: not a call to make
    let status = shape.withUnsafeBufferPointer { shape in
        func call(_ strides: UnsafePointer<Int64>?) -> ocm_status {
            ocm_features_set_array(features, name, ocm_dtype(rawValue: code), rank, nullShape ? nil : shape.baseAddress,
                                   strides, nullData ? nil : arena + offset, nil)
        }
        if let strides { return strides.withUnsafeBufferPointer { call($0.baseAddress) } }
        return call(nil)
    }
    expectStatus(status)
    if refused || nullShape || nullData {
        precondition(status != OCM_OK, "an array the interface must refuse was taken")
    }
}

func setString(_ reader: inout Reader, _ features: OpaquePointer, _ name: UnsafePointer<CChar>) {
    let length = Int(reader.byte())
    let text = (reader.take(length == 255 ? 4000 : length) + [0]).map { CChar(bitPattern: $0) }
    let status = text.withUnsafeBufferPointer { ocm_features_set_string(features, name, $0.baseAddress, nil) }
    expectStatus(status)
}

func setDictionary(_ reader: inout Reader, _ features: OpaquePointer, _ name: UnsafePointer<CChar>) {
    let count = Int(reader.byte() % 24)
    let kind = reader.byte()
    var keys: [[UInt8]] = []
    var integers: [Int64] = []
    var values: [Double] = []
    for _ in 0..<count {
        let length = Int(reader.byte() % 8)
        keys.append(reader.take(length) + [0])
        integers.append(Int64(bitPattern: reader.u64() % 4 == 0 ? reader.u64() : UInt64(reader.byte())))
        values.append(Double(bitPattern: reader.u64()))
    }
    // Key pointers into one NUL-separated block that outlives the call.
    let block = keys.flatMap { $0 }.map { CChar(bitPattern: $0) }
    let status = block.withUnsafeBufferPointer { block in
        let base = block.baseAddress
        var starts: [UnsafePointer<CChar>?] = []
        var at = 0
        for key in keys {
            starts.append(base.map { $0 + at })
            at += key.count
        }
        return starts.withUnsafeBufferPointer { starts in
            integers.withUnsafeBufferPointer { integers in
                values.withUnsafeBufferPointer { values in
                    // kind: which of string and integer keys are given (both, or neither, must be refused unless empty)
                    let stringKeys = kind % 4 == 0 || kind % 4 == 2 ? starts.baseAddress : nil
                    let intKeys = kind % 4 == 1 || kind % 4 == 2 ? integers.baseAddress : nil
                    let valuesPointer = kind & 4 == 4 && kind & 8 == 8 ? nil : values.baseAddress
                    return ocm_features_set_dictionary(features, name, count, stringKeys, intKeys, valuesPointer, nil)
                }
            }
        }
    }
    expectStatus(status)
    if count > 0 && kind % 4 >= 2 { precondition(status != OCM_OK, "a dictionary with both kinds of keys, or none, was taken") }
}

let pixelFormats: [UInt32] = [OCM_PIXEL_BGRA8, OCM_PIXEL_RGBA8, OCM_PIXEL_GRAY8, OCM_PIXEL_GRAY_HALF]

func setImage(_ reader: inout Reader, _ features: OpaquePointer, _ name: UnsafePointer<CChar>) {
    let pick = reader.byte()
    let format = pick < 240 ? pixelFormats[Int(pick) % pixelFormats.count] : reader.u32()
    let width = Int(truncatingIfNeeded: reader.size())
    let height = Int(truncatingIfNeeded: reader.size())
    let extra = reader.byte()
    let perPixel: Int? = switch format {
    case OCM_PIXEL_BGRA8, OCM_PIXEL_RGBA8: 4
    case OCM_PIXEL_GRAY8: 1
    case OCM_PIXEL_GRAY_HALF: 2
    default: nil
    }
    let offset = Int(reader.byte() % 64)
    let nullPixels = extra == 255
    // The row stride: a row's bytes plus a little, or less than a row (refused), or any value.
    let bytesPerRow: Int
    if extra == 254 {
        bytesPerRow = Int(truncatingIfNeeded: reader.u64())
    } else {
        let (row, overflow) = max(width, 0).multipliedReportingOverflow(by: perPixel ?? 4)
        let (padded, overflowPadded) = row.addingReportingOverflow(Int(extra % 16) - (extra & 16 == 16 ? 1 : 0))
        bytesPerRow = overflow || overflowPadded ? Int.max : padded
    }
    // What the interface reads: `height` rows `bytesPerRow` apart, `width × perPixel` bytes each.
    var readsWithin = false
    var refused = nullPixels || perPixel == nil || width < 1 || height < 1 || bytesPerRow < 0
    if !refused, let perPixel {
        let (row, overflowRow) = width.multipliedReportingOverflow(by: perPixel)
        let (span, overflowSpan) = (height - 1).multipliedReportingOverflow(by: bytesPerRow)
        let (total, overflowTotal) = bytesPerRow.multipliedReportingOverflow(by: height)
        if overflowRow || bytesPerRow < row || overflowTotal { refused = true }
        else {
            let (reach, overflowReach) = span.addingReportingOverflow(row)
            readsWithin = !overflowSpan && !overflowReach && reach <= arenaSize - offset && total <= arenaSize
        }
    }
    if !refused && !readsWithin { return }  // a valid image outside the arena: not a call to make
    let status = ocm_features_set_image(features, name, format, width, height, bytesPerRow, nullPixels ? nil : UnsafeRawPointer(arena + offset), nil)
    expectStatus(status)
    if refused { precondition(status != OCM_OK, "an image the interface must refuse was taken") }
}

func predict(_ model: OpaquePointer, _ features: OpaquePointer, batch: Bool) {
    var error: OpaquePointer?
    if let outputs = ocm_model_predict(model, features, nil, &error) {
        readAll(outputs)
        ocm_features_free(outputs)
    } else {
        precondition(error != nil, "a failed prediction without an error")
        _ = ocm_error_code(error)
        precondition(ocm_error_message(error) != nil, "an error without a message")
        ocm_error_free(error)
    }
    guard batch else { return }
    let inputs: [OpaquePointer?] = [features, features]
    var outputs: [OpaquePointer?] = [nil, nil]
    let status = ocm_model_predict_batch(model, inputs, 2, &outputs, nil)
    expectStatus(status)
    for output in outputs {
        if let output { readAll(output); ocm_features_free(output) }
    }
}

/// Reads every output through the getters, touching every byte they point at.
func readAll(_ outputs: OpaquePointer) {
    var checksum: UInt64 = 0
    for index in 0..<ocm_features_count(outputs) {
        guard let name = ocm_features_name(outputs, index) else { preconditionFailure("no name for output \(index)") }
        switch ocm_features_type(outputs, name) {
        case OCM_FEATURE_MULTIARRAY:
            var dtype = OCM_DTYPE_FLOAT32
            var rank = 0
            var shape: UnsafePointer<Int64>?
            var strides: UnsafePointer<Int64>?
            var data: UnsafeRawPointer?
            guard ocm_features_get_array(outputs, name, &dtype, &rank, &shape, &strides, &data, nil) == OCM_OK,
                  let shape, let strides, let data, let size = elementSize(dtype.rawValue) else { continue }
            var last = 0
            for axis in 0..<rank where shape[axis] > 0 { last += Int(shape[axis] - 1) * Int(strides[axis]) }
            if (0..<rank).allSatisfy({ shape[$0] > 0 }) {
                for byte in 0..<size { checksum &+= UInt64(data.load(fromByteOffset: last * size + byte, as: UInt8.self)) }
            }
        case OCM_FEATURE_STRING:
            var text: UnsafePointer<CChar>?
            if ocm_features_get_string(outputs, name, &text, nil) == OCM_OK, let text { checksum &+= UInt64(strlen(text)) }
        case OCM_FEATURE_DICTIONARY:
            var count = 0
            var keyType = OCM_FEATURE_INVALID
            var stringKeys: UnsafePointer<UnsafePointer<CChar>?>?
            var intKeys: UnsafePointer<Int64>?
            var values: UnsafePointer<Double>?
            if ocm_features_get_dictionary(outputs, name, &count, &keyType, &stringKeys, &intKeys, &values, nil) == OCM_OK {
                for entry in 0..<count {
                    checksum &+= UInt64(values![entry].bitPattern)
                    if let stringKeys { checksum &+= UInt64(strlen(stringKeys[entry]!)) } else if let intKeys { checksum &+= UInt64(bitPattern: intKeys[entry]) }
                }
            }
        case OCM_FEATURE_IMAGE:
            var format: UInt32 = 0
            var width = 0
            var height = 0
            var bytesPerRow = 0
            var pixels: UnsafeRawPointer?
            if ocm_features_get_image(outputs, name, &format, &width, &height, &bytesPerRow, &pixels, nil) == OCM_OK, let pixels, height > 0 {
                checksum &+= UInt64(pixels.load(fromByteOffset: (height - 1) * bytesPerRow + bytesPerRow - 1, as: UInt8.self))
            }
        default:
            var integer: Int64 = 0
            var real = 0.0
            _ = ocm_features_get_int64(outputs, name, &integer, nil)
            _ = ocm_features_get_double(outputs, name, &real, nil)
            checksum &+= UInt64(bitPattern: integer) &+ real.bitPattern
        }
    }
    blackHole = checksum
}

nonisolated(unsafe) var blackHole: UInt64 = 0
