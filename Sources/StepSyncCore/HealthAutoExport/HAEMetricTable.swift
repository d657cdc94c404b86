/// The one table from Health Auto Export's metric names to HealthKit types, and its units to HealthKit's.
///
/// A name the table does not hold is kept under a type of its own, `HealthAutoExport.<name>` (characters other than
/// letters, digits, `_` and `.` become `_`), and reported, never dropped. `heart_rate`, `blood_pressure` and
/// `sleep_analysis` have shapes of their own (``HAEPayloadReader``). The table is listed in `Planning/sink.md`.
public enum HAEMetricTable {
    /// The HealthKit type of each metric name the app writes.
    public static let types: [String: SampleType] = {
        let quantity: [String: String] = [
            "step_count": "StepCount", "heart_rate": "HeartRate", "resting_heart_rate": "RestingHeartRate",
            "walking_heart_rate_average": "WalkingHeartRateAverage",
            "heart_rate_variability": "HeartRateVariabilitySDNN", "blood_oxygen_saturation": "OxygenSaturation",
            "respiratory_rate": "RespiratoryRate", "vo2_max": "VO2Max", "weight_body_mass": "BodyMass",
            "body_mass_index": "BodyMassIndex", "body_fat_percentage": "BodyFatPercentage",
            "lean_body_mass": "LeanBodyMass", "height": "Height", "active_energy": "ActiveEnergyBurned",
            "basal_energy_burned": "BasalEnergyBurned", "apple_exercise_time": "AppleExerciseTime",
            "apple_stand_time": "AppleStandTime", "walking_running_distance": "DistanceWalkingRunning",
            "cycling_distance": "DistanceCycling", "swimming_distance": "DistanceSwimming",
            "flights_climbed": "FlightsClimbed", "walking_speed": "WalkingSpeed",
            "walking_step_length": "WalkingStepLength", "walking_asymmetry_percentage": "WalkingAsymmetryPercentage",
            "walking_double_support_percentage": "WalkingDoubleSupportPercentage",
            "six_minute_walking_test_distance": "SixMinuteWalkTestDistance", "stair_speed_up": "StairAscentSpeed",
            "stair_speed_down": "StairDescentSpeed", "headphone_audio_exposure": "HeadphoneAudioExposure",
            "environmental_audio_exposure": "EnvironmentalAudioExposure", "time_in_daylight": "TimeInDaylight",
            "physical_effort": "PhysicalEffort", "apple_sleeping_wrist_temperature": "AppleSleepingWristTemperature",
            "body_temperature": "BodyTemperature", "blood_glucose": "BloodGlucose",
            "carbohydrates": "DietaryCarbohydrates", "protein": "DietaryProtein", "fiber": "DietaryFiber",
            "sodium": "DietarySodium", "potassium": "DietaryPotassium", "total_fat": "DietaryFatTotal",
            "saturated_fat": "DietaryFatSaturated", "monounsaturated_fat": "DietaryFatMonounsaturated",
            "polyunsaturated_fat": "DietaryFatPolyunsaturated", "cholesterol": "DietaryCholesterol",
            "dietary_sugar": "DietarySugar", "dietary_energy": "DietaryEnergyConsumed",
            "dietary_water": "DietaryWater", "dietary_caffeine": "DietaryCaffeine", "calcium": "DietaryCalcium",
            "iron": "DietaryIron", "magnesium": "DietaryMagnesium", "zinc": "DietaryZinc",
            "vitamin_c": "DietaryVitaminC", "vitamin_d": "DietaryVitaminD",
        ]
        var table = quantity.mapValues { SampleType("HKQuantityTypeIdentifier" + $0) }
        table["sleep_analysis"] = .sleepAnalysis
        return table
    }()

    /// Blood pressure's two types.
    public static let systolic = SampleType("HKQuantityTypeIdentifierBloodPressureSystolic")
    /// Blood pressure's two types.
    public static let diastolic = SampleType("HKQuantityTypeIdentifierBloodPressureDiastolic")

    /// The type of `name`, and whether the table knew it.
    public static func type(of name: String) -> (type: SampleType, known: Bool) {
        if let type = types[name] { return (type, true) }
        let cleaned = String(decoding: name.utf8.prefix(96).map { c -> UInt8 in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2E
                ? c : 0x5F
        }, as: UTF8.self)
        return (SampleType("HealthAutoExport." + (cleaned.isEmpty ? "_" : cleaned)), false)
    }

    /// HealthKit's unit for the app's `units` and the factor a value is multiplied by: `bpm` → `count/min`,
    /// `%` → `%` as a fraction (97 → 0.97, as HealthKit stores oxygen saturation), `hr` → `hr`, others unchanged.
    public static func unit(_ units: String) -> (unit: String, factor: Double) {
        switch units {
        case "bpm": ("count/min", 1)
        case "%": ("%", 0.01)
        case "": ("count", 1)
        default: (String(units.prefix(64)), 1)
        }
    }
}
