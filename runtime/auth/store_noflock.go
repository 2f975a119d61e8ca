//go:build !unix || aix || solaris

package auth

import "context"

// lockFile locks nothing where Go has no flock (Windows, AIX, Solaris):
// two processes refreshing one grant at the same moment may then both
// spend its refresh token.
func lockFile(context.Context, string) (func(), error) {
	return func() {}, nil
}
