/// Whether a TLS certificate's validity period (`notBefore`…`notAfter`, seconds since 1970) holds an instant, said
/// with the date that matters: `serve --tls-cert` refuses a certificate that has expired or is not valid yet, and
/// `sync` names the sink's certificate so instead of calling it untrusted.
public enum CertificateValidity: Hashable, Sendable {
    /// `now` is inside the period.
    case valid
    /// The period ended at `notAfter` (seconds since 1970).
    case expired(notAfter: Int64)
    /// The period begins at `notBefore` (seconds since 1970).
    case notYetValid(notBefore: Int64)

    /// The validity of the period `notBefore…notAfter` at `now` (all in seconds since 1970; the ends are included,
    /// as RFC 5280 says).
    public static func of(notBefore: Int64, notAfter: Int64, now: Int64) -> CertificateValidity {
        if now > notAfter { return .expired(notAfter: notAfter) }
        if now < notBefore { return .notYetValid(notBefore: notBefore) }
        return .valid
    }

    /// `expired on 2021-01-01 00:00:00 UTC`, `is not valid before 2099-01-01 00:00:00 UTC`; `nil` when valid.
    public var phrase: String? {
        switch self {
        case .valid: nil
        case .expired(let notAfter): "expired on \(Self.date(notAfter))"
        case .notYetValid(let notBefore): "is not valid before \(Self.date(notBefore))"
        }
    }

    /// `2021-01-01 00:00:00 UTC` for seconds since 1970 in years 1–9999; the number of seconds outside them (a
    /// certificate's dates are the issuer's to write).
    public static func date(_ seconds: Int64) -> String {
        // 0001-01-01 and 9999-12-31T23:59:59 as seconds since 1970.
        guard (-62_135_596_800...253_402_300_799).contains(seconds) else { return "\(seconds) s after 1970-01-01 UTC" }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(CivilDate(daysSinceEpoch: Int(days))) \(two(rest / 3_600)):\(two(rest / 60 % 60)):\(two(rest % 60)) UTC"
    }
}
