//go:build !unix

package zoo

import "os"

// Without flock (Windows) the lock is not taken: two builders of one zoo folder are not kept
// apart there.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlockFile(*os.File) {}

// lockHeld is false: no lock is taken here.
func lockHeld(string) bool { return false }
