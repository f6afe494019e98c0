/// Something that goes inside `Model { … }`: `Input`, `Output`, `TrainingInput`, `ClassLabels`, and
/// one model body (`NeuralNetwork`, `KNearestNeighborsClassifier` or `Pipeline`).
public protocol ModelItem {}
