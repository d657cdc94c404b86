/// The sink's contract as OpenAPI 3.1, served at `GET /openapi.json`: every endpoint, parameter, body, answer and
/// error body. The document is `Sources/StepSyncSink/Resources/openapi.json`, compiled into the binary
/// (`.embedInCode` in `Package.swift`). `Tests/StepSyncSinkTests/OpenAPIDocumentTests.swift` holds it to the router
/// (a route without an entry there fails) and sends its examples to a real sink; `.ci/schemathesis` fuzzes a running
/// sink against it.
enum OpenAPIDocument {
    /// The document's UTF-8 bytes, exactly as the file holds them.
    static var bytes: [UInt8] { PackageResources.openapi_json }
}
