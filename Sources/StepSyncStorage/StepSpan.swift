import StepSyncCore

/// A stored step-count sample as the daily-totals rule needs it: when, how many, and which device. It is the core's
/// ``DailyStepTotals/Sample`` itself, so a storage's answer feeds the sweep without conversion.
public typealias StepSpan = DailyStepTotals.Sample
