/// Small helpers of the importer's fuzz oracles (the core oracles' `FuzzText` lives in another test target).
enum ImportFuzzText {
    /// The first 120 Unicode scalars of `text`, for a problem's description.
    static func head(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(120)))
    }
}
