package passes_test

// Links the Neural Engine rule model into this package's tests, so that
// strip-fp32-casts.islands=blockers (the default) asks the real element-type
// rule (passes/ane installs it from its init; see analysis.go).
import _ "github.com/anefix/anefix/passes/ane"
