/// `585958` → `585,958`: counts in messages.
func grouped(_ value: Int) -> String {
    var text = String(value.magnitude)
    var index = text.endIndex
    while text.distance(from: text.startIndex, to: index) > 3 {
        index = text.index(index, offsetBy: -3)
        text.insert(",", at: index)
    }
    return value < 0 ? "-" + text : text
}
