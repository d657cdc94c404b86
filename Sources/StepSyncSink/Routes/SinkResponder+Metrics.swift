import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /metrics`: the sink's figures in Prometheus' text format (``SinkMetrics``).
extension SinkResponder {
    /// The operator's routes.
    static let metricsRoutes: [SinkRoute] = [
        .operatorRead("/metrics") { responder, _ in await responder.metricsAnswer() },
    ]

    /// The exposition, with the storage's state, its pool and the process' figures read now.
    func metricsAnswer() async -> Response {
        let text = metrics.exposition(health: await storage.health(), pool: storage.poolFigures, process: .now())
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: text)))
    }
}
