package mcpimpl

import (
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime"
)

// checkNesting refuses data, the JSON of a value of type t, when t is
// recursive and data nests deeper than runtime.MaxRecursiveNesting.
func checkNesting(data []byte, t reflect.Type) error {
	if !recursive(t) {
		return nil
	}
	if ptr, ok := jsontree.NestedBeyond(data, runtime.MaxRecursiveNesting); ok {
		return Invalid(ptr, fmt.Sprintf("the value nests more than %d arrays and objects deep, the most a recursive type is decoded to", runtime.MaxRecursiveNesting))
	}
	return nil
}

// recursive reports whether t refers to itself, or reaches a type that
// does, through struct fields and the elements of pointers, slices, arrays
// and maps.
func recursive(t reflect.Type) bool {
	if v, ok := recursiveTypes.Load(t); ok {
		return v.(bool)
	}
	v := cyclic(t, nil, map[reflect.Type]bool{})
	recursiveTypes.Store(t, v)
	return v
}

var recursiveTypes sync.Map // reflect.Type → bool

// cyclic reports whether t is on path, the types followed to reach it, or
// reaches a type on its own path. done holds the types already found to
// reach no cycle.
func cyclic(t reflect.Type, path []reflect.Type, done map[reflect.Type]bool) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map, reflect.Struct:
	default:
		return false
	}
	if slices.Contains(path, t) {
		return true
	}
	if done[t] {
		return false
	}
	path = append(path, t)
	if t.Kind() == reflect.Struct {
		for i := range t.NumField() {
			if cyclic(t.Field(i).Type, path, done) {
				return true
			}
		}
	} else if cyclic(t.Elem(), path, done) {
		return true
	}
	done[t] = true
	return false
}
