import Logging

/// A log handler that keeps its metadata in ``metadata`` (the plain and JSON handlers): the subscript swift-log asks
/// for, and an event's metadata merged over it.
protocol StoredMetadataLogHandler: LogHandler {}

extension StoredMetadataLogHandler {
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The handler's metadata with `event`'s over it.
    func metadata(merging event: LogEvent) -> Logger.Metadata {
        guard let extra = event.metadata else { return metadata }
        return metadata.merging(extra) { $1 }
    }
}
