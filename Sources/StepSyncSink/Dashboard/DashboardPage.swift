/// The dashboard `GET /` serves: one HTML page with its style and script inline (no CDN, no other file), which reads
/// `GET /stats` and `GET /steps/daily` with the token it is given (kept in the tab's `sessionStorage`, sent as
/// `Authorization: Bearer`). The page is `Sources/StepSyncSink/Resources/dashboard.html`, compiled into the binary
/// (`.embedInCode` in `Package.swift`). What it shows and how it is tested: `Planning/dashboard.md`.
///
/// DOM hooks the browser test reads: `body[data-state]` (`loading`, `login`, `ready`, `error`), `#total-samples` and
/// `#step-samples` (`data-value`), one `rect.day` per day of the chart (`data-date`, `data-steps`), `#range-total`.
/// Open it as `/?tz=Europe/Berlin&days=365` to choose the zone and span; `#token=…` logs in and is then removed from
/// the address.
enum DashboardPage {
    /// The page's UTF-8 bytes, exactly as the file holds them.
    static var bytes: [UInt8] { PackageResources.dashboard_html }
}
