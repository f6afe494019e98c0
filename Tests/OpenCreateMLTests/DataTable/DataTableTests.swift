import Foundation
import OpenCreateML
import Testing

@Suite("MLDataTable")
struct DataTableTests {
    static func books() throws -> MLDataTable {
        try MLDataTable(dictionary: [
            "title": ["Alice in Wonderland", "Hamlet", "Treasure Island", "Peter Pan"],
            "pages": [124, 98, 280, 94],
            "rating": [4.5, 4.9, 3.8, 4.1],
            "genre": ["Fantasy", "Drama", "Adventure", "Fantasy"],
        ])
    }

    @Test func dictionaryColumnsAreTypedAndOrderedByName() throws {
        let table = try Self.books()
        #expect(Array(table.columnNames) == ["genre", "pages", "rating", "title"])
        #expect(table.size.rows == 4 && table.size.columns == 4)
        #expect(table.columnTypes == ["title": .string, "pages": .int, "rating": .double, "genre": .string])
        #expect(table.rows[1]["title"] == .string("Hamlet"))
        #expect(table.rows[1]["pages", Int.self] == 98)
        #expect(table.rows[1]["nope"] == nil)
        #expect(Array(table.rows[3].keys) == ["genre", "pages", "rating", "title"])
        #expect(table.rows[3].map(\.0) == ["genre", "pages", "rating", "title"])
        #expect(Array(table.rows[3].values) == [.string("Fantasy"), .int(94), .double(4.1), .string("Peter Pan")])
        #expect(MLDataTable().size.rows == 0)
    }

    @Test func dictionaryErrorsNameTheColumn() throws {
        let ragged = thrownMessage { try MLDataTable(dictionary: ["a": [1, 2, 3], "b": [1, 2]]) }
        #expect(ragged == "column \"b\": has 2 values, but column \"a\" has 3", "\(ragged ?? "no error")")
        let scalar = thrownMessage { try MLDataTable(dictionary: ["a": 5]) }
        #expect(scalar == "column \"a\": expected an array of values, found a single Int value", "\(scalar ?? "no error")")
        let mixed = thrownMessage { try MLDataTable(dictionary: ["a": MLDataValue.SequenceType([.int(1), .string("x")])]) }
        #expect(mixed == "column \"a\": the values mix kinds (Int, String)", "\(mixed ?? "no error")")
        let sequences = try MLDataTable(dictionary: ["windows": [[1.0, 2.0], [3.0]]])
        #expect(sequences.columnTypes == ["windows": .sequence])
        #expect(sequences["windows"][1] == .sequence(MLDataValue.SequenceType([3.0])))
    }

    @Test func columnsAreAddedReplacedRemovedAndRenamed() throws {
        var table = try Self.books()
        table.addColumn(MLDataColumn([1, 2, 3, 4]), named: "id")
        #expect(Array(table.columnNames) == ["genre", "pages", "rating", "title", "id"])
        table["pages"] = table["pages"] * 2
        #expect(Array(table["pages"].ints!) == [248, 196, 560, 188])
        table["ratio"] = table["pages"] / table["rating"]
        #expect(table["ratio"].type == .double)
        #expect(abs(table["ratio"].doubles![0] - 248 / 4.5) < 1e-12)
        table.removeColumn(named: "genre")
        table.renameColumn(named: "title", to: "name")
        #expect(Array(table.columnNames) == ["pages", "rating", "name", "id", "ratio"])
        #expect(table.isValid)

        var broken = table
        broken.addColumn(MLUntypedColumn([1, 2]), named: "short")
        #expect(!broken.isValid)
        #expect("\(broken.error!)" == "column \"short\": has 2 values, but the table has 4 rows")
        #expect(Array(broken.columnNames) == Array(table.columnNames))
        var renamed = table
        renamed.renameColumn(named: "name", to: "id")
        #expect("\(renamed.error!)".contains("cannot be renamed to \"id\""))
        var removed = table
        removed.removeColumn(named: "missing")
        #expect("\(removed.error!)".hasPrefix("column \"missing\": no such column"))

        let absent = table["nothing"]
        #expect(!absent.isValid && absent.count == 0)
        #expect(table["name", Int.self] == nil)
        #expect(table["pages", Int.self]?.sum() == 248 + 196 + 560 + 188)
        let typed: MLDataColumn<Double> = table["rating"]
        #expect(typed.isValid && typed.count == 4)
        let wrong: MLDataColumn<String> = table["rating"]
        #expect(!wrong.isValid)
        #expect(Array(table[["name", "id"]].columnNames) == ["name", "id"])
    }

    @Test func masksFilterRows() throws {
        let table = try Self.books()
        let long = table[table["pages"] > 100]
        #expect(Array(long["title"].strings!) == ["Alice in Wonderland", "Treasure Island"])
        let fantasyAndShort = table[(table["genre"] == "Fantasy") && (table["pages"] < 100)]
        #expect(Array(fantasyAndShort["title"].strings!) == ["Peter Pan"])
        // A double column against an integer: compared as numbers.
        #expect(Array(table[table["rating"] > 4]["pages"].ints!) == [124, 98, 94])
        #expect(Array((table["pages"] == table["rating"]).ints!) == [0, 0, 0, 0])
        let pages = table["pages", Int.self]!
        let rating = table["rating", Double.self]!
        let typedMask = (pages >= 98) && (rating > 4.0) || (pages == 280)
        #expect(Array(typedMask) == [true, true, true, false])
        #expect(Array(table[typedMask]["pages"].ints!) == [124, 98, 280])
        #expect(Array(table[pages != 98]["pages"].ints!) == [124, 280, 94])
        #expect(Array(pages[pages > 100]) == [124, 280])
        let wrongLength = table[MLDataColumn([true, false])]
        #expect(!wrongLength.isValid && "\(wrongLength.error!)".contains("the mask has 2 rows; the table has 4"))
        // Missing values never pass a mask.
        let gaps = try MLDataTable(dictionary: ["v": MLDataValue.SequenceType([.int(5), .invalid, .int(1)])])
        #expect(gaps["v"].type == .int)
        #expect(gaps[gaps["v"] >= 1].size.rows == 2)
        #expect(gaps[gaps["v"] != 5].size.rows == 1)
    }

    @Test func prefixSuffixRangesSortAndAppend() throws {
        var table = try Self.books()
        #expect(Array(table.prefix(2)["pages"].ints!) == [124, 98])
        #expect(Array(table.suffix(3)["pages"].ints!) == [98, 280, 94])
        #expect(table.prefix(10).size.rows == 4 && table.suffix(0).size.rows == 0)
        #expect(Array(table[1..<3]["pages"].ints!) == [98, 280])
        #expect(!table[2..<9].isValid)
        #expect(Array(table.sort(columnNamed: "pages")["pages"].ints!) == [94, 98, 124, 280])
        #expect(Array(table.sort(columnNamed: "title", byIncreasingOrder: false)["pages"].ints!) == [280, 94, 98, 124])
        table.append(contentsOf: table.prefix(1))
        #expect(table.size.rows == 5)
        #expect(table.dropDuplicates().size.rows == 4)
        let doubled = table.map { row in (row["pages", Int.self] ?? 0) * 2 }
        #expect(Array(doubled) == [248, 196, 560, 188, 248])
    }

    @Test func randomSplitIsDeterministicDisjointAndComplete() throws {
        let n = 1000
        let table = try MLDataTable(dictionary: ["id": Array(0..<n), "x": (0..<n).map { Double($0) / 10 }])
        let (a, b) = table.randomSplit(by: 0.8, seed: 7)
        let (a2, b2) = table.randomSplit(by: 0.8, seed: 7)
        #expect(a == a2 && b == b2)
        let ids = Array(a["id"].ints!), rest = Array(b["id"].ints!)
        #expect(Set(ids).isDisjoint(with: rest))
        #expect((ids + rest).sorted() == Array(0..<n))
        #expect(ids == ids.sorted() && rest == rest.sorted())  // row order kept
        #expect(abs(ids.count - 800) < 60, "\(ids.count) rows in the 80% side")
        let (c, _) = table.randomSplit(by: 0.8, seed: 8)
        #expect(Array(c["id"].ints!) != ids)
        #expect(table.randomSplit(by: 0).0.size.rows == 0 && table.randomSplit(by: 1).1.size.rows == 0)
        let (bad, alsoBad) = table.randomSplit(by: 1.5)
        #expect(!bad.isValid && !alsoBad.isValid && "\(bad.error!)".contains("between 0 and 1, got 1.5"))
        #expect(table.randomSample(by: 0.5, seed: 3) == table.randomSample(by: 0.5, seed: 3))
    }

    @Test func groupAggregatesEachGroupInOrderOfFirstAppearance() throws {
        let table = try MLDataTable(dictionary: [
            "city": ["Paris", "Lyon", "Paris", "Nice", "Lyon", "Paris"],
            "price": [10, 20, 30, 5, 40, 50],
            "area": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        ])
        let grouped = table.group(columnsNamed: "city", aggregators: [
            MLDataTable.Aggregator(operations: .count, .sum, .min, .max, of: "price"),
            MLDataTable.Aggregator(operations: .mean, .stdev, .variance, .sequenceMerge, of: "area"),
        ])
        #expect(grouped.isValid)
        #expect(Array(grouped.columnNames) == ["city", "Count", "Sum of price", "Min of price", "Max of price",
                                               "Avg of area", "Stdv of area", "Var of area", "List of area"])
        #expect(Array(grouped["city"].strings!) == ["Paris", "Lyon", "Nice"])
        #expect(Array(grouped["Count"].ints!) == [3, 2, 1])
        #expect(Array(grouped["Sum of price"].ints!) == [90, 60, 5])
        #expect(Array(grouped["Min of price"].ints!) == [10, 20, 5])
        #expect(Array(grouped["Max of price"].ints!) == [50, 40, 5])
        // Paris areas 1, 3, 6: mean 10/3, population variance ((1-m)^2 + (3-m)^2 + (6-m)^2) / 3.
        let m = 10.0 / 3
        let variance = ((1 - m) * (1 - m) + (3 - m) * (3 - m) + (6 - m) * (6 - m)) / 3
        #expect(abs(grouped["Avg of area"].doubles![0] - m) < 1e-12)
        #expect(abs(grouped["Var of area"].doubles![0] - variance) < 1e-12)
        #expect(abs(grouped["Stdv of area"].doubles![1] - 1.5) < 1e-12)  // Lyon: 2 and 5
        #expect(grouped["List of area"][0] == .sequence(MLDataValue.SequenceType([1.0, 3.0, 6.0])))
        let bad = table.group(columnsNamed: "city", aggregators: [MLDataTable.Aggregator(operations: .sum, of: "city")])
        #expect(!bad.isValid && "\(bad.error!)".contains("cannot compute Sum of city of String values"))

        let sessions = table.grouped(by: "city")
        #expect(sessions.map(\.key) == [.string("Paris"), .string("Lyon"), .string("Nice")])
        #expect(Array(sessions[0].rows["price"].ints!) == [10, 30, 50])
        #expect(Array(sessions[1].rows["area"].doubles!) == [2, 5])
    }

    @Test func descriptionPrintsColumnsAndAGrid() throws {
        let table = try MLDataTable(dictionary: ["name": ["Alice", "Bob"], "age": [30, 7]])
        let expected = """
            Columns:
                age     Int
                name    String
            Rows: 2
            Data:
            +-----+-------+
            | age | name  |
            +-----+-------+
            | 30  | Alice |
            | 7   | Bob   |
            +-----+-------+
            [2 rows x 2 columns]
            """
        #expect(table.description == expected, "\n\(table.description)")
        let gap = try readTable("g.csv", "n\n1\n\n") // blank lines are skipped, so one row
        #expect(gap.size.rows == 1)
        let missing = try readTable("m.csv", "n,s\n1,a\nNA,b\n")
        #expect(missing.description.contains("| nil | b |"), "\n\(missing.description)")
    }
}
