#if canImport(Glibc)
import Glibc
#endif

extension StepStore {
    /// Frees the page caches of every connection (the writer's, up to 64 MiB after a bulk insert; the readers are
    /// closed and reopened on demand) and, on Linux, hands the freed heap back to the system (`malloc_trim`).
    ///
    /// For a process that goes on after a bulk insert — `stepsync demo` generates a decade, then layers, serves and
    /// syncs in the same process: without it the writer's cache, clean but full, stays resident under everything
    /// that follows. Costs a few milliseconds; later queries read their pages again from the OS cache.
    public func releaseMemory() {
        dbWriter.releaseMemory()
        #if canImport(Glibc)
        _ = malloc_trim(0)
        #endif
    }
}
