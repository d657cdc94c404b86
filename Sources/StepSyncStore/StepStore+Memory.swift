#if canImport(Glibc)
import Glibc
#endif

extension StepStore {
    /// Frees the page caches of every connection (the writer's, up to 64 MiB after a bulk insert; the readers are
    /// closed and reopened on demand) and, on Linux, hands the freed heap back to the system (glibc's `malloc_trim`).
    ///
    /// For a process that goes on after a bulk insert — `stepsync demo` generates a decade, then layers, serves and
    /// syncs in the same process: without it the writer's cache, clean but full, stays resident under everything
    /// that follows. Costs a few milliseconds; later queries read their pages again from the OS cache.
    public func releaseMemory() {
        dbWriter.releaseMemory()
        Self.trimHeap()
    }

    /// glibc's `malloc_trim(0)`, looked up at run time (`<malloc.h>` is not in Swift's Glibc module); nothing
    /// elsewhere.
    private static func trimHeap() {
        #if canImport(Glibc)
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }
}
