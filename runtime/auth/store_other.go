//go:build !unix

package auth

// openNoFollow is 0 where open has no such flag: FileStore checks with
// Lstat instead.
const openNoFollow = 0
