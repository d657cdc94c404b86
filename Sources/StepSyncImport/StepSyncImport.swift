// The Apple Health importer lands here (issue 6).
