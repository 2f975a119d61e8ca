package mcpimpl

import (
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/mcpgen/mcpgen/internal/jsontree"
	"github.com/mcpgen/mcpgen/runtime"
)

// checkNesting refuses data, the JSON of a value of a type that refers to
// itself (see selfReferent), when it nests deeper than
// runtime.MaxRecursiveNesting.
func checkNesting(data []byte) error {
	if ptr, ok := jsontree.NestedBeyond(data, runtime.MaxRecursiveNesting); ok {
		return Invalid(ptr, fmt.Sprintf("the value nests more than %d arrays and objects deep, the most a recursive type is decoded to", runtime.MaxRecursiveNesting))
	}
	return nil
}

// selfReferent reports whether t refers to itself through struct fields
// and the elements of pointers, slices, arrays and maps, so that its
// values nest as deeply as their JSON does. A type that only holds one
// that does (the arguments of a tool taking a tree) is not: its other
// members, JSON held in a json.RawMessage say, are not bounded.
func selfReferent(t reflect.Type) bool {
	if v, ok := selfReferentTypes.Load(t); ok {
		return v.(bool)
	}
	v := reaches(t, t, map[reflect.Type]bool{})
	selfReferentTypes.Store(t, v)
	return v
}

var selfReferentTypes sync.Map // reflect.Type → bool

// reaches reports whether a type t is made of, through struct fields and
// the elements of pointers, slices, arrays and maps, is target or reaches
// it. seen holds the types already followed.
func reaches(t, target reflect.Type, seen map[reflect.Type]bool) bool {
	var parts []reflect.Type
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		parts = []reflect.Type{t.Elem()}
	case reflect.Struct:
		for i := range t.NumField() {
			parts = append(parts, t.Field(i).Type)
		}
	}
	for _, p := range parts {
		if p == target {
			return true
		}
		if !seen[p] {
			seen[p] = true
			if reaches(p, target, seen) {
				return true
			}
		}
	}
	return false
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
