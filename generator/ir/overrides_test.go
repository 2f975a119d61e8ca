package ir

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/snapshot"
)

const overrideTools = `[{"name":"vol","inputSchema":{"type":"object","properties":{
	"level":{"type":"integer","minimum":0,"maximum":200},
	"big":{"type":["integer","null"]},
	"ratio":{"type":"number"},
	"mode":{"enum":["a","b"]},
	"Level2":{"type":"string"}},"required":["level"]}}]`

func buildOverrides(t *testing.T, o map[string]Override) (*Package, error) {
	t.Helper()
	s, err := snapshot.Read("t.json", []byte(overrideTools))
	if err != nil {
		t.Fatal(err)
	}
	return BuildOptions(s.Tools, Options{Overrides: o})
}

func TestOverrides(t *testing.T) {
	pkg, err := buildOverrides(t, map[string]Override{
		"vol#/inputSchema/properties/level": {GoName: "Volume", GoType: "uint8"},
		"vol#/inputSchema/properties/big":   {GoType: "int"},
		"vol#/inputSchema/properties/mode":  {GoName: "Choice"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range pkg.Tools[0].Args.Fields {
		typ := f.Type.Underlying().GoType
		got = append(got, f.GoName+":"+typ)
	}
	if want := "Volume:uint8 Big:int Ratio: Choice: Level2:"; strings.Join(got, " ") != want {
		t.Errorf("fields = %s, want %s", strings.Join(got, " "), want)
	}
}

func TestOverrideErrors(t *testing.T) {
	const p = "vol#/inputSchema/properties/"
	for _, tc := range []struct {
		name string
		o    map[string]Override
		want string
	}{
		{"no property", map[string]Override{p + "volume": {GoName: "V"}}, `override vol#/inputSchema/properties/volume: tool "vol" has no property at /inputSchema/properties/volume`},
		{"no tool", map[string]Override{"other#/inputSchema/properties/level": {GoName: "V"}}, `tool "other" has no property`},
		{"no pointer", map[string]Override{"vol": {GoName: "V"}}, `override vol: want the tool name, "#" and a JSON pointer`},
		{"unexported name", map[string]Override{p + "level": {GoName: "volume"}}, `Go name "volume" is not an exported Go identifier`},
		{"unknown type", map[string]Override{p + "level": {GoType: "time.Duration"}}, `Go type "time.Duration" is not one of int`},
		{"empty", map[string]Override{p + "level": {}}, "sets neither a Go name nor a Go type"},
		{"number", map[string]Override{p + "ratio": {GoType: "int"}}, "only be given to an integer property, not to this number"},
		{"enum", map[string]Override{p + "mode": {GoType: "int"}}, "not to this enum"},
		{"does not fit", map[string]Override{p + "level": {GoType: "int8"}}, "the schema's maximum 200 does not fit in int8"},
		{"needs bounds", map[string]Override{p + "big": {GoType: "int32"}}, "int32 needs the schema to set a minimum of at least -2147483648"},
		{"unsigned needs minimum", map[string]Override{p + "big": {GoType: "uint"}}, "uint needs the schema to set a minimum of at least 0"},
		{"name taken", map[string]Override{p + "level": {GoName: "Ratio"}, p + "ratio": {GoName: "Ratio"}}, "Go name Ratio is taken"},
		{"another property's name", map[string]Override{p + "mode": {GoName: "Level2"}}, "override vol#/inputSchema/properties/mode: Go name Level2 is the field name of property Level2 of VolArgs"},
		{"method name", map[string]Override{p + "level": {GoName: "Validate"}}, "Go name Validate is taken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := buildOverrides(t, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
}
