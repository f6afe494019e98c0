// The parts of Create ML's data-table API (MLDataTable, MLDataColumn, MLUntypedColumn, MLDataValue
// and their companions), of MLActivityClassifier, MLImageClassifier and the tabular trainers that OpenCreateML does not
// port yet, written as the declarations Create ML has, so that what is missing is plain. The list
// shrinks as pieces are ported; everything else of these types is in Sources/OpenCreateML/DataTable/,
// ActivityClassifier/ and ImageClassifier/.
//
// Differences in what *is* ported are documented at each declaration; the main ones:
//   - Errors are `CreateMLError` (a message naming the file, line and column), not `MLCreateError`.
//   - MLDataColumn and MLUntypedColumn are not Equatable/Hashable: their `==` is the elementwise
//     comparison that makes a mask, and a Bool-returning `==` beside it would make `a == b`
//     ambiguous.
//   - MLDataValue.MultiArrayType holds a copy of its numbers (as doubles) rather than an
//     MLMultiArray reference.
//   - ParsingOptions: delimiter, quote, escape and comment are single ASCII characters; escapes
//     apply inside quoted fields only. `columnTypes` is ours.
//   - randomSplit/randomSample use our own seeded generator: a seed gives the same rows on every
//     run, but not the rows Create ML would give.
//   - group(columnsNamed:aggregators:) names its result columns as Turi Create does; `grouped(by:)`
//     is ours.

/*
public enum MLCreateError: Error, CustomStringConvertible, CustomDebugStringConvertible, CustomNSError, LocalizedError {
    case cancelled
    case generic(reason: String)
    case incompatibleParameters(parameter: String, originalValue: String, newValue: String)
    case io(reason: String)
    case modifiedTrainingData
    case type(reason: String)
    var errorCode: Int { get }
}
public var MLCreateErrorDomain: String { get }

public func timestampSeed() -> Int

extension MLDataTable: Codable, CustomPlaygroundDisplayConvertible {
    // Joining, reshaping and set operations.
    public enum JoinType { case inner, left, right, outer }
    public func join(with other: MLDataTable, on columnNames: String..., type: MLDataTable.JoinType = .inner) -> MLDataTable
    public enum PackType { case sequence, dictionary }
    public func pack(columnsNamed: String..., to newColumnName: String, type: MLDataTable.PackType, filling: MLDataValue) -> MLDataTable
    public func unpack(columnNamed: String, valueTypes: [MLDataValue.ValueType]?, indexSubset: [Int]?, keySubset: [String]?) -> MLDataTable
    public func expand(columnNamed: String, to newColumnName: String) -> MLDataTable
    public func condense(columnNamed: String, to newColumnName: String) -> MLDataTable
    public func intersect<T: MLDataValueConvertible>(_ values: T..., of columnName: String) -> MLDataTable
    public func exclude<T: MLDataValueConvertible>(_ values: T..., of columnName: String) -> MLDataTable

    // Splits that keep strata or sequences together.
    public func stratifiedSplit(proportions: [Double], on column: String, seed: Int = timestampSeed()) throws -> MLDataTable
    public func stratifiedSplit<G: RandomNumberGenerator>(proportions: [Double], on column: String, generator: inout G) throws -> MLDataTable
    public func stratifiedSplitBySequence(proportions: [Double], by sequenceColumn: String, on column: String, seed: Int) throws -> MLDataTable
    public func stratifiedSplitBySequence<G: RandomNumberGenerator>(proportions: [Double], by sequenceColumn: String, on column: String, generator: inout G) throws -> MLDataTable
    public func randomSplitBySequence(proportion: Double, by sequenceIdentifierColumn: String, on column: String, seed: Int = 1) -> (MLDataTable, remaining: MLDataTable)

    // Writing.
    public func write(to url: URL) throws
    public func write(toDirectory path: String) throws
    public func writeCSV(to url: URL) throws
    public func writeCSV(toFile path: String) throws

    // Visualization.
    public func show() -> some MLStreamingVisualizable
    public var playgroundDescription: Any { get }
}

extension MLDataTable.Aggregator.Operations {
    case argmax(of: String)
    case argmin(of: String)
    case dictionaryMerge(with: String)
    case randomlySelectOne
}

extension MLDataTable.ParsingOptions: Codable {}
extension MLDataTable.ColumnNames: Codable, CustomPlaygroundDisplayConvertible {}
extension MLDataTable.Rows: Codable, CustomPlaygroundDisplayConvertible {}
extension MLDataTable.Row: Codable, CustomPlaygroundDisplayConvertible {}

extension MLDataColumn: Codable, Hashable, CustomPlaygroundDisplayConvertible, CustomReflectable {
    public func show() -> some MLStreamingVisualizable
}
extension MLDataColumn where Element == MLDataValue.SequenceType {
    public init<T: MLDataValueConvertible>(column: MLDataColumn<T>)
}
extension MLDataColumn where Element == MLDataValue.DictionaryType {
    public init<T: MLDataValueConvertible>(column: MLDataColumn<T>)
}
extension MLDataColumn where Element == [Double] { public init<T: MLDataValueConvertible>(column: MLDataColumn<T>) }
extension MLDataColumn where Element == [Int] { public init<T: MLDataValueConvertible>(column: MLDataColumn<T>) }
extension MLDataColumn where Element == [String] { public init<T: MLDataValueConvertible>(column: MLDataColumn<T>) }

extension MLUntypedColumn: Codable, Hashable, CustomPlaygroundDisplayConvertible, CustomReflectable {
    public init(sequences: MLUntypedColumn)
    public init(dictionaries: MLUntypedColumn)
    public init(multiArrays: MLUntypedColumn)
    public func show() -> some MLStreamingVisualizable
}

extension MLDataValue: Codable {}
extension MLDataValue.ValueType: Codable {}
extension MLDataValue.SequenceType: Codable {}
extension MLDataValue.DictionaryType: Codable {}
extension MLDataValue.MultiArrayType: Codable {}

public func show(_ table: MLDataTable) -> some MLStreamingVisualizable
public func show(_ column: MLUntypedColumn) -> some MLStreamingVisualizable
public func show<T: MLDataValueConvertible>(_ column: MLDataColumn<T>) -> some MLStreamingVisualizable

// Interoperation with TabularData's DataFrame (TabularData is not available on Linux).

// MLActivityClassifier (ported: Sources/OpenCreateML/ActivityClassifier/) lacks:
extension MLActivityClassifier {
    public enum DataSource { case labeledFiles(at: URL, featureColumns: [String], labelColumn: String, recordingFileColumn: String?), dataFrame(DataFrame) }
    public init(trainingData: DataSource, featureColumns: [String], labelColumn: String?, recordingFileColumn: String?, parameters: ModelParameters) throws
    public func evaluation(on testingData: DataSource, featureColumns: [String], labelColumn: String?, recordingFileColumn: String?) -> MLClassifierMetrics
    public func predictions(from data: DataFrame, perWindowPrediction: Bool?) throws -> [String]
    public static func train(trainingData: DataSource, featureColumns: [String], labelColumn: String, recordingFileColumn: String?,
                             parameters: ModelParameters, sessionParameters: MLTrainingSessionParameters) throws -> MLJob<MLActivityClassifier>
    public var description: String { get }
    // ModelParameters.Validation.dataSource(DataSource) is `.table(MLDataTable)` here.
}

// The tabular trainers (ported: Sources/OpenCreateML/TreeClassifiers/, LinearModels/,
// LogisticRegression/, TabularSelection/) lack:
public struct MLSupportVectorClassifier { /* a linear SVM on MLDataTable; MLClassifier's .supportVector case */ }
extension MLBoostedTreeClassifier /* and the other eight tabular trainers */ {
    public init(trainingData: DataFrame, targetColumn: String, featureColumns: [String]?, parameters: ModelParameters) throws
    public static func train(trainingData: MLDataTable, targetColumn: String, featureColumns: [String]?, parameters: ModelParameters,
                             sessionParameters: MLTrainingSessionParameters) throws -> MLJob<MLBoostedTreeClassifier>
    public static func makeTrainingSession(...) throws -> MLTrainingSession<MLBoostedTreeClassifier>
    public static func resume(_ session: MLTrainingSession<MLBoostedTreeClassifier>) throws -> MLJob<MLBoostedTreeClassifier>
    public func predictions(from data: DataFrame) throws -> AnyColumn
    public func evaluation(on data: DataFrame) -> MLClassifierMetrics
    public var description: String { get }
    public var debugDescription: String { get }
}

// MLImageClassifier (ported: Sources/OpenCreateML/ImageClassifier/) lacks:
extension MLImageClassifier {
    // DataSource has .labeledDirectories(at:) and .filesByLabel(_:) only.
    public enum DataSource { case labeledFiles(at: URL) }
    public static func train(trainingData: DataSource, parameters: ModelParameters,
                             sessionParameters: MLTrainingSessionParameters) throws -> MLJob<MLImageClassifier>
    public init(checkpoint: MLCheckpoint) throws
    public func predictions(from images: [CGImage]) throws -> [String]
    public var description: String { get }
    public enum ModelParameters.ClassifierType { case multilayerPerceptron(layerSizes: [Int]) }
}
*/
