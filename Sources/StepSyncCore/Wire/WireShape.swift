/// The two shapes of a wire sample object (`Planning/wire-format.md`).
///
/// - ``steps``: HealthStepsSync's `POST /steps` object and the lines of the sink's `steps.jsonl`:
///   `uuid`, `startDate`, `endDate`, `count`, `sourceBundleId` required, `sourceDeviceName` optional; the type is
///   implied (step count), `unit` defaults to `count` and `sourceName` to `""`. The optional fields of the other
///   shape (`sourceName`, `unit`, `sourceVersion`, `deviceModel`, `details`) are read when present, so a step count
///   that arrived through `POST /samples` keeps them in `steps.jsonl`; `type` and `value` are ignored.
/// - ``samples``: the `POST /samples` object and the lines of the sink's other files: `uuid`, `type`, `startDate`,
///   `endDate`, `value`, `unit`, `sourceName`, `sourceBundleId` required; `sourceDeviceName`, `sourceVersion`,
///   `deviceModel`, `details` optional; `count` is ignored.
///
/// In both, unknown fields are ignored and `null` counts as absent for the optional ones.
enum WireShape: Sendable {
    /// `POST /steps` and `steps.jsonl`.
    case steps
    /// `POST /samples` and the sink's per-type files.
    case samples
}
