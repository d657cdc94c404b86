#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process' own figures for `GET /metrics`, read when scraped: resident memory, open descriptors and their
/// limit. On Linux from `/proc/self`; a figure the system does not give is `nil` (and left out of the exposition).
struct ProcessFigures: Sendable {
    /// Resident memory in bytes.
    var residentBytes: Int?
    /// Open file descriptors (sockets, files, the listening socket).
    var openDescriptors: Int?
    /// The soft limit of open descriptors (`ulimit -n`).
    var maxDescriptors: Int?

    /// The figures now.
    static func now() -> ProcessFigures {
        var figures = ProcessFigures()
        #if os(Linux)
        figures.residentBytes = residentBytes()
        figures.openDescriptors = openDescriptors()
        #endif
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur <= rlim_t(Int.max) {
            figures.maxDescriptors = Int(limit.rlim_cur)
        }
        return figures
    }

    #if os(Linux)
    /// The second field of `/proc/self/statm` (resident pages) times the page size.
    private static func residentBytes() -> Int? {
        guard let file = fopen("/proc/self/statm", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let read = fread(&buffer, 1, buffer.count, file)
        let fields = buffer[..<read].split(separator: UInt8(ascii: " "))
        guard fields.count >= 2, let resident = Int(String(decoding: fields[1], as: UTF8.self)), resident >= 0 else {
            return nil
        }
        let page = sysconf(Int32(_SC_PAGESIZE))
        guard page > 0 else { return nil }
        let (bytes, overflow) = resident.multipliedReportingOverflow(by: page)
        return overflow ? nil : bytes
    }

    /// The entries of `/proc/self/fd` but `.`, `..` and the directory's own descriptor.
    private static func openDescriptors() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in
                name[0] == UInt8(ascii: ".") && (name[1] == 0 || (name[1] == UInt8(ascii: ".") && name[2] == 0))
            }
            if !isDot { count += 1 }
        }
        return max(0, count - 1)
    }
    #endif
}
