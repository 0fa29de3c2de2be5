import Testing
@testable import CacheWorkbench
@testable import WorkbenchReports
@testable import WorkbenchCommands
@testable import WorkbenchCore
@testable import WorkbenchMetrics
@testable import WorkbenchTraces
@testable import WorkbenchHTTP
@testable import WorkbenchBackends
@testable import WorkbenchSimulation
@testable import WorkbenchExperiments

@Suite("CSV trace reader", .onTestWorkers)
struct CSVTraceReaderTests {
    @Test("native header with dimensions and op")
    func nativeHeader() throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.csv", """
            time,key,size,width,height,op
            0.5,https://a.example/x.jpg,100,10,20,get
            1,42,7,,,SET
            2.25,b,3,1,1,delete

            """)
        let requests = try readCSV(path).requests
        #expect(requests.count == 3)
        #expect(requests[0] == Request(time: 0.5, key: "https://a.example/x.jpg", size: 100, width: 10, height: 20))
        #expect(requests[1] == Request(time: 1, id: 42, size: 7, operation: .set))
        #expect(requests[1].name == nil)  // integer keys carry no string
        #expect(requests[2].operation == .delete)
        #expect(requests[2].time == 2.25)
    }

    @Test("plain timestamp,key,size without header, LF and CRLF, blank lines, no final newline")
    func plainShapes() throws {
        let folder = TemporaryFolder()
        for ending in ["\n", "\r\n"] {
            let path = folder.file("p.csv", ["1,10,100", "", "2,11,200", "3,10,300"].joined(separator: ending))
            let requests = try readCSV(path).requests
            #expect(requests.map(\.id) == [10, 11, 10])
            #expect(requests.map(\.size) == [100, 200, 300])
            #expect(requests.map(\.time) == [1, 2, 3])
        }
    }

    @Test("header aliases, any column order, byte-order mark")
    func headerVariants() throws {
        let folder = TemporaryFolder()
        let path = folder.file("h.csv", "\u{FEFF}obj_size,Timestamp,obj_id\n5,1.5,99\n")
        #expect(try readCSV(path).requests == [Request(time: 1.5, id: 99, size: 5)])
        let bomData = folder.file("b.csv", "\u{FEFF}1,2,3\n")
        #expect(try readCSV(bomData).requests == [Request(time: 1, id: 2, size: 3)])
    }

    @Test("headerless column counts 4, 5 and 6")
    func positionalLayouts() throws {
        let folder = TemporaryFolder()
        #expect(try readCSV(folder.file("a.csv", "1,k,5,delete\n")).requests[0].operation == .delete)
        let five = try readCSV(folder.file("b.csv", "1,k,5,640,480\n")).requests[0]
        #expect(five.width == 640 && five.height == 480)
        let six = try readCSV(folder.file("c.csv", "1,k,5,640,480,set\n")).requests[0]
        #expect(six.width == 640 && six.operation == .set)
    }

    @Test("RFC 4180 quoting: commas, doubled quotes, line breaks inside quotes")
    func quoting() throws {
        let folder = TemporaryFolder()
        let path = folder.file("q.csv", #"""
            time,key,size
            1,"a,b",10
            2,"say ""hi""",20
            "3","multi
            line",30
            4,plain,40

            """#)
        let requests = try readCSV(path).requests
        #expect(requests.map(\.name) == ["a,b", "say \"hi\"", "multi\nline", "plain"])
        #expect(requests.map(\.size) == [10, 20, 30, 40])
        // The row after a quoted line break is still reported at its real line.
        let bad = folder.file("q2.csv", "time,key,size\n1,\"x\ny\",1\n2,k,oops\n")
        #expect(throws: TraceError(path: bad, line: 4, reason: "size 'oops' is not a whole number")) { try readCSV(bad) }
    }

    @Test("integer keys are ids; other keys keep their text and get a stable digest")
    func keys() throws {
        let folder = TemporaryFolder()
        let path = folder.file("k.csv", "1,007,1\n2,7,1\n3,18446744073709551615,1\n4,18446744073709551616,1\n")
        let requests = try readCSV(path).requests
        #expect(requests[0].name == "007" && requests[0].id != 7)
        #expect(requests[1].id == 7 && requests[1].name == nil)
        #expect(requests[2].id == UInt64.max && requests[2].name == nil)
        #expect(requests[3].name == "18446744073709551616")
        let unnamed = try readCSV(path, keepKeyNames: false).requests
        #expect(unnamed.allSatisfy { $0.name == nil })
        #expect(unnamed.map(\.id) == requests.map(\.id))
    }

    @Test("rows spanning the 1 MiB read buffer and rows longer than it")
    func bufferBoundaries() throws {
        let folder = TemporaryFolder()
        var text = "time,key,size\n"
        let longKey = String(repeating: "k", count: 3 << 20)  // one row longer than the buffer
        for index in 0..<60_000 {
            text += "\(index),key-\(index % 977),\(index + 1)\n"
            if index == 30_000 { text += "\(index),\"\(longKey)\",5\n" }
        }
        let requests = try readCSV(folder.file("big.csv", text)).requests
        #expect(requests.count == 60_001)
        #expect(requests[30_001].name?.count == longKey.count)
        #expect(requests.last?.size == 60_000)
    }

    @Test("each kind of bad row names file, line and reason")
    func badRows() {
        #expect(csvError("time,key,size\n1,a,1\n2,b\n") == TraceError(path: "t.csv", line: 3, reason: "expected 3 columns (time,key,size), found 2"))
        #expect(csvError("1,a,1\n2,b,1,2,3,4,5\n")?.reason == "expected 3 columns (time,key,size), found 7")
        #expect(csvError("1,a,x1\n") == TraceError(path: "t.csv", line: 1, reason: "size 'x1' is not a whole number"))
        #expect(csvError("1,a,-5\n") == TraceError(path: "t.csv", line: 1, reason: "size is negative (-5)"))
        #expect(csvError("1,a,\n")?.reason == "size is empty")
        #expect(csvError("1,a,1.5\n")?.reason == "size '1.5' is not a whole number")
        #expect(csvError("1,a,99999999999999999999\n")?.reason == "size '99999999999999999999' is larger than the largest object accepted, 2^53 bytes (8 PiB)")
        #expect(csvError("1,a,1,put\n") == TraceError(path: "t.csv", line: 1, reason: "op 'put' is not get, set or delete"))
        #expect(csvError("1,,1\n")?.reason == "key is empty")
        #expect(csvError("time,key,size\nsoon,a,1\n") == TraceError(path: "t.csv", line: 2, reason: "time 'soon' is not a number"))
        #expect(csvError("1,a,1,2,x\n")?.reason == "height 'x' is not a whole number")
        #expect(csvError("1,\"open,1\n")?.reason == "quoted field is not closed before the end of the file")
        #expect(csvError("1,\"a\"b,1\n")?.reason.hasPrefix("unexpected character after a closing quote") == true)
        #expect(csvError("1,a\n")?.reason.hasPrefix("found 2 columns and no header") == true)
        #expect(csvError("time,key,bytes_total\n")?.reason.contains("'bytes_total' is not one of") == true)
        #expect(csvError("time,key\n1,a\n")?.reason == "header has no size column (it needs time, key and size)")
        #expect(csvError("time,key,size,key\n")?.reason == "header names the key column twice")
        #expect(csvError("time,key,size,width\n")?.reason == "header has width without height")
    }

    @Test("times: fractions, exponents, negative; nan and inf refused")
    func times() throws {
        let folder = TemporaryFolder()
        let path = folder.file("t.csv", "0.000001,a,1\n1e3,a,1\n-2.5,a,1\n12345678901234567890.5,a,1\n")
        #expect(try readCSV(path).requests.map(\.time) == [0.000001, 1000, -2.5, 12345678901234567890.5])
        #expect(csvError("nan,a,1\n") != nil)
        #expect(csvError("inf,a,1\n") != nil)
        #expect(csvError("0x10,a,1\n") != nil)
    }

    @Test("skip-bad counts skipped rows and keeps the good ones")
    func skipBad() throws {
        let folder = TemporaryFolder()
        let path = folder.file("s.csv", "time,key,size\n1,a,1\n2,b,-1\n3,c\n4,d,4\n")
        let (requests, skipped) = try readCSV(path, skipBad: true)
        #expect(requests.map(\.size) == [1, 4])
        #expect(skipped == 2)
        // A bad header is never skipped.
        #expect(throws: TraceError.self) { try readCSV(folder.file("h.csv", "tim,key,size\n1,a,1\n"), skipBad: true) }
    }

    @Test("missing file, folder, empty file")
    func fileProblems() throws {
        let folder = TemporaryFolder()
        #expect(throws: TraceError(path: folder.path + "/none.csv", line: nil, reason: "cannot open: No such file or directory")) {
            try readCSV(folder.path + "/none.csv")
        }
        #expect(throws: TraceError(path: folder.path, line: nil, reason: "is a directory, not a trace file")) {
            try readCSV(folder.path)
        }
        #expect(try readCSV(folder.file("e.csv", "")).requests.isEmpty)
        #expect(try readCSV(folder.file("h.csv", "time,key,size\n")).requests.isEmpty)
    }
}
