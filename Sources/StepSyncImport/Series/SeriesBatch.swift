import StepSyncCore

/// The parts of one route or one ECG recording, handed from the reader to the store's writer as one batch, so the
/// writer can count what was new per route or recording.
struct SeriesBatch: Sendable {
    /// What the parts are.
    enum Kind: Sendable {
        /// ``RoutePart`` samples of one workout's route (every file it names).
        case route
        /// ``RoutePart`` samples of one route file no workout names (``RoutePart/orphanOwner(file:)``).
        case orphanRoute
        /// ``ElectrocardiogramPart`` samples of one ECG file.
        case electrocardiogram
    }

    /// What the parts are.
    var kind: Kind
    /// The parts, as samples, in part order.
    var samples: [HealthSample]
}
