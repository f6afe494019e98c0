// FuzzTabular: the tabular trainers on a CSV table, then the model they write.
//
// The CSV is read as `opencoreml tabular train` reads it (`MLDataTable(contentsOf:)`), a trainer
// picked by byte 0 fits it with small settings, the model is written, loaded back and asked to
// predict the table's first rows. Every Swift error is an accepted answer (a table that cannot
// be trained on); findings are traps, AddressSanitizer reports, timeouts and running out of
// memory, in reading, training, exporting or predicting.
//
// Input layout (what `MakeSeeds` writes and `Fuzz/corpus/tabular/` holds):
//
//     byte 0      trainer: `Trainer(rawValue: byte % Trainer.allCases.count)`
//     byte 1      bits 0–3: the target column (index modulo the column count); bit 4: no
//                 validation rows (else Create ML's automatic split); bits 5–7: the trees' depth − 1
//     bytes 2...  the CSV file

import Foundation
import FuzzSupport
import OpenCoreML
import OpenCreateML

enum Trainer: UInt8, CaseIterable {
    case boostedClassifier, boostedRegressor, forestClassifier, forestRegressor
    case decisionTreeClassifier, decisionTreeRegressor, logisticClassifier, linearRegressor
}

/// The scratch folder for the files (FuzzSupport's `makeScratchFolder`).
let scratch = makeScratchFolder(target: "fuzztabular")

@main
enum FuzzTabular {
    static func main() {
        _ = scratch
        exit(runLibFuzzer { bytes in fuzzOne(bytes) })
    }
}

func fuzzOne(_ input: Data) {
    guard input.count >= 2 else { return }
    let bytes = [UInt8](input)
    let trainer = Trainer(rawValue: bytes[0] % UInt8(Trainer.allCases.count))!
    let options = bytes[1]
    let csv = scratch.appendingPathComponent("table.csv")
    let model = scratch.appendingPathComponent("model.mlmodel")
    try? FileManager.default.removeItem(at: model)
    guard (try? Data(bytes[2...]).write(to: csv)) != nil,
          let table = try? MLDataTable(contentsOf: csv), table.size.columns > 0 else { return }
    let target = table.columnNames[Int(options & 0x0F) % table.size.columns]
    let validation: TabularValidationData = options & 0x10 != 0 ? .none : .split(strategy: .automatic)
    let depth = Int(options >> 5) + 1
    do {
        switch trainer {
        case .boostedClassifier:
            try MLBoostedTreeClassifier(trainingData: table, targetColumn: target, parameters: .init(validation: validation, maxDepth: depth, maxIterations: 3))
                .write(to: model)
        case .boostedRegressor:
            try MLBoostedTreeRegressor(trainingData: table, targetColumn: target, parameters: .init(validation: validation, maxDepth: depth, maxIterations: 3))
                .write(to: model)
        case .forestClassifier:
            try MLRandomForestClassifier(trainingData: table, targetColumn: target, parameters: .init(validation: validation, maxDepth: depth, maxIterations: 3))
                .write(to: model)
        case .forestRegressor:
            try MLRandomForestRegressor(trainingData: table, targetColumn: target, parameters: .init(validation: validation, maxDepth: depth, maxIterations: 3))
                .write(to: model)
        case .decisionTreeClassifier:
            try MLDecisionTreeClassifier(trainingData: table, targetColumn: target, parameters: .init(validation: validation, maxDepth: depth))
                .write(to: model)
        case .decisionTreeRegressor:
            try MLDecisionTreeRegressor(trainingData: table, targetColumn: target, parameters: .init(validation: validation, maxDepth: depth))
                .write(to: model)
        case .logisticClassifier:
            try MLLogisticRegressionClassifier(trainingData: table, targetColumn: target, parameters: .init(validation: validation, maxIterations: 5))
                .write(to: model)
        case .linearRegressor:
            try MLLinearRegressor(trainingData: table, targetColumn: target, parameters: .init(validation: validation, maxIterations: 5))
                .write(to: model)
        }
    } catch {
        return
    }
    // The written model predicts the first rows, each value as its column gives it.
    guard let loaded = try? MLModel(contentsOf: model) else { return }
    for row in table.rows.prefix(3) {
        var features: [String: MLFeatureValue] = [:]
        for (name, value) in row {
            guard loaded.modelDescription.inputDescriptionsByName[name] != nil else { continue }
            switch value {
            case .int(let integer): features[name] = MLFeatureValue(int64: Int64(integer))
            case .double(let number): features[name] = MLFeatureValue(double: number)
            case .string(let text): features[name] = MLFeatureValue(string: text)
            default: continue
            }
        }
        guard let provider = try? MLDictionaryFeatureProvider(dictionary: features) else { continue }
        _ = try? loaded.prediction(from: provider)
    }
}
