// The Hummingbird sink lands here (issue 4).
