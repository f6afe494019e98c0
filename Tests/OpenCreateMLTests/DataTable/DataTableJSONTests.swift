import Foundation
import OpenCreateML
import Testing

@Suite("MLDataTable JSON")
struct DataTableJSONTests {
    @Test func rowsAreObjectsAndColumnsKeepTheOrderOfFirstAppearance() throws {
        let table = try readTable("rows.json", """
            [
              {"title": "Hamlet", "pages": 98, "rating": 4.5, "tags": ["drama", "classic"], "inPrint": true},
              {"title": "Peter Pan", "pages": 94, "rating": 4, "extra": {"k": 1}, "inPrint": false},
              {"pages": 280, "title": "Treasure Island \\u00e9\\ud83d\\ude00", "rating": null}
            ]
            """)
        #expect(Array(table.columnNames) == ["title", "pages", "rating", "tags", "inPrint", "extra"])
        #expect(table.columnTypes == ["title": .string, "pages": .int, "rating": .double, "tags": .sequence,
                                      "inPrint": .int, "extra": .dictionary])
        #expect(Array(table["pages"].ints!) == [98, 94, 280])
        // 4 and 4.5 in one column make a double column; null is missing.
        #expect((0..<3).map { table["rating"][$0] } == [.double(4.5), .double(4), .invalid])
        #expect(table["title"][2] == .string("Treasure Island é😀"))
        #expect(table["tags"][0] == .sequence(["drama", "classic"].dataValue.sequenceValue!))
        #expect(table["tags"][1] == .invalid)  // the key is absent in row 2
        #expect(Array(table["inPrint"].ints!.prefix(2)) == [1, 0])
        #expect(table["extra"][1].dictionaryValue?[.string("k")] == .int(1))
    }

    @Test func malformedJSONNamesTheLine() throws {
        let trailing = thrownMessage { try readTable("bad.json", "[\n{\"a\": 1},\n{\"a\": 2,}\n]") }
        #expect(trailing?.hasSuffix("bad.json: line 3: expected a quoted key in an object, found \"}\\n]\"") == true, "\(trailing ?? "no error")")
        let notRows = thrownMessage { try readTable("obj.json", "{\"a\": [1, 2]}") }
        #expect(notRows?.contains("line 1: expected a JSON array of objects") == true, "\(notRows ?? "no error")")
        let mixed = thrownMessage { try readTable("mixed.json", "[{\"a\": 1},\n{\"a\": \"x\"}]") }
        #expect(mixed?.hasSuffix("mixed.json: line 2, column \"a\": row 2 holds a String value, but earlier rows hold Int values") == true,
                "\(mixed ?? "no error")")
        #expect(thrownMessage { try readTable("empty.json", "") }?.contains("the file is empty") == true)
        #expect(thrownMessage { try readTable("open.json", "[{\"a\": \"never closed}]") }?.contains("a string is never closed") == true)
        let deep = String(repeating: "[", count: 5000)
        #expect(thrownMessage { try readTable("deep.json", "[{\"a\": \(deep)}]") }?.contains("nests deeper") == true)
        let invalid = thrownMessage { try readTable("u.json", bytes: Array("[{\"a\": \"".utf8) + [0xC3, 0x28] + Array("\"}]".utf8)) }
        #expect(invalid?.contains("line 1: a string is not valid UTF-8 text") == true, "\(invalid ?? "no error")")
    }

    @Test func anEmptyArrayIsAnEmptyTable() throws {
        let table = try readTable("none.json", " [ ] ")
        #expect(table.size.rows == 0 && table.size.columns == 0)
    }
}
