/// Small helpers of the fuzz oracles.
enum FuzzText {
    /// `bytes` as a string when they are valid UTF-8, else `nil`.
    static func validUTF8(_ bytes: some Collection<UInt8>) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    /// The first 120 Unicode scalars of `text`, for a problem's description.
    static func head(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(120)))
    }
}
