import Testing
@testable import StepSyncSink

@Suite("PageBuffer")
struct PageBufferTests {
    @Test("appends through many growths keep every element; the bytes counted are the elements held")
    func appendsKeepElements() {
        let buffer = PageBuffer<TypeLog.Slot>()
        for i in 0..<300_000 {
            buffer.append(TypeLog.Slot(offset: Int64(i) * 200, length: 200, startMs: Int64(i)))
        }
        #expect(buffer.count == 300_000)
        #expect(buffer.capacity >= buffer.count)
        #expect(buffer.byteCount == 300_000 * 16)
        for i in stride(from: 0, to: 300_000, by: 1_009) {
            #expect(buffer[i].offset == Int64(i) * 200)
            #expect(buffer[i].startMs == Int64(i))
        }
        buffer[7].markDeleted()
        #expect(buffer[7].isDeleted)
        #expect(!buffer[8].isDeleted)
    }

    @Test("a copy is its own; removeAll empties")
    func copyAndRemoveAll() {
        let buffer = PageBuffer<UInt64>()
        for i in 0..<10_000 { buffer.append(UInt64(i)) }
        let copy = buffer.copy()
        buffer[0] = 99
        #expect(copy[0] == 0)
        #expect(copy.count == 10_000)
        #expect(copy[9_999] == 9_999)
        buffer.removeAll()
        #expect(buffer.count == 0)
        #expect(buffer.byteCount == 0)
        buffer.append(5)
        #expect(buffer[0] == 5)
    }
}
