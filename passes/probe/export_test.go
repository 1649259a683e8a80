package probe

// resetStopping undoes KillAll, for tests that call it in a loop.
func resetStopping() {
	running.Lock()
	running.stopping = false
	running.Unlock()
}
