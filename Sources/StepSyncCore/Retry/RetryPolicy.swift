/// How the sync engine retries a transient failure: exponential backoff with jitter, a cap, and a limit on attempts.
///
/// The delay before the next try, after failed attempt `n` (1-based), is
///
///     delay(n) = min(base · 2^(n − 1), maxDelay) · (1 + j),   j uniform in [−jitter, +jitter]
///
/// capped *before* it is converted to a `Duration` (so a huge `n` never overflows), with `j` drawn from the random
/// number generator the caller injects. With the defaults (base 2 s, jitter ±10 %, cap 5 min):
///
/// | failed attempt n | 1   | 2   | 3   | 4    | 5    | 6    | 7     | 8     | 9     | ≥ 10  |
/// |------------------|-----|-----|-----|------|------|------|-------|-------|-------|-------|
/// | delay (± 10 %)   | 2 s | 4 s | 8 s | 16 s | 32 s | 64 s | 128 s | 256 s | 300 s | 300 s |
///
/// `maxAttempts` counts sends of one interval in one run, the first included: with the default 5 an interval is
/// tried at most 5 times, waiting about 2, 4, 8 and 16 s in between (the 32 s delay is reached with 6 attempts).
///
/// When the server names a delay (`Retry-After` on 429 or 503), that delay is used instead, without jitter, capped at
/// `maxDelay` — the server knows better than our guess.
public struct RetryPolicy: Hashable, Sendable {
    /// The most sends of one interval in one run, the first included (≥ 1).
    public var maxAttempts: Int
    /// The first delay, in seconds (fractional allowed: tests use 0.01).
    public var baseSeconds: Double
    /// The largest delay, in seconds, before jitter; also the cap on a server's `Retry-After`.
    public var maxDelaySeconds: Double
    /// The jitter as a fraction of the delay (0.1 = ±10 %).
    public var jitter: Double

    /// The defaults of `stepsync sync`: 5 attempts, 2 s base, 300 s cap, ±10 % jitter.
    public static let `default` = RetryPolicy()

    /// Creates a policy; values are clamped to sane ranges (at least one attempt, no negative delay or jitter).
    public init(maxAttempts: Int = 5, baseSeconds: Double = 2, maxDelaySeconds: Double = 300, jitter: Double = 0.1) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseSeconds = max(0, baseSeconds)
        self.maxDelaySeconds = max(0, maxDelaySeconds)
        self.jitter = min(1, max(0, jitter))
    }

    /// Whether another send may follow failed attempt `attempt` (1-based).
    public func allowsRetry(afterAttempt attempt: Int) -> Bool {
        attempt < maxAttempts
    }

    /// The delay before the next send after failed attempt `attempt` (1-based), in seconds, before jitter.
    public func nominalDelaySeconds(afterAttempt attempt: Int) -> Double {
        let exponent = Double(max(0, attempt - 1))
        // Computed and capped in Double: 2^exponent is +inf for large attempts, and min() brings it back.
        return min(baseSeconds * Self.power2(exponent), maxDelaySeconds)
    }

    /// The delay before the next send after failed attempt `attempt` (1-based), jittered with `generator`;
    /// `retryAfterSeconds` (the server's `Retry-After`) replaces the computed delay when present.
    public func delay<G: RandomNumberGenerator>(
        afterAttempt attempt: Int,
        retryAfterSeconds: Double? = nil,
        using generator: inout G
    ) -> Duration {
        if let retryAfterSeconds, retryAfterSeconds.isFinite {
            return Self.duration(seconds: min(max(0, retryAfterSeconds), maxDelaySeconds))
        }
        let nominal = nominalDelaySeconds(afterAttempt: attempt)
        let factor = jitter > 0 ? 1 + Double.random(in: -jitter...jitter, using: &generator) : 1
        return Self.duration(seconds: nominal * factor)
    }

    // MARK: - Helpers

    private static func power2(_ exponent: Double) -> Double {
        exponent >= 1024 ? .infinity : Double(sign: .plus, exponent: Int(exponent), significand: 1)
    }

    /// Seconds (already capped, finite, ≥ 0) to a `Duration`, at millisecond precision.
    static func duration(seconds: Double) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
