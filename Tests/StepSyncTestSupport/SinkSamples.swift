import AsyncHTTPClient
import Foundation
import NIOCore
import StepSyncCore

/// Reads a sink's samples of one type back through `GET /samples?type=T` pages, as any client would.
public enum SinkSamples {
    /// Every sample of `type` the sink on `port` holds, as JSON objects, in the sink's order.
    public static func stored(port: Int, type: SampleType) async throws -> [[String: Any]] {
        var samples: [[String: Any]] = []
        var cursor: String?
        repeat {
            var url = "http://127.0.0.1:\(port)/samples?type=\(type.rawValue)&limit=1000"
            if let cursor { url += "&cursor=\(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? cursor)" }
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 64 << 20)
            guard response.status.code == 200,
                  let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
                  let page = object["samples"] as? [[String: Any]]
            else { throw SinkHarness.HarnessError(message: "GET /samples answered \(response.status): \(String(buffer: body))") }
            samples += page
            cursor = object["nextCursor"] as? String
        } while cursor != nil
        return samples
    }

    /// The uuids of `samples`; fails on a uuid seen twice.
    public static func uuids(_ samples: [[String: Any]]) throws -> Set<UUID> {
        var uuids = Set<UUID>()
        for sample in samples {
            guard let text = sample["uuid"] as? String, let uuid = UUID(uuidString: text) else {
                throw SinkHarness.HarnessError(message: "a sample without a uuid: \(sample)")
            }
            guard uuids.insert(uuid).inserted else { throw SinkHarness.HarnessError(message: "uuid \(uuid) stored twice") }
        }
        return uuids
    }
}
