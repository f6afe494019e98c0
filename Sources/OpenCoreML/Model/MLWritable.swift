import Foundation

/// Something that can be saved as a model file.
public protocol MLWritable {
    /// Writes to `url`: an `.mlmodel` file, or an OpenCoreML `.mlmodelc` folder when the extension is
    /// `mlmodelc`. The write is atomic: on failure, whatever was at `url` is untouched.
    func write(to url: URL) throws
}
