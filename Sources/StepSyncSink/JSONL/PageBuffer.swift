#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A growable array of plain values in its own anonymous memory mapping, grown in place: on Linux `mremap` moves
/// the pages instead of copying them, so growing never holds the old and the new copy at once (a Swift `Array`
/// grown by doubling does, and touches every page of the new one), and the reserved but unused tail takes no memory
/// until it is written. Elsewhere it falls back to `realloc`.
///
/// For the sink's tables that live as long as the sink and grow with every sample (``UUIDIndex``'s sorted run,
/// ``TypeLog``'s slots). A reference type: copies share it (``copy()`` makes one of its own).
final class PageBuffer<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>?
    /// The elements held.
    private(set) var count = 0
    /// The elements that fit without growing.
    private(set) var capacity = 0
    private var mappedBytes = 0

    init() {}

    deinit { release() }

    /// The bytes the elements held take (resident once written).
    var byteCount: Int { count * MemoryLayout<Element>.stride }

    @inline(__always)
    subscript(i: Int) -> Element {
        get {
            precondition(i >= 0 && i < count, "PageBuffer index out of range")
            return base.unsafelyUnwrapped[i]
        }
        set {
            precondition(i >= 0 && i < count, "PageBuffer index out of range")
            base.unsafelyUnwrapped[i] = newValue
        }
    }

    /// Appends `element`, growing by a quarter (at least 64 KiB) when full.
    @inline(__always)
    func append(_ element: Element) {
        if count == capacity { reserve(capacity + max(capacity / 4, 65_536 / MemoryLayout<Element>.stride)) }
        (base.unsafelyUnwrapped + count).initialize(to: element)
        count += 1
    }

    /// Sets the count to `newCount` (at most the capacity); new elements are zero bytes until written.
    func resize(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= capacity, "PageBuffer resized past its capacity")
        count = newCount
    }

    /// Makes room for `minimumCapacity` elements without moving the elements held through a copy.
    func reserve(_ minimumCapacity: Int) {
        guard minimumCapacity > capacity else { return }
        let page = 4_096
        let bytes = (minimumCapacity * MemoryLayout<Element>.stride + page - 1) / page * page
        guard let raw = PageMapping.grow(base.map { UnsafeMutableRawPointer($0) }, from: mappedBytes, to: bytes) else {
            fatalError("out of memory: cannot map \(bytes) bytes")
        }
        base = raw.bindMemory(to: Element.self, capacity: bytes / MemoryLayout<Element>.stride)
        mappedBytes = bytes
        capacity = bytes / MemoryLayout<Element>.stride
    }

    /// Empties the buffer and gives its memory back.
    func removeAll() {
        release()
        count = 0
        capacity = 0
    }

    /// A copy of the elements in a buffer of its own.
    func copy() -> PageBuffer<Element> {
        let copy = PageBuffer<Element>()
        if count > 0 {
            copy.reserve(count)
            copy.base.unsafelyUnwrapped.update(from: base.unsafelyUnwrapped, count: count)
            copy.count = count
        }
        return copy
    }

    /// The elements held, for reading in a loop.
    @inline(__always)
    func withElements<R>(_ body: (UnsafeMutableBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(UnsafeMutableBufferPointer(start: base, count: count))
    }

    private func release() {
        if let base { PageMapping.unmap(UnsafeMutableRawPointer(base), bytes: mappedBytes) }
        base = nil
        mappedBytes = 0
    }
}

/// The anonymous mappings behind ``PageBuffer`` (a generic class cannot hold the static `mremap` symbol).
private enum PageMapping {
    #if os(Linux)
    typealias Remap = @convention(c) (UnsafeMutableRawPointer?, Int, Int, Int32) -> UnsafeMutableRawPointer?
    /// glibc's `mremap`, looked up at run time (`<sys/mman.h>` declares it only under `_GNU_SOURCE`).
    static let remap: Remap? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mremap")
        .map { unsafeBitCast($0, to: Remap.self) }
    #endif

    static func grow(_ old: UnsafeMutableRawPointer?, from oldBytes: Int, to bytes: Int) -> UnsafeMutableRawPointer? {
        #if os(Linux)
        if let old {
            if let remap, let moved = remap(old, oldBytes, bytes, 1 /* MREMAP_MAYMOVE */), moved != MAP_FAILED {
                return moved
            }
            guard let fresh = map(bytes) else { return nil }
            fresh.copyMemory(from: old, byteCount: oldBytes)
            unmap(old, bytes: oldBytes)
            return fresh
        }
        return map(bytes)
        #else
        return realloc(old, bytes)
        #endif
    }

    #if os(Linux)
    static func map(_ bytes: Int) -> UnsafeMutableRawPointer? {
        let pointer = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        return pointer == MAP_FAILED ? nil : pointer
    }
    #endif

    static func unmap(_ pointer: UnsafeMutableRawPointer, bytes: Int) {
        #if os(Linux)
        munmap(pointer, bytes)
        #else
        free(pointer)
        #endif
    }
}
