import Foundation
@testable import StepSyncSink
import Testing
import StepSyncTestSupport

/// The JSONL sink's descriptor cache: bounded, least recently used out first, never closing a leased descriptor.
@Suite("JSONL descriptor cache")
struct DescriptorCacheTests {
    /// `n` files with known contents under a temporary directory.
    func withFiles<T>(_ n: Int, _ body: ([String]) throws -> T) throws -> T {
        let dir = TemporaryDirectory.uniquePath("stepsync-fd")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let paths = (0..<n).map { "\(dir)/f\($0).jsonl" }
        for (i, path) in paths.enumerated() {
            _ = FileManager.default.createFile(atPath: path, contents: Data("file \(i)\n".utf8))
        }
        return try body(paths)
    }

    @Test("40 files through a cache of 4: at most 4 stay open, every read sees its own file's bytes")
    func boundedAndCorrect() throws {
        try withFiles(40) { paths in
            let cache = DescriptorCache(capacity: 4)
            let files = try paths.map { try SampleLogFile(path: $0, descriptors: cache) }
            for round in 0..<3 {
                for (i, file) in files.enumerated() {
                    let bytes = try file.read(offset: 0, length: "file \(i)\n".utf8.count)
                    #expect(bytes == Array("file \(i)\n".utf8), "round \(round), file \(i)")
                    #expect(cache.openCount <= 4)
                }
            }
            try files[7].append(Array("more\n".utf8), truncateFirst: false, sync: true)
            #expect(try String(contentsOfFile: paths[7], encoding: .utf8) == "file 7\nmore\n")
            #expect(files[7].size() == Int64("file 7\nmore\n".utf8.count))
            cache.closeAll()
            #expect(cache.openCount == 0)
        }
    }

    @Test("the least recently used idle descriptor is closed first; a leased one is never closed under its lease")
    func leasedNeverClosed() throws {
        try withFiles(6) { paths in
            let cache = DescriptorCache(capacity: 2)
            try cache.withDescriptor(paths[0]) { outer in
                // Five more files while the first is leased: the cache goes over capacity but keeps `outer` open.
                for path in paths[1...] { try cache.withDescriptor(path) { _ in } }
                #expect(fcntl(outer, F_GETFD) != -1, "the leased descriptor was closed")
                var byte: UInt8 = 0
                #expect(pread(outer, &byte, 1, 0) == 1 && byte == UInt8(ascii: "f"))
            }
            // Kept: paths[0] (leased while the others came and went) and paths[5], the last of those.
            #expect(cache.openCount == 2)
            let reused = try cache.withDescriptor(paths[5]) { fd in fd }
            let reopened = try cache.withDescriptor(paths[1]) { fd in fd }
            #expect(cache.openCount == 2)
            #expect(reused != reopened)
            cache.closeAll()
            #expect(cache.openCount == 0)
        }
    }

    @Test("forget closes an idle descriptor at once and a leased one when its lease ends (a file renamed over)")
    func forgetAfterRename() throws {
        try withFiles(1) { paths in
            let cache = DescriptorCache(capacity: 4)
            let file = try SampleLogFile(path: paths[0], descriptors: cache)
            #expect(try file.read(offset: 0, length: 6) == Array("file 0".utf8))
            let replacement = paths[0] + ".tmp"
            _ = FileManager.default.createFile(atPath: replacement, contents: Data("renamed\n".utf8))
            #expect(rename(replacement, paths[0]) == 0)
            // Still the old inode through the cached descriptor…
            #expect(try file.read(offset: 0, length: 6) == Array("file 0".utf8))
            cache.forget(paths[0])
            // …and the new file after forget.
            #expect(try file.read(offset: 0, length: 7) == Array("renamed".utf8))
            try cache.withDescriptor(paths[0]) { _ in
                cache.forget(paths[0])
                #expect(cache.openCount == 1)
            }
            #expect(cache.openCount == 0)
        }
    }
}
