import Foundation
import OpenCreateML
import Testing

@Suite("MLDataColumn, MLUntypedColumn, MLDataValue")
struct DataTableColumnTests {
    @Test func dataValuesReportTheirKindAndPayload() {
        #expect(MLDataValue.int(3).type == .int && MLDataValue.int(3).intValue == 3 && MLDataValue.int(3).doubleValue == nil)
        #expect(MLDataValue.double(2.5).doubleValue == 2.5 && MLDataValue.double(2.5).stringValue == nil)
        #expect(MLDataValue.string("a").stringValue == "a")
        #expect(!MLDataValue.invalid.isValid && MLDataValue.invalid.type == .invalid)
        #expect(MLDataValue.ValueType.double.description == "Double")
        let sequence: MLDataValue.SequenceType = [.int(1), .string("b")]
        #expect(MLDataValue.sequence(sequence).description == "[1, b]")
        #expect(Int(from: .double(1)) == nil && Double(from: .int(2)) == 2 && String(from: .int(1)) == nil)
        #expect([1.5, 2.5].dataValue == .sequence(MLDataValue.SequenceType([MLDataValue.double(1.5), .double(2.5)])))
        #expect([Double](from: [1.5, 2.5].dataValue) == [1.5, 2.5])
        #expect(["k": 1].dataValue.dictionaryValue?[.string("k")] == .int(1))
        #expect(Float(2.5).dataValue == .double(2.5) && Float.dataValueType == .double)
        #expect(true.dataValue == .int(1) && Bool(from: .int(0)) == false)
        let grid = MLDataValue.MultiArrayType(shape: [2, 3])
        #expect(grid.shape == [2, 3] && grid[[1, 2]] == 0)
        #expect(MLDataValue.MultiArrayType(grid.mlMultiArray).shape == [2, 3])
    }

    @Test func typedColumnArithmeticAndStatistics() {
        let a = MLDataColumn([1, 2, 3, 4])
        let b = MLDataColumn([10, 20, 30, 40])
        #expect(Array(a + b) == [11, 22, 33, 44])
        #expect(Array(b - a) == [9, 18, 27, 36])
        #expect(Array(a * 3) == [3, 6, 9, 12])
        #expect(Array(100 / a) == [100, 50, 33, 25])
        #expect(Array(2 - a) == [1, 0, -1, -2])
        let quotient = a / 0  // no trap: every element is missing
        #expect(quotient.count == 4 && quotient.element(at: 0) == nil)
        #expect(a.sum() == 10 && a.min() == 1 && a.max() == 4 && a.mean() == 2.5)
        // Population standard deviation of 1, 2, 3, 4: sqrt(((1.5² + 0.5²) * 2) / 4).
        #expect(abs(a.std()! - (5.0 / 4).squareRoot()) < 1e-12)
        let x = MLDataColumn([0.5, 1.5, -2.0])
        #expect(Array(x * 2 + 1) == [2, 4, -3])
        #expect(Array(1 / MLDataColumn([2.0, 4.0])) == [0.5, 0.25])
        #expect(x.sum() == 0 && x.min() == -2 && x.max() == 1.5)
        #expect(MLDataColumn<Double>().mean() == nil && MLDataColumn<Int>().sum() == nil)
        #expect(!(a + MLDataColumn([1])).isValid)
    }

    @Test func typedColumnsCompareMapAndHandleMissingElements() {
        let names = MLDataColumn(["b", "a", "c", "a"])
        #expect(Array(names == "a") == [false, true, false, true])
        #expect(Array(names < "b") == [false, true, false, true])
        #expect(Array("b" <= names) == [true, false, true, false])
        #expect(Array(names.map { $0.uppercased() }) == ["B", "A", "C", "A"])
        #expect(Array(names.map(to: Int.self).map { $0 * 2 }) == [0, 0, 0, 0])  // nothing parses: all missing
        #expect(names.map(to: Int.self).dropMissing().count == 0)
        #expect(Array(names.dropDuplicates()) == ["b", "a", "c"])
        #expect(Array(names.sort()) == ["a", "a", "b", "c"])
        #expect(Array(names.prefix(2)) == ["b", "a"] && Array(names.suffix(1)) == ["a"] && Array(names[1...2]) == ["a", "c"])

        let withGaps = MLUntypedColumn([MLDataValue.int(4), .invalid, .int(6)])
        let ints = withGaps.ints!
        #expect(ints.count == 3 && ints.element(at: 1) == nil && ints[1] == 0)  // a missing element reads as Int()
        #expect(ints.sum() == 10 && ints.mean() == 5)
        #expect(Array(ints.fillMissing(with: 5)) == [4, 5, 6])
        #expect(Array(ints.dropMissing()) == [4, 6])
        let mask = ints > 4
        #expect(mask.element(at: 0) == false && mask.element(at: 1) == nil && mask.element(at: 2) == true)
        #expect(Array(ints.mapMissing { $0 == nil ? -1 : $0 }) == [4, -1, 6])
        #expect(Array(MLDataColumn<Double>(column: MLDataColumn([1, 2]))) == [1.0, 2.0])
        #expect(Array(MLDataColumn<String>(column: MLDataColumn([1.5]))) == ["1.5"])
        #expect(Array(MLDataColumn<Int>(column: MLDataColumn(["7", "x"]))) == [7, 0])
    }

    @Test func untypedColumnsGiveTypedViewsOnlyForTheirKind() {
        let column = MLUntypedColumn([1.5, 2.5])
        #expect(column.type == .double && column.count == 2)
        #expect(column.doubles != nil && column.ints == nil && column.strings == nil)
        #expect(Array(column.map(to: Int.self)) == [1, 2])  // converted, truncating
        #expect(Array(column.map(to: String.self)) == ["1.5", "2.5"])
        #expect(Array(MLUntypedColumn(0..<3).ints!) == [0, 1, 2])
        #expect(Array(MLUntypedColumn(repeating: "z", count: 2).strings!) == ["z", "z"])
        #expect(MLUntypedColumn(repeating: MLDataValue.invalid, count: 3).dropMissing().count == 0)
        #expect(Array(MLUntypedColumn(ints: MLUntypedColumn(["3", "4"])).ints!) == [3, 4])
        #expect(!MLUntypedColumn([MLDataValue.int(1), .string("x")]).isValid)
        #expect(Array(column.map { value in (value.doubleValue ?? 0) * 10 }) == [15, 25])

        let words = MLUntypedColumn(["a", "b"]) + MLUntypedColumn(["x", "y"])
        #expect(Array(words.strings!) == ["ax", "by"])
        let sum = MLUntypedColumn([1, 2]) + MLUntypedColumn([0.5, 0.5])
        #expect(sum.type == .double && Array(sum.doubles!) == [1.5, 2.5])
        let mask = (MLUntypedColumn([1, 5, 9]) > 2) && (MLUntypedColumn([1, 5, 9]) < 9)
        #expect(Array(mask.ints!) == [0, 1, 0])
        #expect(Array(MLUntypedColumn([3, 4, 5])[mask].ints!) == [4])
        #expect(!(MLUntypedColumn(["a"]) * 2).isValid)
        #expect(!(MLUntypedColumn([1, 2]) + MLUntypedColumn([1])).isValid)
        #expect(Array((10 - MLUntypedColumn([1, 2])).ints!) == [9, 8])
        #expect(MLUntypedColumn([1, 2, 3]).description == "ValueType: Int\nValues: [1, 2, 3]")
        var grown = MLUntypedColumn([1])
        grown.append(contentsOf: MLUntypedColumn([2.5]))
        #expect(grown.type == .double && Array(grown.doubles!) == [1, 2.5])
    }
}
