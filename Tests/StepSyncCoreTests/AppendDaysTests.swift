import Testing
@testable import StepSyncCore

@Suite("AppendDays: the days generate --append-days adds")
struct AppendDaysTests {
    static let today = CivilDate(year: 2026, month: 11, day: 23)

    @Test("The N days after the last day, when they are all before today")
    func whole() throws {
        let plan = try AppendDays(after: CivilDate(year: 2026, month: 10, day: 30), count: 3, today: Self.today, allowFuture: false)
        #expect(plan.days == CivilDate(year: 2026, month: 10, day: 31)...CivilDate(year: 2026, month: 11, day: 2))
        #expect(!plan.isClipped && plan.requested == 3)
    }

    @Test("Days after today are left out: 30 asked for three days before today give those three, up to today")
    func clipped() throws {
        let plan = try AppendDays(after: CivilDate(year: 2026, month: 11, day: 20), count: 30, today: Self.today, allowFuture: false)
        #expect(plan.days == CivilDate(year: 2026, month: 11, day: 21)...Self.today)
        #expect(plan.isClipped && plan.requested == 30 && plan.days.count == 3)
    }

    @Test("A history that reaches today (or later) gets no day, and the error names its last day and today", arguments: [
        (CivilDate(year: 2026, month: 11, day: 23), "already reaches today, 2026-11-23 (UTC): its last day is 2026-11-23"),
        (CivilDate(year: 2027, month: 1, day: 5), "already reaches 2027-01-05, after today (2026-11-23, UTC)"),
    ])
    func reachesToday(_ last: CivilDate, _ message: String) {
        #expect {
            try AppendDays(after: last, count: 30, today: Self.today, allowFuture: false)
        } throws: { error in
            let text = (error as? AppendDaysError)?.description ?? ""
            return text.contains(message) && text.contains("--allow-future") && text.contains("Nothing was generated")
        }
    }

    @Test("--allow-future lets the days run past today")
    func allowFuture() throws {
        let plan = try AppendDays(after: Self.today, count: 3, today: Self.today, allowFuture: true)
        #expect(plan.days == CivilDate(year: 2026, month: 11, day: 24)...CivilDate(year: 2026, month: 11, day: 26))
        #expect(!plan.isClipped)
    }
}
