extension MLActivityClassifier {
    /// The most activities (distinct labels) a classifier is trained to tell apart (an OpenCoreML
    /// limit). Each window's training cost grows with the number of activities, and a table with a
    /// label per row (a million distinct labels) is not activity data; more is an error naming the
    /// table and this limit.
    public static let classLimit = 1_000

    /// The most feature columns a classifier is trained on (an OpenCoreML limit): the convolution
    /// holds `64 × predictionWindowSize × features` weights, and motion recordings have a few
    /// sensor axes, not thousands. More is an error naming the table and this limit.
    public static let featureLimit = 1_000
}
