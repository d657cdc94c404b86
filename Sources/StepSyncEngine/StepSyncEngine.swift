// The sync engine lands here (issue 5).
