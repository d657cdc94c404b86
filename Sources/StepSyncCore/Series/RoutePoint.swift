/// One GPS point of a workout route, as Apple Health's GPX files hold it (`<trkpt>` with `<ele>`, `<time>` and the
/// `speed`, `course`, `hAcc`, `vAcc` extensions; older exports have no extensions).
public struct RoutePoint: Hashable, Sendable, Codable {
    /// The instant, UTC ms.
    public var timeMs: Int64
    /// Latitude, degrees (−90…90).
    public var latitude: Double
    /// Longitude, degrees (−180…180).
    public var longitude: Double
    /// Elevation, metres.
    public var elevation: Double?
    /// Speed, m/s.
    public var speed: Double?
    /// Course, degrees from north.
    public var course: Double?
    /// Horizontal accuracy, metres.
    public var horizontalAccuracy: Double?
    /// Vertical accuracy, metres.
    public var verticalAccuracy: Double?

    /// Creates a point.
    public init(timeMs: Int64, latitude: Double, longitude: Double, elevation: Double? = nil, speed: Double? = nil,
                course: Double? = nil, horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil) {
        self.timeMs = timeMs
        self.latitude = latitude
        self.longitude = longitude
        self.elevation = elevation
        self.speed = speed
        self.course = course
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
    }
}
