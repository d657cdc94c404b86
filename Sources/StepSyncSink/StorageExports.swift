// The storage port the sink serves from (`SampleStorage` and its values), re-exported so that a user of the sink
// needs one import.
@_exported import StepSyncStorage
