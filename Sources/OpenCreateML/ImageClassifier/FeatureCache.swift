import Foundation

/// Extracted features kept on disk, one small file per picture (and augmented copy), keyed by the
/// extractor's fingerprint and the picture file's real path (symbolic links resolved), size and
/// modification time: changing a training hyperparameter does not extract again, changing the
/// picture or the extractor does.
struct FeatureCache {
    let directory: URL

    /// The key of a picture file as seen now, with `variant` ("" for the picture itself).
    func key(extractor: ImageFeatureExtractor, file: URL, variant: String) throws -> String {
        let real = file.resolvingSymlinksInPath().standardizedFileURL
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: real.path) } catch {
            throw CreateMLError(file.path, "cannot read the picture: no such file or no permission")
        }
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return ImageFeatureExtractor.hash("\(extractor.fingerprint)|\(real.path)|\(size)|\(modified)|\(variant)")
    }

    /// The features stored under `key`, or `compute`'s, stored for next time; and whether they came
    /// from the cache.
    func values(_ key: String, count: Int, compute: () throws -> [Float]) rethrows -> (values: [Float], fromCache: Bool) {
        if let values = load(key, count: count) { return (values, true) }
        let values = try compute()
        store(values, key)
        return (values, false)
    }

    func load(_ key: String, count: Int) -> [Float]? {
        guard let data = try? Data(contentsOf: url(key)), data.count == count * MemoryLayout<Float>.size else { return nil }
        let values = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return values.allSatisfy(\.isFinite) ? values : nil
    }

    /// Stores the features; a cache that cannot be written only costs time.
    func store(_ values: [Float], _ key: String) {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let data = values.withUnsafeBufferPointer { Data(buffer: $0) }
        try? data.write(to: url(key), options: .atomic)
    }

    private func url(_ key: String) -> URL { directory.appendingPathComponent(key + ".f32") }
}
