import Testing
@testable import StepSyncCore
