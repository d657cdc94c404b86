/// The numeric codes of HealthKit category values, as exports spell them (`HKCategoryValueSleepAnalysisAsleepCore`).
///
/// Codes are HealthKit's own raw values, so a stored sleep sample means what it would on the phone.
enum CategoryValue {
    /// The code of `label`, or `nil` when it is not a label this table knows.
    static func code(of label: String) -> Double? {
        codes[label]
    }

    private static let codes: [String: Double] = [
        // HKCategoryValueSleepAnalysis
        "HKCategoryValueSleepAnalysisInBed": 0,
        "HKCategoryValueSleepAnalysisAsleep": 1,
        "HKCategoryValueSleepAnalysisAsleepUnspecified": 1,
        "HKCategoryValueSleepAnalysisAwake": 2,
        "HKCategoryValueSleepAnalysisAsleepCore": 3,
        "HKCategoryValueSleepAnalysisAsleepDeep": 4,
        "HKCategoryValueSleepAnalysisAsleepREM": 5,
        // HKCategoryValue (mindful sessions, heart events, …)
        "HKCategoryValueNotApplicable": 0,
        // HKCategoryValueAppleStandHour
        "HKCategoryValueAppleStandHourStood": 0,
        "HKCategoryValueAppleStandHourIdle": 1,
        // HKCategoryValueSeverity (symptoms)
        "HKCategoryValueSeverityUnspecified": 0,
        "HKCategoryValueSeverityNotPresent": 1,
        "HKCategoryValueSeverityMild": 2,
        "HKCategoryValueSeverityModerate": 3,
        "HKCategoryValueSeveritySevere": 4,
        // HKCategoryValuePresence
        "HKCategoryValuePresencePresent": 0,
        "HKCategoryValuePresenceNotPresent": 1,
        // HKCategoryValueMenstrualFlow
        "HKCategoryValueMenstrualFlowUnspecified": 1,
        "HKCategoryValueMenstrualFlowLight": 2,
        "HKCategoryValueMenstrualFlowMedium": 3,
        "HKCategoryValueMenstrualFlowHeavy": 4,
        "HKCategoryValueMenstrualFlowNone": 5,
        // HKCategoryValueOvulationTestResult
        "HKCategoryValueOvulationTestResultNegative": 1,
        "HKCategoryValueOvulationTestResultLuteinizingHormoneSurge": 2,
        "HKCategoryValueOvulationTestResultPositive": 2,
        "HKCategoryValueOvulationTestResultIndeterminate": 3,
        "HKCategoryValueOvulationTestResultEstrogenSurge": 4,
        // Audio exposure and cardio fitness events
        "HKCategoryValueEnvironmentalAudioExposureEventMomentaryLimit": 1,
        "HKCategoryValueHeadphoneAudioExposureEventSevenDayLimit": 1,
        "HKCategoryValueLowCardioFitnessEventLowFitness": 1,
        // HKCategoryValueAppetiteChanges
        "HKCategoryValueAppetiteChangesUnspecified": 0,
        "HKCategoryValueAppetiteChangesNoChange": 1,
        "HKCategoryValueAppetiteChangesDecreased": 2,
        "HKCategoryValueAppetiteChangesIncreased": 3,
    ]
}
