import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Real TLS parts for the transport tests: a certificate made by `openssl` and a real nginx (Debian's package) in
/// front of a sink, each in its own temporary directory.
public enum TransportHarness {
    /// Whether the nginx tests run: always on CI (`CI=true`), where a missing nginx fails them instead of skipping
    /// them (`.ci/run` installs it), else when an nginx binary is installed.
    public static var shouldRunNginx: Bool { PostgresHarness.onCI || nginxBinary != nil }

    /// `nginx` from `PATH`, `/usr/sbin` or `/usr/local/sbin`.
    public static var nginxBinary: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/nginx" } + ["/usr/sbin/nginx", "/usr/local/sbin/nginx"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A self-signed certificate and its key, made by `openssl` for `127.0.0.1` (CN and IP SAN).
    public struct Certificate: Sendable {
        public let certificatePath: String
        public let keyPath: String
    }

    /// `openssl req -x509` for 127.0.0.1 into `directory` (cert.pem, key.pem).
    public static func makeCertificate(in directory: String) async throws -> Certificate {
        let certificate = Certificate(certificatePath: directory + "/cert.pem", keyPath: directory + "/key.pem")
        let result = try await run("/usr/bin/env", [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "2",
            "-keyout", certificate.keyPath, "-out", certificate.certificatePath,
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        guard result.status == 0 else { throw PostgresHarness.Failure("openssl failed: \(result.output)") }
        return certificate
    }

    /// Runs `executable` with `arguments` to the end; returns its status and its stdout and stderr together.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws
        -> (status: Int32, output: String)
    {
        let output = (NSTemporaryDirectory() as NSString).appendingPathComponent("transport-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = try ChildProcess(executable, arguments, environment: environment, stdout: output)
        let deadline = ContinuousClock.now + .seconds(240)
        while process.isRunning {
            if ContinuousClock.now > deadline {
                kill(process.processIdentifier, SIGKILL)
                throw PostgresHarness.Failure("\(executable) \(arguments.joined(separator: " ")) did not end in 240 s")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return (process.terminationStatus, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    /// `curl -sS` with `arguments`; returns curl's status, the HTTP status (`%{http_code}`, `000` when no answer) and
    /// the body.
    public static func curl(_ arguments: [String]) async throws -> (status: Int32, http: String, body: String) {
        let bodyPath = (NSTemporaryDirectory() as NSString).appendingPathComponent("curl-\(UUID().uuidString).body")
        defer { try? FileManager.default.removeItem(atPath: bodyPath) }
        let result = try await run("/usr/bin/env", ["curl", "-sS", "--max-time", "60", "-o", bodyPath,
                                                    "-w", "%{http_code}"] + arguments)
        let http = String(result.output.suffix(3))
        return (result.status, http, (try? String(contentsOfFile: bodyPath, encoding: .utf8)) ?? "")
    }

    /// Runs `body` with a real nginx on a free loopback port terminating TLS with `certificate` and proxying every
    /// request to `http://127.0.0.1:<upstreamPort>`, with nginx's defaults otherwise (its 1 MB
    /// `client_max_body_size` included). Its prefix, logs and temp dirs are in a temp directory; as root it runs its
    /// workers as root (`user root;`) so they can write the body temp dir. Stopped (SIGTERM to the master it
    /// started, then SIGKILL) on every path.
    public static func withNginx<R>(
        certificate: Certificate, upstreamPort: Int, pathPrefix: String = "/", _ body: (_ port: Int) async throws -> R
    ) async throws -> R {
        guard let nginx = nginxBinary else {
            throw PostgresHarness.Failure("nginx is not installed (apt-get install nginx; .ci/run installs it)")
        }
        let prefix = try TemporaryDirectory.make("stepsync-nginx")
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = try PostgresHarness.freePort()
            let configuration = Self.configuration(prefix: prefix, port: port, upstreamPort: upstreamPort,
                                                   certificate: certificate, pathPrefix: pathPrefix)
            try configuration.write(toFile: prefix + "/nginx.conf", atomically: true, encoding: .utf8)
            let process = try ChildProcess(
                nginx, ["-p", prefix, "-c", prefix + "/nginx.conf", "-e", prefix + "/error.log"])
            defer {
                kill(process.processIdentifier, SIGTERM)
                let deadline = ContinuousClock.now + .seconds(10)
                while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
            }
            // Ready once it accepts connections (or gone: most likely the port was taken meanwhile).
            var ready = false
            let deadline = ContinuousClock.now + .seconds(30)
            while process.isRunning, ContinuousClock.now < deadline {
                if accepts(port: port) {
                    ready = true
                    break
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            guard ready else {
                let log = (try? String(contentsOfFile: prefix + "/error.log", encoding: .utf8)) ?? ""
                lastError = PostgresHarness.Failure("nginx did not start on \(port): \(log.suffix(800))")
                continue
            }
            return try await body(port)
        }
        throw lastError ?? PostgresHarness.Failure("nginx did not start")
    }

    /// The whole nginx configuration: TLS on `port`, everything under `pathPrefix` (`/stepsync/`: the sink published
    /// under a prefix, which nginx strips) proxied to the sink, every path under `prefix`.
    static func configuration(prefix: String, port: Int, upstreamPort: Int, certificate: Certificate,
                              pathPrefix: String = "/") -> String {
        """
        \(getuid() == 0 ? "user root;" : "")
        daemon off;
        worker_processes 1;
        pid \(prefix)/nginx.pid;
        error_log \(prefix)/error.log;
        events { worker_connections 64; }
        http {
            access_log \(prefix)/access.log;
            client_body_temp_path \(prefix)/client_body;
            proxy_temp_path \(prefix)/proxy;
            fastcgi_temp_path \(prefix)/fastcgi;
            uwsgi_temp_path \(prefix)/uwsgi;
            scgi_temp_path \(prefix)/scgi;
            server {
                listen 127.0.0.1:\(port) ssl;
                ssl_certificate \(certificate.certificatePath);
                ssl_certificate_key \(certificate.keyPath);
                location \(pathPrefix) {
                    proxy_pass http://127.0.0.1:\(upstreamPort)\(pathPrefix == "/" ? "" : "/");
                    proxy_http_version 1.1;
                    proxy_set_header Connection "";
                    proxy_read_timeout 120s;
                }
            }
        }

        """
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func accepts(port: Int) -> Bool {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
