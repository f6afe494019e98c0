/// 28×28 test pictures of three classes for k-NN and personalization tests: a bright 10×10 square
/// in one of three places (class 0 top left, 1 centre, 2 top right) on a noisy background.
public enum SquarePictures {
    /// The 784 pixel values (row after row) of one picture of class `label` (0, 1 or 2).
    public static func pixels(label: Int, random: inout TestRandom) -> [Float] {
        let (top, left) = [(2, 2), (14, 14), (2, 16)][label]
        return (0..<(28 * 28)).map { index in
            let (row, column) = (index / 28, index % 28)
            let inside = (top..<(top + 10)).contains(row) && (left..<(left + 10)).contains(column)
            return (inside ? 1 : 0) + random.float(-0.2, 0.2)
        }
    }
}
