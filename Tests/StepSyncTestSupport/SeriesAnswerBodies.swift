/// The series endpoints' answers as a stranger's JSON decoder reads them (the core's answer tests and the sink's).

/// The route answer, read with JSONDecoder.
public struct RouteFeatureBody: Decodable, Sendable {
    public struct Geometry: Decodable, Sendable {
        public var type: String
        public var coordinates: [[Double]]
    }

    public struct Properties: Decodable, Sendable {
        public var workout: String
        public var file: String?
        public var points: Int
        public var times: [String]
        public var speeds: [Double?]
        public var courses: [Double?]
        public var horizontalAccuracies: [Double?]
        public var verticalAccuracies: [Double?]
        public var complete: Bool
        public var missingParts: [Int]
    }

    public var type: String
    public var geometry: Geometry
    public var properties: Properties
}

/// The voltages of an ECG answer, read with JSONDecoder.
public struct MicrovoltsBody: Decodable, Sendable {
    public var microvolts: [Double]
}
