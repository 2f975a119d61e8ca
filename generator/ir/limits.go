package ir

import "fmt"

// Defaults for Limits.
const (
	// DefaultMaxTools is the most tools one package is generated from.
	DefaultMaxTools = 10000
	// DefaultMaxSchemaDepth is how deeply schemas may nest, counting every
	// property, item, map value, union branch and $ref step on the way
	// down. The Gemini declarations have the same limit.
	DefaultMaxSchemaDepth = 64
)

// Limits bound what Build accepts from a snapshot, so that a hostile or
// broken server cannot make generation run away. A zero field takes its
// default.
type Limits struct {
	MaxTools       int
	MaxSchemaDepth int
}

func (l Limits) withDefaults() Limits {
	if l.MaxTools <= 0 {
		l.MaxTools = DefaultMaxTools
	}
	if l.MaxSchemaDepth <= 0 {
		l.MaxSchemaDepth = DefaultMaxSchemaDepth
	}
	return l
}

// TooManyToolsError reports a tool list over Limits.MaxTools.
type TooManyToolsError struct {
	Count, Limit int
}

func (e *TooManyToolsError) Error() string {
	return fmt.Sprintf("the snapshot lists %d tools, more than the limit of %d", e.Count, e.Limit)
}
