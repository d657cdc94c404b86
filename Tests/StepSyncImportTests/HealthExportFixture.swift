import Foundation
import Testing
import ZIPFoundation

/// Builds Apple Health exports in their real format (DTD and all) for the tests.
enum HealthExportFixture {
    /// The export's header, as iOS writes it for a given export version.
    enum Header {
        /// iOS 13–15: `HealthKit Export Version: 11`.
        case v11
        /// iOS 17: `HealthKit Export Version: 14`.
        case v14
        /// iOS 16: version 12 whose `<!ATTLIST VisionPrescription` lacks its closing `>`, so strict XML parsers stop at
        /// line 156 ("syntax error"). As reported from real exports in fedecalendino/apple-health#1 and
        /// k0rventen/apple-health-grafana#14 (which quotes the header: `HealthKit Export Version: 12`).
        case iOS16Broken
    }

    static let iPhone = "&lt;&lt;HKDevice: 0x283a1c0a0&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone12,1, software:16.5&gt;"
    static let watch = "&lt;&lt;HKDevice: 0x283a1c3c0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:9.5&gt;"

    /// A `<Record …/>` line.
    static func record(
        _ type: String, source: String = "iPhone", version: String = "16.5", device: String? = iPhone,
        unit: String? = "count", value: String, start: String, end: String, created: String? = nil,
        children: String? = nil
    ) -> String {
        var attributes = "type=\"\(type)\" sourceName=\"\(source)\" sourceVersion=\"\(version)\""
        if let device { attributes += " device=\"\(device)\"" }
        if let unit { attributes += " unit=\"\(unit)\"" }
        attributes += " creationDate=\"\(created ?? end)\" startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(value)\""
        guard let children else { return " <Record \(attributes)/>\n" }
        return " <Record \(attributes)>\n\(children)\n </Record>\n"
    }

    /// A whole export document: header for `header`, then `body`, then `</HealthData>`.
    static func document(_ header: Header, body: String, close: Bool = true) -> String {
        prolog(header) + body + (close ? "</HealthData>\n" : "")
    }

    static func prolog(_ header: Header) -> String {
        let version: Int
        switch header {
        case .v11: version = 11
        case .v14: version = 14
        case .iOS16Broken: version = 12
        }
        let visionV14 = """
            <!ELEMENT VisionPrescription ((RightEye|LeftEye|MetadataEntry)*)>
            <!ATTLIST VisionPrescription
              type             CDATA #REQUIRED
              dateIssued       CDATA #REQUIRED
              expirationDate   CDATA #IMPLIED
              brand            CDATA #IMPLIED
            >
            <!ELEMENT RightEye EMPTY>
            <!ATTLIST RightEye
              sphere           CDATA #IMPLIED
              sphereUnit       CDATA #IMPLIED
            >

            """
        let vision: String
        switch header {
        case .v11: vision = ""
        case .v14: vision = visionV14
        case .iOS16Broken:
            // iOS 16's bug: VisionPrescription's ATTLIST is never closed, and expirationDate is required.
            vision = visionV14
                .replacingOccurrences(of: "expirationDate   CDATA #IMPLIED", with: "expirationDate   CDATA #REQUIRED")
                .replacingOccurrences(of: "brand            CDATA #IMPLIED\n>\n", with: "brand            CDATA #IMPLIED\n\n")
        }
        let me = version >= 13
            ? #"HKCharacteristicTypeIdentifierDateOfBirth="1985-04-12" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None""#
            : #"HKCharacteristicTypeIdentifierDateOfBirth="1985-04-12" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet""#
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE HealthData [
            <!-- HealthKit Export Version: \(version) -->
            <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
            <!ATTLIST HealthData
              locale CDATA #REQUIRED
            >
            <!ELEMENT ExportDate EMPTY>
            <!ATTLIST ExportDate
              value CDATA #REQUIRED
            >
            <!ELEMENT Me EMPTY>
            <!ATTLIST Me
              HKCharacteristicTypeIdentifierDateOfBirth                   CDATA #REQUIRED
              HKCharacteristicTypeIdentifierBiologicalSex                 CDATA #REQUIRED
              HKCharacteristicTypeIdentifierBloodType                     CDATA #REQUIRED
              HKCharacteristicTypeIdentifierFitzpatrickSkinType           CDATA #REQUIRED
            >
            <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
            <!ATTLIST Record
              type          CDATA #REQUIRED
              unit          CDATA #IMPLIED
              value         CDATA #IMPLIED
              sourceName    CDATA #REQUIRED
              sourceVersion CDATA #IMPLIED
              device        CDATA #IMPLIED
              creationDate  CDATA #IMPLIED
              startDate     CDATA #REQUIRED
              endDate       CDATA #REQUIRED
            >
            <!-- Note: Any Records that appear as children of a correlation also appear as top-level records in this document. -->
            <!ELEMENT Correlation ((MetadataEntry|Record)*)>
            <!ATTLIST Correlation
              type          CDATA #REQUIRED
              sourceName    CDATA #REQUIRED
              sourceVersion CDATA #IMPLIED
              device        CDATA #IMPLIED
              creationDate  CDATA #IMPLIED
              startDate     CDATA #REQUIRED
              endDate       CDATA #REQUIRED
            >
            <!ELEMENT Workout ((MetadataEntry|WorkoutEvent|WorkoutRoute|WorkoutStatistics)*)>
            <!ATTLIST Workout
              workoutActivityType   CDATA #REQUIRED
              duration              CDATA #IMPLIED
              durationUnit          CDATA #IMPLIED
              sourceName            CDATA #REQUIRED
              sourceVersion         CDATA #IMPLIED
              device                CDATA #IMPLIED
              creationDate          CDATA #IMPLIED
              startDate             CDATA #REQUIRED
              endDate               CDATA #REQUIRED
            >
            <!ELEMENT ActivitySummary EMPTY>
            <!ATTLIST ActivitySummary
              dateComponents           CDATA #IMPLIED
              activeEnergyBurned       CDATA #IMPLIED
              activeEnergyBurnedGoal   CDATA #IMPLIED
              activeEnergyBurnedUnit   CDATA #IMPLIED
              appleExerciseTime        CDATA #IMPLIED
              appleStandHours          CDATA #IMPLIED
            >
            <!ELEMENT MetadataEntry EMPTY>
            <!ATTLIST MetadataEntry
              key   CDATA #REQUIRED
              value CDATA #REQUIRED
            >
            \(vision)]>
            <HealthData locale="en_GB">
             <ExportDate value="2023-05-11 16:27:22 +0200"/>
             <Me \(me)/>

            """
    }

    /// An `<Audiogram>` with one `SensitivityPoint` per (frequency, left dB, right dB), as iOS 14+ writes them.
    static func audiogram(start: String, end: String, points: [(Int, Int, Int)]) -> String {
        var text = " <Audiogram type=\"HKDataTypeIdentifierAudiogram\" sourceName=\"Mimi Hearing Test\" sourceVersion=\"5.3\" creationDate=\"\(end)\" startDate=\"\(start)\" endDate=\"\(end)\">\n"
        for (frequency, left, right) in points {
            text += "  <SensitivityPoint frequencyValue=\"\(frequency)\" frequencyUnit=\"Hz\" leftEarValue=\"\(left)\" leftEarUnit=\"dBHL\" leftEarMasked=\"0\" rightEarValue=\"\(right)\" rightEarUnit=\"dBHL\" rightEarMasked=\"0\"/>\n"
        }
        return text + " </Audiogram>\n"
    }

    /// The text of a file in `Fixtures/` (excerpts of real exports; each names its public source).
    static func real(_ name: String) throws -> String {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// A whole export with the real v14 DTD (`Fixtures/dtd-v14.txt`) and `body`.
    static func realV14(body: String) throws -> String {
        let dtd = try real("dtd-v14.txt")
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        \(dtd)]>
        <HealthData locale="fr_FR">
         <ExportDate value="2025-12-21 09:00:00 +0100"/>
         <Me HKCharacteristicTypeIdentifierDateOfBirth="" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexNotSet" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>
        \(body)</HealthData>

        """
    }

    /// Writes `text` to `name` in `directory` and returns the path.
    static func write(_ text: String, named name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Writes a zip named `name` holding `entries` (path → content), deflated, as the Health app lays it out.
    static func zip(_ entries: [(String, String)], named name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        let archive = try Archive(url: url, accessMode: .create)
        for (path, text) in entries {
            let data = Data(text.utf8)
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count),
                                 compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<min(data.count, Int(position) + size))
            }
        }
        return url.path
    }
}
