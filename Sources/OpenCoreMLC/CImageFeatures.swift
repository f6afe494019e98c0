import COpenCoreML
import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCoreMLTools
import OpenCreateML

// MARK: - Image features and image classifiers

/// The feature extractor `path` names: NULL or "" for the built-in one, else an `.mlmodel` cut
/// at `output` (NULL: its one multi-array output).
private func extractor(_ path: UnsafePointer<CChar>?, _ output: UnsafePointer<CChar>?) throws -> ImageFeatureExtractor {
    let path = path.map { String(cString: $0) } ?? ""
    let output = output.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    do {
        if path.isEmpty { return try ImageFeatureExtractor(.scenePrint(revision: nil)) }
        return try ImageFeatureExtractor(contentsOf: URL(fileURLWithPath: path), outputName: output)
    } catch let failure as CreateMLError {
        throw CInterfaceError(OCM_ERROR_IO, failure.description)
    }
}

@_cdecl("ocm_image_feature_count")
public func ocmImageFeatureCount(_ extractorPath: UnsafePointer<CChar>?, _ outputName: UnsafePointer<CChar>?, _ count: UnsafeMutablePointer<Int>?,
                                 _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    status(error) {
        guard let count else { throw CInterfaceError.argument("ocm_image_feature_count: count is NULL") }
        count.pointee = try extractor(extractorPath, outputName).featureCount
    }
}

@_cdecl("ocm_image_features")
public func ocmImageFeatures(_ extractorPath: UnsafePointer<CChar>?, _ outputName: UnsafePointer<CChar>?,
                             _ pictures: UnsafePointer<UnsafePointer<UInt8>?>?, _ sizes: UnsafePointer<Int>?, _ count: Int,
                             _ cacheDirectory: UnsafePointer<CChar>?, _ progress: ocm_progress_fn?, _ context: UnsafeMutableRawPointer?,
                             _ features: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?, _ width: UnsafeMutablePointer<Int>?,
                             _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    status(error) {
        guard count >= 0, let features, let width else { throw CInterfaceError.argument("ocm_image_features: features and width must not be NULL") }
        guard count == 0 || (pictures != nil && sizes != nil) else { throw CInterfaceError.argument("ocm_image_features: pictures and sizes must not be NULL") }
        let model = try extractor(extractorPath, outputName)
        var data: [Data] = []
        for index in 0..<count {
            guard let bytes = pictures![index], sizes![index] > 0 else {
                throw CInterfaceError(OCM_ERROR_IO, "picture \(index) is empty")
            }
            data.append(Data(bytes: bytes, count: sizes![index]))
        }
        let cache = cacheDirectory.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
        let reporter = ProgressReporter(callback: progress, context: context)
        var cached = 0
        let rows: [Float]
        do {
            rows = try model.features(ofEncodedImages: data, names: (0..<count).map { "picture \($0)" }, cacheDirectory: cache) { done, fromCache in
                if fromCache { cached += 1 }
                return reporter.send(["kind": "features", "completed": done, "total": count, "cached": cached])
            }
        } catch let failure as CreateMLError {
            throw CInterfaceError(reporter.flag.stopped ? OCM_ERROR_CANCELLED : OCM_ERROR_IO, failure.description)
        }
        guard let buffer = malloc(max(rows.count, 1) * MemoryLayout<Float>.size)?.assumingMemoryBound(to: Float.self) else {
            throw CInterfaceError.argument("ocm_image_features: \(rows.count) features do not fit in memory")
        }
        rows.withUnsafeBufferPointer { if let base = $0.baseAddress { buffer.update(from: base, count: $0.count) } }
        features.pointee = buffer
        width.pointee = model.featureCount
    }
}

/// Renames the input `from` of `model` (and of the models inside a pipeline that read it) to
/// `to.name`, declaring it of `to`'s type (the extractor's output: float32 where the classifier
/// was trained on doubles; the vectorizer reads either).
private func renameInput(_ model: inout CoreML_Specification_Model, from: String, to: CoreML_Specification_FeatureDescription) {
    for index in model.description_p.input.indices where model.description_p.input[index].name == from {
        let optional = model.description_p.input[index].type.isOptional
        model.description_p.input[index].name = to.name
        model.description_p.input[index].type = to.type
        model.description_p.input[index].type.isOptional = optional
    }
    var models = model.pipelineModels
    if !models.isEmpty {
        for index in models.indices { renameInput(&models[index], from: from, to: to) }
        model.pipelineModels = models
    }
    if case .featureVectorizer? = model.type {
        for index in model.featureVectorizer.inputList.indices where model.featureVectorizer.inputList[index].inputColumn == from {
            model.featureVectorizer.inputList[index].inputColumn = to.name
        }
    }
}

@_cdecl("ocm_image_classifier_export")
public func ocmImageClassifierExport(_ extractorPath: UnsafePointer<CChar>?, _ outputName: UnsafePointer<CChar>?,
                                     _ classifierPath: UnsafePointer<CChar>?, _ featureInput: UnsafePointer<CChar>?,
                                     _ metadataJSON: UnsafePointer<CChar>?, _ path: UnsafePointer<CChar>?,
                                     _ error: UnsafeMutablePointer<OpaquePointer?>?) -> ocm_status {
    status(error) {
        let model = try extractor(extractorPath, outputName)
        let classifierURL = URL(fileURLWithPath: try string(classifierPath, "ocm_image_classifier_export: classifier_path"))
        let input = try string(featureInput, "ocm_image_classifier_export: feature_input")
        let destination = URL(fileURLWithPath: try string(path, "ocm_image_classifier_export: path"))
        var classifier = try CoreML_Specification_Model(serializedModel: Data(contentsOf: classifierURL), path: classifierURL.path)
        guard classifier.description_p.input.map(\.name) == [input] else {
            throw CInterfaceError.argument("the classifier's one input must be '\(input)'; it has \(classifier.description_p.input.map(\.name).joined(separator: ", "))")
        }
        guard let output = model.specification.description_p.output.first(where: { $0.name == model.outputName }) else {
            throw CInterfaceError.argument("the feature extractor has no output '\(model.outputName)'")
        }
        renameInput(&classifier, from: input, to: output)
        var pipeline = try CoreML_Specification_Model.pipeline([model.specification, classifier], names: ["featureExtractor", "classifier"])
        pipeline.description_p.predictedFeatureName = classifier.description_p.predictedFeatureName
        pipeline.description_p.predictedProbabilitiesName = classifier.description_p.predictedProbabilitiesName
        if let metadataJSON, let object = try? JSONSerialization.jsonObject(with: Data(String(cString: metadataJSON).utf8)) as? [String: Any] {
            if let text = object["shortDescription"] as? String { pipeline.description_p.metadata.shortDescription = text }
            if let text = object["author"] as? String { pipeline.description_p.metadata.author = text }
            if let text = object["license"] as? String { pipeline.description_p.metadata.license = text }
            if let text = object["version"] as? String { pipeline.description_p.metadata.versionString = text }
            for (key, value) in (object["userDefined"] as? [String: String]) ?? [:] { pipeline.description_p.metadata.userDefined[key] = value }
        }
        try pipeline.validate()
        try pipeline.write(to: destination)
    }
}

// MARK: - Activity classifiers

@_cdecl("ocm_activity_predict")
public func ocmActivityPredict(_ model: OpaquePointer?, _ table: OpaquePointer?, _ sessionColumn: UnsafePointer<CChar>?,
                               _ error: UnsafeMutablePointer<OpaquePointer?>?) -> UnsafeMutablePointer<CChar>? {
    catching(error, failure: nil) {
        guard let model, let table else { throw CInterfaceError.argument("ocm_activity_predict: model and table must not be NULL") }
        let loaded = Handle<CModel>.borrow(model).model
        let windows: [MLActivityClassifier.WindowPrediction]
        do {
            windows = try MLActivityClassifier.windowPredictions(model: loaded, from: Handle<CTable>.borrow(table).table,
                                                                 recordingFileColumn: sessionColumn.map { String(cString: $0) })
        } catch let failure as CreateMLError {
            throw CInterfaceError(OCM_ERROR_PARAMETERS, failure.description)
        }
        let rows: [[String: Any]] = windows.map { window in
            ["session": window.session, "window": window.window, "first_row": window.firstRow, "row_count": window.rowCount,
             "label": window.label, "probabilities": window.probabilities.mapValues(json)]
        }
        let data = try JSONSerialization.data(withJSONObject: rows, options: [.sortedKeys])
        return strdup(String(decoding: data, as: UTF8.self))
    }
}
