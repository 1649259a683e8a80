//go:build !(linux && (amd64 || arm64))

package bundle

// renameExchange is unavailable here; commit moves the old output aside
// and renames the new one in, under the signal lock.
func renameExchange(a, b string) (ok bool, err error) { return false, nil }
