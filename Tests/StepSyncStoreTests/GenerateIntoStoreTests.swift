import Testing
import StepSyncStore
