package homeassistant

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
	"google.golang.org/genai"
)

// argsTypes lists the Args type of every tool, so that removing one breaks
// compilation.
var argsTypes = map[string]any{
	"GetLiveContext":         GetLiveContextArgs{},
	"HassCancelAllTimers":    HassCancelAllTimersArgs{},
	"HassLightSet":           HassLightSetArgs{},
	"HassListAddItem":        HassListAddItemArgs{},
	"HassMediaNext":          HassMediaNextArgs{},
	"HassMediaPause":         HassMediaPauseArgs{},
	"HassMediaPlayerMute":    HassMediaPlayerMuteArgs{},
	"HassMediaPrevious":      HassMediaPreviousArgs{},
	"HassMediaSearchAndPlay": HassMediaSearchAndPlayArgs{},
	"HassMediaUnpause":       HassMediaUnpauseArgs{},
	"HassSetVolume":          HassSetVolumeArgs{},
	"HassSetVolumeRelative":  HassSetVolumeRelativeArgs{},
	"HassTurnOff":            HassTurnOffArgs{},
	"HassTurnOn":             HassTurnOnArgs{},
	"describe_doorbell":      DescribeDoorbellArgs{},
}

func TestEveryToolIsGenerated(t *testing.T) {
	tools := MCPTools()
	decls := FunctionDeclarations()
	if len(tools) != 15 || len(decls) != 15 || len(DeclaredNames) != 15 || len(argsTypes) != 15 {
		t.Fatalf("got %d tools, %d declarations, %d declared names, %d Args types; want 15 of each",
			len(tools), len(decls), len(DeclaredNames), len(argsTypes))
	}
	for i, tool := range tools {
		if _, ok := argsTypes[tool.Name]; !ok {
			t.Errorf("tool %s has no Args type listed", tool.Name)
		}
		if DeclaredNames[decls[i].Name] != tool.Name {
			t.Errorf("declaration %s maps to %q, want %s", decls[i].Name, DeclaredNames[decls[i].Name], tool.Name)
		}
		if decls[i].Description == "" {
			t.Errorf("declaration %s has an empty description", decls[i].Name)
		}
	}
	if got := runtime.ToolsHash(tools); got != SnapshotHash {
		t.Errorf("SnapshotHash = %s, but the embedded tools hash to %s", SnapshotHash, got)
	}
	if tools := Tools(); len(tools) != 1 || len(tools[0].FunctionDeclarations) != 15 {
		t.Errorf("Tools() = %v, want one tool with 15 declarations", tools)
	}
}

func TestVolumeStepUnion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want func(HassSetVolumeRelativeVolumeStep) bool
	}{
		{`{"volume_step":"up"}`, func(u HassSetVolumeRelativeVolumeStep) bool {
			return u.String != nil && *u.String == HassSetVolumeRelativeVolumeStepStringUp && u.Int == nil
		}},
		{`{"volume_step":-30}`, func(u HassSetVolumeRelativeVolumeStep) bool {
			return u.Int != nil && *u.Int == -30 && u.String == nil
		}},
	} {
		var a HassSetVolumeRelativeArgs
		if err := json.Unmarshal([]byte(tc.in), &a); err != nil {
			t.Fatalf("decoding %s: %v", tc.in, err)
		}
		if a.VolumeStep == nil || !tc.want(*a.VolumeStep) {
			t.Fatalf("decoding %s gave %+v", tc.in, a.VolumeStep)
		}
		if err := a.Validate(); err != nil {
			t.Errorf("Validate(%s) = %v", tc.in, err)
		}
		out, err := json.Marshal(a)
		if err != nil || string(out) != tc.in {
			t.Errorf("round trip of %s gave %s, %v", tc.in, out, err)
		}
		if err := ValidateArguments("HassSetVolumeRelative", []byte(tc.in)); err != nil {
			t.Errorf("ValidateArguments(%s) = %v", tc.in, err)
		}
	}
	for _, in := range []string{`{"volume_step":"sideways"}`, `{"volume_step":150}`} {
		var a HassSetVolumeRelativeArgs
		err := json.Unmarshal([]byte(in), &a)
		var ve *runtime.ValidationError
		if !errors.As(err, &ve) || ve.Reason == "" {
			t.Errorf("decoding %s: error %v, want a *runtime.ValidationError", in, err)
		}
		if err := ValidateArguments("HassSetVolumeRelative", []byte(in)); !errors.As(err, &ve) || ve.Pointer != "/volume_step" {
			t.Errorf("ValidateArguments(%s) = %v, want an error at /volume_step", in, err)
		}
	}
	// Values built in Go are checked the same way.
	bad := HassSetVolumeRelativeVolumeStepString("sideways")
	a := HassSetVolumeRelativeArgs{VolumeStep: &HassSetVolumeRelativeVolumeStep{String: &bad}}
	var ve *runtime.ValidationError
	if err := a.Validate(); !errors.As(err, &ve) || ve.Pointer != "/volume_step" || ve.Tool != "HassSetVolumeRelative" {
		t.Errorf("Validate of a sideways step = %v, want an error at /volume_step naming the tool", err)
	}
	big := int64(150)
	a = HassSetVolumeRelativeArgs{VolumeStep: &HassSetVolumeRelativeVolumeStep{Int: &big}}
	if err := a.Validate(); !errors.As(err, &ve) || ve.Pointer != "/volume_step" {
		t.Errorf("Validate of a step of 150 = %v, want an error at /volume_step", err)
	}
}

func TestDeviceClassIsASliceOfAnEnum(t *testing.T) {
	f, ok := reflect.TypeOf(HassSetVolumeArgs{}).FieldByName("DeviceClass")
	if !ok {
		t.Fatal("HassSetVolumeArgs has no DeviceClass field")
	}
	if f.Type != reflect.TypeOf([]DeviceClass(nil)) || f.Type.Elem().Kind() != reflect.String {
		t.Fatalf("DeviceClass is a %s, want []DeviceClass of kind string", f.Type)
	}
	if !DeviceClassSpeaker.Valid() || DeviceClass("toaster").Valid() {
		t.Error("Valid does not follow the enum")
	}
	a := HassSetVolumeArgs{DeviceClass: []DeviceClass{DeviceClassTv, "toaster"}}
	var ve *runtime.ValidationError
	if err := a.Validate(); !errors.As(err, &ve) || ve.Pointer != "/device_class/1" || ve.Tool != "HassSetVolume" {
		t.Errorf("Validate = %v, want an error of HassSetVolume at /device_class/1", err)
	}
}

// TestDeviceClassIsOneType checks that the media tools, whose device_class
// and domain enums are identical, share one Go type for each, while the
// tools whose enums hold other values keep types of their own.
func TestDeviceClassIsOneType(t *testing.T) {
	media := []any{HassMediaNextArgs{}, HassMediaPauseArgs{}, HassMediaPlayerMuteArgs{}, HassMediaPreviousArgs{},
		HassMediaSearchAndPlayArgs{}, HassMediaUnpauseArgs{}, HassSetVolumeArgs{}, HassSetVolumeRelativeArgs{}}
	for _, args := range media {
		typ := reflect.TypeOf(args)
		for field, want := range map[string]reflect.Type{"DeviceClass": reflect.TypeOf([]DeviceClass(nil)), "Domain": reflect.TypeOf([]Domain(nil))} {
			f, ok := typ.FieldByName(field)
			if !ok || f.Type != want {
				t.Errorf("%s.%s is %v, want %v", typ.Name(), field, f.Type, want)
			}
		}
	}
	on, _ := reflect.TypeOf(HassTurnOnArgs{}).FieldByName("DeviceClass")
	off, _ := reflect.TypeOf(HassTurnOffArgs{}).FieldByName("DeviceClass")
	if on.Type != off.Type || on.Type == reflect.TypeOf([]DeviceClass(nil)) {
		t.Errorf("HassTurnOn and HassTurnOff have device classes %v and %v, want one type other than []DeviceClass", on.Type, off.Type)
	}
	light, _ := reflect.TypeOf(HassLightSetArgs{}).FieldByName("Domain")
	if light.Type != reflect.TypeOf([]HassLightSetDomain(nil)) {
		t.Errorf("HassLightSetArgs.Domain is %v, want []HassLightSetDomain", light.Type)
	}
}

func TestDescribeDoorbell(t *testing.T) {
	if err := (&DescribeDoorbellArgs{}).Validate(); err != nil {
		t.Errorf("Validate = %v", err)
	}
	for _, d := range FunctionDeclarations() {
		if DeclaredNames[d.Name] != "describe_doorbell" {
			continue
		}
		if d.Parameters != nil || d.ParametersJsonSchema != nil {
			t.Errorf("describe_doorbell declares parameters: %+v", d.Parameters)
		}
		if strings.TrimSpace(d.Description) == "" {
			t.Error("describe_doorbell has an empty description")
		}
		return
	}
	t.Error("no declaration for describe_doorbell")
}

// TestEveryFieldIsOptional checks that, as no Home Assistant tool has
// required properties, every field can be left out.
func TestEveryFieldIsOptional(t *testing.T) {
	for name, v := range argsTypes {
		typ := reflect.TypeOf(v)
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if !f.IsExported() {
				continue // the blank mcpimpl.DoNotCompare
			}
			switch f.Type.Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Map:
			default:
				t.Errorf("%s.%s is a %s, want a pointer, slice or map", name, f.Name, f.Type)
			}
			if tag := f.Tag.Get("json"); !strings.HasSuffix(tag, ",omitempty") && !strings.HasSuffix(tag, ",omitzero") {
				t.Errorf("%s.%s has tag %q, want omitempty or omitzero", name, f.Name, f.Tag)
			}
		}
		if err := reflect.New(typ).Interface().(interface{ Validate() error }).Validate(); err != nil {
			t.Errorf("the zero %s is invalid: %v", name, err)
		}
	}
}

type fakeCaller struct {
	calls  []string
	result *runtime.Result
}

func (f *fakeCaller) CallTool(ctx context.Context, name string, args any) (*runtime.Result, error) {
	data, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	f.calls = append(f.calls, name+" "+string(data))
	return f.result, nil
}

func TestClient(t *testing.T) {
	ctx := context.Background()
	fc := &fakeCaller{result: &runtime.Result{Content: []runtime.Content{{Type: runtime.ContentText, Text: "done"}}}}
	c := NewClient(fc)
	level := int64(150)
	if _, err := c.HassSetVolume(ctx, HassSetVolumeArgs{VolumeLevel: &level}); err == nil || len(fc.calls) != 0 {
		t.Fatalf("invalid arguments: err %v, calls %v; want an error and no call", err, fc.calls)
	}
	level = 30
	res, err := c.HassSetVolume(ctx, HassSetVolumeArgs{VolumeLevel: &level})
	if err != nil || res.Text() != "done" {
		t.Fatalf("HassSetVolume = %v, %v", res, err)
	}
	if want := `HassSetVolume {"volume_level":30}`; len(fc.calls) != 1 || fc.calls[0] != want {
		t.Errorf("calls = %q, want %q", fc.calls, want)
	}
	fc.result = &runtime.Result{IsError: true, Content: []runtime.Content{{Type: runtime.ContentText, Text: "no such device"}}}
	_, err = c.HassTurnOn(ctx, HassTurnOnArgs{})
	var te *runtime.ToolError
	if !errors.As(err, &te) || te.Tool != "HassTurnOn" {
		t.Errorf("a failed tool gave %v, want a *runtime.ToolError", err)
	}
}

func TestValidateDoesNotAllocate(t *testing.T) {
	level, name := int64(30), "Kitchen"
	a := HassSetVolumeArgs{Name: &name, VolumeLevel: &level, DeviceClass: []DeviceClass{DeviceClassSpeaker}}
	step := int64(-10)
	r := HassSetVolumeRelativeArgs{VolumeStep: &HassSetVolumeRelativeVolumeStep{Int: &step}}
	if n := testing.AllocsPerRun(100, func() {
		if a.Validate() != nil || r.Validate() != nil {
			t.Fatal("valid arguments failed validation")
		}
	}); n != 0 {
		t.Errorf("Validate allocates %v times per run, want 0", n)
	}
}

func benchArgs() (HassSetVolumeArgs, []byte) {
	level, name := int64(30), "Kitchen"
	a := HassSetVolumeArgs{Name: &name, VolumeLevel: &level, DeviceClass: []DeviceClass{DeviceClassSpeaker}}
	raw, _ := json.Marshal(a)
	return a, raw
}

// BenchmarkValidate measures the generated Validate on valid arguments.
func BenchmarkValidate(b *testing.B) {
	a, _ := benchArgs()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := a.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnmarshal measures decoding valid arguments a model produced
// into the generated types: an object with an enum array, and a union.
func BenchmarkUnmarshal(b *testing.B) {
	_, raw := benchArgs()
	rel := []byte(`{"name":"Kitchen","volume_step":-10}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var a HassSetVolumeArgs
		var r HassSetVolumeRelativeArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal(rel, &r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateArguments measures the raw JSON Schema validator on the
// same arguments, for comparison.
func BenchmarkValidateArguments(b *testing.B) {
	_, raw := benchArgs()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := ValidateArguments("HassSetVolume", raw); err != nil {
			b.Fatal(err)
		}
	}
}

// TestIntegralNumbers checks that integer arguments written with a fraction
// or an exponent, as models sometimes write them, decode when their value
// is an integer, as the server's JSON Schema validation accepts them.
func TestIntegralNumbers(t *testing.T) {
	var light HassLightSetArgs
	if err := json.Unmarshal([]byte(`{"name":"Desk","brightness":50.0}`), &light); err != nil || light.Brightness == nil || *light.Brightness != 50 {
		t.Errorf("brightness 50.0: %v, %+v", err, light.Brightness)
	}
	if err := json.Unmarshal([]byte(`{"brightness":5e1,"name":"1.5"}`), &light); err != nil || *light.Brightness != 50 || *light.Name != "1.5" {
		t.Errorf("brightness 5e1: %v, %+v", err, light)
	}
	if err := json.Unmarshal([]byte(`{"brightness":50.5}`), &light); err == nil {
		t.Error("brightness 50.5 decoded")
	}
	var vol HassSetVolumeRelativeArgs
	if err := json.Unmarshal([]byte(`{"volume_step":-30.0}`), &vol); err != nil || vol.VolumeStep == nil || vol.VolumeStep.Int == nil || *vol.VolumeStep.Int != -30 {
		t.Errorf("volume_step -30.0: %v, %+v", err, vol.VolumeStep)
	}
	for _, in := range []string{`{"brightness":50.0}`, `{"volume_step":-30.0}`} {
		tool := map[bool]string{true: "HassLightSet", false: "HassSetVolumeRelative"}[strings.Contains(in, "brightness")]
		if err := ValidateArguments(tool, []byte(in)); err != nil {
			t.Errorf("the server's schema refuses %s: %v", in, err)
		}
	}
}

// TestDecodeErrorsNameToolAndPointer checks that decoding arguments a model
// produced reports what Validate reports: the tool and the JSON pointer of
// the value, not the Go names encoding/json sees.
func TestDecodeErrorsNameToolAndPointer(t *testing.T) {
	cases := []struct {
		into    any
		in      string
		pointer string
		want    string
	}{
		{new(HassSetVolumeArgs), `{"volume_level":50.5}`, "/volume_level",
			"invalid arguments for HassSetVolume at /volume_level: must be an integer, not 50.5"},
		{new(HassSetVolumeArgs), `{"name":"Kitchen","domain":["media_player",5]}`, "/domain/1",
			"invalid arguments for HassSetVolume at /domain/1: must be a string, not a number"},
		{new(HassSetVolumeArgs), `{"volume_level":1e30}`, "/volume_level",
			"invalid arguments for HassSetVolume at /volume_level: must be an integer from -9223372036854775808 to 9223372036854775807, not 1e30"},
		{new(HassSetVolumeRelativeArgs), `{"volume_step":2.5}`, "/volume_step",
			"invalid arguments for HassSetVolumeRelative at /volume_step: must be an integer, not 2.5"},
		{new(HassSetVolumeRelativeArgs), `{"volume_step":true}`, "/volume_step",
			"invalid arguments for HassSetVolumeRelative at /volume_step: must be a string or a number, not a boolean"},
	}
	for _, c := range cases {
		err := json.Unmarshal([]byte(c.in), c.into)
		var ve *runtime.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: got %v (%T), want a *runtime.ValidationError", c.in, err, err)
			continue
		}
		if ve.Pointer != c.pointer || err.Error() != c.want {
			t.Errorf("%s:\n got %v (pointer %q)\nwant %s", c.in, err, ve.Pointer, c.want)
		}
	}
}

// TestSharedGeminiSchemasAreNotAliased checks that declarations whose
// schemas one builder function makes get values of their own: changing one
// declaration's parameters leaves the others alone.
func TestSharedGeminiSchemasAreNotAliased(t *testing.T) {
	decls := FunctionDeclarations()
	byName := map[string]*genai.FunctionDeclaration{}
	for _, d := range decls {
		byName[d.Name] = d
	}
	next, pause := byName["HassMediaNext"], byName["HassMediaPause"]
	if next == nil || pause == nil || !reflect.DeepEqual(next.Parameters, pause.Parameters) {
		t.Fatal("HassMediaNext and HassMediaPause do not declare the same parameters")
	}
	next.Parameters.Properties["area"].Description = "changed"
	if pause.Parameters.Properties["area"].Description != "" {
		t.Error("changing HassMediaNext's parameters changed HassMediaPause's")
	}
}

// TestMCPToolsMatchSnapshot checks that MCPTools, which decodes the tools
// from the JSON text the package keeps, gives each tool of the snapshot
// with its name, description and schemas as the server sent them, that its
// hash is SnapshotHash, and that each call returns values of its own.
func TestMCPToolsMatchSnapshot(t *testing.T) {
	data, err := os.ReadFile("../../testdata/homeassistant-tools-list.json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	want := map[string]runtime.Tool{}
	for _, raw := range list.Result.Tools {
		tool, err := runtime.ParseTool(raw)
		if err != nil {
			t.Fatal(err)
		}
		want[tool.Name] = tool
	}
	tools := MCPTools()
	if len(tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(tools), len(want))
	}
	compact := func(b []byte) string {
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	for _, got := range tools {
		w, ok := want[got.Name]
		if !ok {
			t.Errorf("MCPTools has %q, which the snapshot lacks", got.Name)
			continue
		}
		if got.Description != w.Description || got.Title != w.Title ||
			string(got.InputSchema) != compact(w.InputSchema) || string(got.Raw) != compact(w.Raw) {
			t.Errorf("%s: MCPTools gives %+v, want the snapshot's %+v", got.Name, got, w)
		}
	}
	if h := runtime.ToolsHash(tools); h != SnapshotHash {
		t.Errorf("ToolsHash(MCPTools()) = %s, want SnapshotHash %s", h, SnapshotHash)
	}
	tools[0].InputSchema[0] = 'X'
	if MCPTools()[0].InputSchema[0] == 'X' {
		t.Error("a change to one call's result shows in the next")
	}
}

// TestSharedChecksNameTheirOwnTool checks the Args whose checks are those
// of another tool's Args with the same fields (validate.go calls them):
// each error still names its own tool, and the pointer of the value.
func TestSharedChecksNameTheirOwnTool(t *testing.T) {
	cases := []struct {
		tool string
		args interface{ Validate() error }
	}{
		{"HassMediaNext", &HassMediaNextArgs{DeviceClass: []DeviceClass{DeviceClassSpeaker, "toaster"}}},
		{"HassMediaPause", &HassMediaPauseArgs{DeviceClass: []DeviceClass{DeviceClassSpeaker, "toaster"}}},
		{"HassMediaPrevious", &HassMediaPreviousArgs{DeviceClass: []DeviceClass{DeviceClassSpeaker, "toaster"}}},
		{"HassMediaUnpause", &HassMediaUnpauseArgs{DeviceClass: []DeviceClass{DeviceClassSpeaker, "toaster"}}},
	}
	for _, c := range cases {
		err := c.args.Validate()
		var ve *runtime.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: Validate = %v, want a *runtime.ValidationError", c.tool, err)
			continue
		}
		if ve.Tool != c.tool || ve.Pointer != "/device_class/1" {
			t.Errorf("%s: error names tool %q at %q, want %q at /device_class/1", c.tool, ve.Tool, ve.Pointer, c.tool)
		}
	}
}

// TestGeneratedStructsAreNotComparable checks that the generated structs,
// arguments, nested objects and unions alike, are not comparable, so that
// the compiler writes no equality function for them, and that the blank
// field that makes them so stays out of their JSON.
func TestGeneratedStructsAreNotComparable(t *testing.T) {
	types := []reflect.Type{reflect.TypeFor[HassSetVolumeRelativeVolumeStep]()}
	for _, v := range argsTypes {
		types = append(types, reflect.TypeOf(v))
	}
	for _, typ := range types {
		if typ.Comparable() {
			t.Errorf("%s is comparable", typ)
		}
	}
	data, err := json.Marshal(HassSetVolumeArgs{})
	if err != nil || string(data) != "{}" {
		t.Errorf("json.Marshal of the zero HassSetVolumeArgs = %s, %v", data, err)
	}
}
