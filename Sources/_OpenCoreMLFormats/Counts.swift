/// `585958` → `585,958`: counts in messages.
package func grouped(_ value: Int) -> String {
    var text = String(value.magnitude)
    var index = text.endIndex
    while text.distance(from: text.startIndex, to: index) > 3 {
        index = text.index(index, offsetBy: -3)
        text.insert(",", at: index)
    }
    return value < 0 ? "-" + text : text
}

/// The product of sizes read from a file, or nil when one is negative or the product overflows.
func sizeProduct(_ sizes: [Int]) -> Int? {
    var product = 1
    for size in sizes {
        guard size >= 0 else { return nil }
        let (next, overflow) = product.multipliedReportingOverflow(by: size)
        if overflow { return nil }
        product = next
    }
    return product
}
