// Package e2e is ckpt's end-to-end suite: it builds the real ckpt and ckptd
// binaries once (TestMain), and drives them on temporary workspaces the way
// people, scripts and agent runtimes do, checking the disk byte for byte.
//
// Every test runs twice, as the subtests "embedded" (no daemon: each ckpt
// command opens the store and reconciles by scanning) and "daemon" (ckptd
// watch runs in the background on the same state directory and is stopped
// with SIGTERM when the test ends). Each test is one of CONTRACT.md's
// "Semantics that must hold", or the runtime acceptance list for runs and
// tool windows.
//
// State is isolated: each workspace lives in its own temporary directory
// with its own CKPT_STATE_DIR, HOME and XDG_* directories, and a sibling
// "outside" directory that the suite checks is never written. Nothing
// outside the temporary directories is touched, and no daemon outlives its
// test.
//
// Run it with
//
//	go test ./cmd/e2e/
//
// -run 'TestX/embedded' or 'TestX/daemon' selects one mode. The daemon
// subtests are skipped, with the reason, only when cmd/ckptd does not exist;
// a ckptd that fails to build or start fails them. TestMain stats every Go
// source file of the module, so that go test's cache notices a change in
// the code under test even though it reaches the test only through the
// binaries.
package e2e
