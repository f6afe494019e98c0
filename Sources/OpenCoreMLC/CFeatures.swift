import COpenCoreML
import CoreMLSpec
import Foundation
import OpenCoreML

/// An `ocm_features`: named feature values (a prediction's inputs or outputs), plus the C views
/// handed out for them, which live as long as the object.
final class CFeatures {
    private(set) var values: [String: MLFeatureValue]
    /// The names in byte order, as C strings (made on first use, remade after a change).
    private var names: [UnsafeMutablePointer<CChar>]?
    /// Per feature: memory made for a C view of it (shapes, strides, strings, dictionary entries).
    private var views: [String: [UnsafeMutableRawPointer]] = [:]

    init(_ values: [String: MLFeatureValue] = [:]) { self.values = values }

    deinit {
        names?.forEach { free($0) }
        views.values.joined().forEach { free($0) }
    }

    /// Sets `name` to `value`, dropping the C views of what it held.
    func set(_ name: String, _ value: MLFeatureValue) {
        values[name] = value
        names?.forEach { free($0) }
        names = nil
        views.removeValue(forKey: name)?.forEach { free($0) }
    }

    var provider: MLFeatureProvider { MLDictionaryFeatureProvider(featureValues: values) }

    /// The C string of the name at `index` in byte order; nil past the end.
    func name(at index: Int) -> UnsafePointer<CChar>? {
        if names == nil {
            names = values.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { strdup($0)! }
        }
        return index < names!.count ? UnsafePointer(names![index]) : nil
    }

    /// The value named `name`, which must be of type `type`.
    func value(_ name: String, _ type: MLFeatureType) throws -> MLFeatureValue {
        guard let value = values[name], !value.isUndefined else {
            throw CInterfaceError(OCM_ERROR_NOT_FOUND, "no feature named '\(name)'")
        }
        guard value.type == type else {
            throw CInterfaceError(OCM_ERROR_FEATURE_TYPE, "feature '\(name)' is a \(value.type), not a \(type)")
        }
        return value
    }

    /// Memory for a C view of feature `name`, freed with the object.
    func view<Element>(of name: String, _ elements: [Element]) -> UnsafePointer<Element> {
        let bytes = max(1, elements.count * MemoryLayout<Element>.stride)
        let memory = malloc(bytes)!
        elements.withUnsafeBytes { memory.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(memory), byteCount: $0.count) }
        views[name, default: []].append(memory)
        return UnsafePointer(memory.assumingMemoryBound(to: Element.self))
    }

    /// A C string for feature `name`, freed with the object.
    func view(of name: String, _ text: String) -> UnsafePointer<CChar> {
        let copy = strdup(text)!
        views[name, default: []].append(UnsafeMutableRawPointer(copy))
        return UnsafePointer(copy)
    }
}

// MARK: - Multi-arrays shared by features and states

/// The element type for an `ocm_dtype` code.
func dataType(_ code: ocm_dtype) throws -> MLMultiArrayDataType {
    guard let type = MLMultiArrayDataType(rawValue: Int(code.rawValue)) else {
        throw CInterfaceError.argument("unknown ocm_dtype \(code.rawValue)")
    }
    return type
}

/// The largest rank a multi-array given to the interface may have (numpy's own limit; Core ML's
/// layers take at most 5 dimensions, its programs not many more).
let maximumArrayRank = 64

/// A multi-array over caller memory (no copy): `rank` sizes (each at least 1) and strides in
/// elements (NULL: contiguous).
///
/// The caller's memory is taken on trust, but what the arguments say about it is checked: a rank
/// from 1 to `maximumArrayRank`, positive sizes whose product fits in memory, strides that are not
/// negative, data aligned to its elements, and a last element (at the sum of `(size - 1) × stride`)
/// whose bytes stay inside the address space. Anything else is `OCM_ERROR_ARGUMENT`, never a trap.
func borrowedArray(_ dtype: ocm_dtype, _ rank: Int, _ shape: UnsafePointer<Int64>?, _ strides: UnsafePointer<Int64>?,
                   _ data: UnsafeMutableRawPointer?, what: String) throws -> MLMultiArray {
    let type = try dataType(dtype)
    guard (1...maximumArrayRank).contains(rank) else {
        throw CInterfaceError.argument("\(what): a multi-array's rank must be from 1 to \(maximumArrayRank), got \(rank)")
    }
    guard let shape else { throw CInterfaceError.argument("\(what): shape is NULL") }
    guard let data else { throw CInterfaceError.argument("\(what): data is NULL") }
    let elementSize = type.byteCount
    guard UInt(bitPattern: data) % UInt(elementSize) == 0 else {
        throw CInterfaceError.argument("\(what): data is not aligned to its \(elementSize)-byte elements")
    }
    let sizes = (0..<rank).map { Int(shape[$0]) }
    guard sizes.allSatisfy({ $0 > 0 }) else { throw CInterfaceError.argument("\(what): every size must be at least 1, got \(sizes)") }
    guard checkedProduct(sizes + [elementSize]) != nil else {
        throw CInterfaceError.argument("\(what): shape \(sizes) holds more elements than memory can")
    }
    let steps = strides.map { strides in (0..<rank).map { Int(strides[$0]) } } ?? MLMultiArray.contiguousStrides(sizes)
    guard steps.allSatisfy({ $0 >= 0 }) else { throw CInterfaceError.argument("\(what): strides must not be negative, got \(steps)") }
    // The offset of the last element the strides reach, then the address just past its bytes.
    var last = 0
    for (size, step) in zip(sizes, steps) {
        let (offset, overflow) = (size - 1).multipliedReportingOverflow(by: step)
        let (sum, overflowSum) = last.addingReportingOverflow(offset)
        guard !overflow, !overflowSum else { throw CInterfaceError.argument("\(what): shape \(sizes) with strides \(steps) reaches past any buffer") }
        last = sum
    }
    let (end, overflowEnd) = last.multipliedReportingOverflow(by: elementSize)
    guard !overflowEnd, end <= Int.max - elementSize,
          !UInt(bitPattern: data).addingReportingOverflow(UInt(end + elementSize)).overflow else {
        throw CInterfaceError.argument("\(what): shape \(sizes) with strides \(steps) reaches past the end of memory")
    }
    return try MLMultiArray(dataPointer: data, shape: sizes.map { NSNumber(value: $0) }, dataType: type,
                            strides: steps.map { NSNumber(value: $0) })
}

// MARK: - Building

@_cdecl("ocm_features_create")
public func ocmFeaturesCreate() -> OpaquePointer {
    Handle<CFeatures>.retain(CFeatures())
}

@_cdecl("ocm_features_free")
public func ocmFeaturesFree(_ features: OpaquePointer?) {
    Handle<CFeatures>.release(features)
}

/// Runs `body` with the features object and the feature's name, both checked.
private func setting(_ features: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<OpaquePointer?>?,
                     _ body: (CFeatures, String) throws -> MLFeatureValue) -> ocm_status {
    status(error) {
        guard let features else { throw CInterfaceError.argument("features is NULL") }
        let object = Handle<CFeatures>.borrow(features)
        let key = try string(name, "name")
        object.set(key, try body(object, key))
    }
}

@_cdecl("ocm_features_set_array")
public func ocmFeaturesSetArray(_ features: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ dtype: ocm_dtype, _ rank: Int,
                                _ shape: UnsafePointer<Int64>?, _ strides: UnsafePointer<Int64>?, _ data: UnsafeMutableRawPointer?,
                                _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    setting(features, name, error) { _, key in
        MLFeatureValue(multiArray: try borrowedArray(dtype, rank, shape, strides, data, what: "feature '\(key)'"))
    }
}

@_cdecl("ocm_features_set_int64")
public func ocmFeaturesSetInt64(_ features: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ value: Int64,
                                _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    setting(features, name, error) { _, _ in MLFeatureValue(int64: value) }
}

@_cdecl("ocm_features_set_double")
public func ocmFeaturesSetDouble(_ features: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ value: Double,
                                 _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    setting(features, name, error) { _, _ in MLFeatureValue(double: value) }
}

@_cdecl("ocm_features_set_string")
public func ocmFeaturesSetString(_ features: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?,
                                 _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    setting(features, name, error) { _, key in MLFeatureValue(string: try string(value, "the value of '\(key)'")) }
}

@_cdecl("ocm_features_set_dictionary")
public func ocmFeaturesSetDictionary(_ features: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ count: Int,
                                     _ stringKeys: UnsafePointer<UnsafePointer<CChar>?>?, _ intKeys: UnsafePointer<Int64>?,
                                     _ values: UnsafePointer<Double>?, _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    setting(features, name, error) { _, key in
        guard count >= 0 else { throw CInterfaceError.argument("dictionary '\(key)': negative count") }
        guard count == 0 || (values != nil && (stringKeys == nil) != (intKeys == nil)) else {
            throw CInterfaceError.argument("dictionary '\(key)': give values and exactly one of string_keys and int_keys")
        }
        var dictionary: [AnyHashable: NSNumber] = [:]
        for index in 0..<count {
            let entry: AnyHashable
            if let stringKeys {
                entry = AnyHashable(try string(stringKeys[index], "dictionary '\(key)': key \(index)"))
            } else {
                entry = AnyHashable(intKeys![index])
            }
            dictionary[entry] = NSNumber(value: values![index])
        }
        return try MLFeatureValue(dictionary: dictionary)
    }
}

@_cdecl("ocm_features_set_image")
public func ocmFeaturesSetImage(_ features: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ pixelFormat: UInt32, _ width: Int,
                                _ height: Int, _ bytesPerRow: Int, _ pixels: UnsafeRawPointer?,
                                _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    setting(features, name, error) { _, key in
        guard let pixels else { throw CInterfaceError.argument("image '\(key)': pixels is NULL") }
        // The rows the caller says it holds are checked before any pixel buffer is made: a width
        // of 2^40 with a short row stride is refused, not allocated.
        guard let bytes = bytesPerPixel(pixelFormat), width > 0, height > 0 else {
            throw CInterfaceError.argument("image '\(key)': \(width)×\(height) pixels of format 0x\(String(pixelFormat, radix: 16)) is not an image OpenCoreML takes")
        }
        let (row, overflowRow) = width.multipliedReportingOverflow(by: bytes)
        let (total, overflowTotal) = bytesPerRow.multipliedReportingOverflow(by: height)
        guard !overflowRow, bytesPerRow >= row, !overflowTotal,
              !UInt(bitPattern: pixels).addingReportingOverflow(UInt(total)).overflow else {
            throw CInterfaceError.argument("image '\(key)': bytes_per_row \(bytesPerRow) is less than a row's \(overflowRow ? "" : "\(row) ")bytes, or its \(height) rows reach past the end of memory")
        }
        guard let buffer = PixelBuffer(width: width, height: height, pixelFormatType: pixelFormat) else {
            throw CInterfaceError.argument("image '\(key)': \(width)×\(height) pixels of format 0x\(String(pixelFormat, radix: 16)) is not an image OpenCoreML takes")
        }
        for row in 0..<height {
            (buffer.baseAddress + row * buffer.bytesPerRow).copyMemory(from: pixels + row * bytesPerRow, byteCount: buffer.bytesPerRow)
        }
        return MLFeatureValue(pixelBuffer: buffer)
    }
}

/// The bytes one pixel takes in each of the header's `OCM_PIXEL_` formats, the only ones the
/// interface takes.
func bytesPerPixel(_ format: UInt32) -> Int? {
    switch format {
    case OCM_PIXEL_BGRA8, OCM_PIXEL_RGBA8: return 4
    case OCM_PIXEL_GRAY8: return 1
    case OCM_PIXEL_GRAY_HALF: return 2
    default: return nil
    }
}

// MARK: - Reading

@_cdecl("ocm_features_count")
public func ocmFeaturesCount(_ features: OpaquePointer?) -> Int {
    guard let features else { return 0 }
    return Handle<CFeatures>.borrow(features).values.count
}

@_cdecl("ocm_features_name")
public func ocmFeaturesName(_ features: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    guard let features, index >= 0 else { return nil }
    return Handle<CFeatures>.borrow(features).name(at: index)
}

@_cdecl("ocm_features_type")
public func ocmFeaturesType(_ features: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> ocm_feature_type {
    guard let features, let name, let value = Handle<CFeatures>.borrow(features).values[String(cString: name)], !value.isUndefined else {
        return OCM_FEATURE_INVALID
    }
    return ocm_feature_type(rawValue: UInt32(value.type.rawValue))
}

/// Runs `body` with the features object and the named value of type `type`.
private func reading(_ features: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ type: MLFeatureType,
                     _ error: UnsafeMutablePointer<OpaquePointer?>?, _ body: (CFeatures, String, MLFeatureValue) throws -> Void) -> ocm_status {
    status(error) {
        guard let features else { throw CInterfaceError.argument("features is NULL") }
        let object = Handle<CFeatures>.borrow(features)
        let key = try string(name, "name")
        try body(object, key, try object.value(key, type))
    }
}

@_cdecl("ocm_features_get_array")
public func ocmFeaturesGetArray(_ features: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ dtype: UnsafeMutablePointer<ocm_dtype>?,
                                _ rank: UnsafeMutablePointer<Int>?, _ shape: UnsafeMutablePointer<UnsafePointer<Int64>?>?,
                                _ strides: UnsafeMutablePointer<UnsafePointer<Int64>?>?, _ data: UnsafeMutablePointer<UnsafeRawPointer?>?,
                                _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    reading(features, name, .multiArray, error) { object, key, value in
        let array = value.multiArrayValue!
        dtype?.pointee = ocm_dtype(rawValue: UInt32(array.dataType.rawValue))
        rank?.pointee = array.shape.count
        shape?.pointee = object.view(of: key, array.shape.map { Int64($0.intValue) })
        strides?.pointee = object.view(of: key, array.strides.map { Int64($0.intValue) })
        data?.pointee = UnsafeRawPointer(array.dataPointer)
    }
}

@_cdecl("ocm_features_get_int64")
public func ocmFeaturesGetInt64(_ features: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ value: UnsafeMutablePointer<Int64>?,
                                _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    reading(features, name, .int64, error) { _, _, feature in value?.pointee = feature.int64Value }
}

@_cdecl("ocm_features_get_double")
public func ocmFeaturesGetDouble(_ features: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ value: UnsafeMutablePointer<Double>?,
                                 _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    reading(features, name, .double, error) { _, _, feature in value?.pointee = feature.doubleValue }
}

@_cdecl("ocm_features_get_string")
public func ocmFeaturesGetString(_ features: OpaquePointer?, _ name: UnsafePointer<CChar>?,
                                 _ value: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                 _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    reading(features, name, .string, error) { object, key, feature in value?.pointee = object.view(of: key, feature.stringValue) }
}

@_cdecl("ocm_features_get_dictionary")
public func ocmFeaturesGetDictionary(_ features: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ count: UnsafeMutablePointer<Int>?,
                                     _ keyType: UnsafeMutablePointer<ocm_feature_type>?,
                                     _ stringKeys: UnsafeMutablePointer<UnsafePointer<UnsafePointer<CChar>?>?>?,
                                     _ intKeys: UnsafeMutablePointer<UnsafePointer<Int64>?>?,
                                     _ values: UnsafeMutablePointer<UnsafePointer<Double>?>?,
                                     _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    reading(features, name, .dictionary, error) { object, key, feature in
        let dictionary = feature.dictionaryValue
        let texts = dictionary.keys.compactMap { $0.base as? String }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        count?.pointee = dictionary.count
        stringKeys?.pointee = nil
        intKeys?.pointee = nil
        if texts.count == dictionary.count && !texts.isEmpty {
            keyType?.pointee = OCM_FEATURE_STRING
            let pointers: [UnsafePointer<CChar>?] = texts.map { object.view(of: key, $0) }
            stringKeys?.pointee = object.view(of: key, pointers)
            values?.pointee = object.view(of: key, texts.map { dictionary[AnyHashable($0)]!.doubleValue })
        } else {
            let integers = dictionary.keys.compactMap { $0.base as? Int64 }.sorted()
            keyType?.pointee = OCM_FEATURE_INT64
            intKeys?.pointee = object.view(of: key, integers)
            values?.pointee = object.view(of: key, integers.map { dictionary[AnyHashable($0)]!.doubleValue })
        }
    }
}

@_cdecl("ocm_features_get_image")
public func ocmFeaturesGetImage(_ features: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ pixelFormat: UnsafeMutablePointer<UInt32>?,
                                _ width: UnsafeMutablePointer<Int>?, _ height: UnsafeMutablePointer<Int>?,
                                _ bytesPerRow: UnsafeMutablePointer<Int>?, _ pixels: UnsafeMutablePointer<UnsafeRawPointer?>?,
                                _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    reading(features, name, .image, error) { _, _, feature in
        let buffer = feature.imageBufferValue!
        pixelFormat?.pointee = buffer.pixelFormatType
        width?.pointee = buffer.width
        height?.pointee = buffer.height
        bytesPerRow?.pointee = buffer.bytesPerRow
        pixels?.pointee = UnsafeRawPointer(buffer.baseAddress)
    }
}
