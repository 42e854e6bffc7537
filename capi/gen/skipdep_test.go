package main

import "mpix/internal/testdep"

// skipDep is testdep.Skip.
var skipDep = testdep.Skip
