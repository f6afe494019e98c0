import Foundation
import OpenCoreML
import _OpenCoreMLImageIO

extension ImageFeatureExtractor {
    /// The features of a picture held as the bytes of its JPEG or PNG file (EXIF orientation
    /// applied); `name` says which picture in errors.
    public func features(ofImageData data: Data, name: String) throws -> [Float] {
        let image: RGBAImage
        do { image = try RGBAImage(data: data, name: name) } catch {
            throw CreateMLError(name, "cannot read the picture: \(error)")
        }
        return try features(of: image, name: name)
    }

    /// The features of many pictures given as encoded files (an OpenCoreML addition, behind Turi
    /// Create's `extract_features` and `image_classifier.create` in Python), row after row
    /// (`pictures.count` × ``featureCount``). Each picture's features are cached on disk in
    /// `cacheDirectory` (nil: none) under the extractor's fingerprint and a hash of the bytes, so
    /// the same picture is extracted once per extractor wherever it comes from. `progress` gets the
    /// number of pictures done and whether this one came from the cache; returning false stops
    /// with ``CreateMLError`` "cancelled".
    public func features(ofEncodedImages pictures: [Data], names: [String], cacheDirectory: URL?,
                         progress: (_ completed: Int, _ fromCache: Bool) -> Bool = { _, _ in true }) throws -> [Float] {
        precondition(names.count == pictures.count, "one name per picture")
        let cache = cacheDirectory.map { FeatureCache(directory: $0) }
        var rows: [Float] = []
        rows.reserveCapacity(pictures.count * featureCount)
        for (index, picture) in pictures.enumerated() {
            let compute = { try self.features(ofImageData: picture, name: names[index]) }
            let key = ImageFeatureExtractor.hash("\(fingerprint)|bytes \(ImageFeatureExtractor.hash(picture))|\(picture.count)")
            let (values, fromCache) = try cache?.values(key, count: featureCount, compute: compute) ?? (compute(), false)
            rows += values
            guard progress(index + 1, fromCache) else { throw CreateMLError("feature extraction", "cancelled after \(index + 1) of \(pictures.count) pictures") }
        }
        return rows
    }
}
