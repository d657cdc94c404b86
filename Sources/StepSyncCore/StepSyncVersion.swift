/// The version of stepsync: what `stepsync --version` prints (and what the sink can say about itself).
public enum StepSyncVersion {
    /// The one version string, `MAJOR.MINOR.PATCH`.
    public static let current = "0.23.0"
}
