package schematable

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

var printShapes = flag.Bool("print-shapes", false, "print the Go shape of every tool's arguments")

type validator interface{ Validate() error }

// newArgs returns a new value of each tool's Args type.
var newArgs = map[string]func() validator{
	"t01_string":                    func() validator { return new(T01StringArgs) },
	"t02_string_length":             func() validator { return new(T02StringLengthArgs) },
	"t03_string_pattern":            func() validator { return new(T03StringPatternArgs) },
	"t04_string_pattern_unanchored": func() validator { return new(T04StringPatternUnanchoredArgs) },
	"t05_format_email":              func() validator { return new(T05FormatEmailArgs) },
	"t06_format_datetime":           func() validator { return new(T06FormatDatetimeArgs) },
	"t07_format_unknown":            func() validator { return new(T07FormatUnknownArgs) },
	"t08_integer_range":             func() validator { return new(T08IntegerRangeArgs) },
	"t09_integer_exclusive":         func() validator { return new(T09IntegerExclusiveArgs) },
	"t10_number_range":              func() validator { return new(T10NumberRangeArgs) },
	"t11_integer_fraction_bound":    func() validator { return new(T11IntegerFractionBoundArgs) },
	"t12_integer_multiple":          func() validator { return new(T12IntegerMultipleArgs) },
	"t13_number_multiple":           func() validator { return new(T13NumberMultipleArgs) },
	"t14_boolean":                   func() validator { return new(T14BooleanArgs) },
	"t15_type_null_list":            func() validator { return new(T15TypeNullListArgs) },
	"t16_type_multi_list":           func() validator { return new(T16TypeMultiListArgs) },
	"t17_anyof_null":                func() validator { return new(T17AnyofNullArgs) },
	"t18_nullable_openapi":          func() validator { return new(T18NullableOpenapiArgs) },
	"t19_enum_string":               func() validator { return new(T19EnumStringArgs) },
	"t20_enum_integer":              func() validator { return new(T20EnumIntegerArgs) },
	"t21_enum_number":               func() validator { return new(T21EnumNumberArgs) },
	"t22_enum_boolean":              func() validator { return new(T22EnumBooleanArgs) },
	"t23_enum_with_null":            func() validator { return new(T23EnumWithNullArgs) },
	"t24_enum_mixed":                func() validator { return new(T24EnumMixedArgs) },
	"t25_enum_empty":                func() validator { return new(T25EnumEmptyArgs) },
	"t26_const_string":              func() validator { return new(T26ConstStringArgs) },
	"t27_const_number":              func() validator { return new(T27ConstNumberArgs) },
	"t28_const_object":              func() validator { return new(T28ConstObjectArgs) },
	"t29_anyof_string_or_integer":   func() validator { return new(T29AnyofStringOrIntegerArgs) },
	"t30_oneof_const_tagged":        func() validator { return new(T30OneofConstTaggedArgs) },
	"t31_oneof_required_keys":       func() validator { return new(T31OneofRequiredKeysArgs) },
	"t32_oneof_overlap":             func() validator { return new(T32OneofOverlapArgs) },
	"t33_anyof_object_or_string":    func() validator { return new(T33AnyofObjectOrStringArgs) },
	"t34_anyof_siblings":            func() validator { return new(T34AnyofSiblingsArgs) },
	"t35_allof_numeric":             func() validator { return new(T35AllofNumericArgs) },
	"t36_allof_objects":             func() validator { return new(T36AllofObjectsArgs) },
	"t37_allof_two_patterns":        func() validator { return new(T37AllofTwoPatternsArgs) },
	"t38_ref_defs":                  func() validator { return new(T38RefDefsArgs) },
	"t39_ref_definitions_draft07":   func() validator { return new(T39RefDefinitionsDraft07Args) },
	"t40_ref_recursive":             func() validator { return new(T40RefRecursiveArgs) },
	"t41_ref_root_recursive":        func() validator { return new(T41RefRootRecursiveArgs) },
	"t42_ref_into_properties":       func() validator { return new(T42RefIntoPropertiesArgs) },
	"t43_ref_with_description":      func() validator { return new(T43RefWithDescriptionArgs) },
	"t44_ref_with_constraints":      func() validator { return new(T44RefWithConstraintsArgs) },
	"t45_closed_object":             func() validator { return new(T45ClosedObjectArgs) },
	"t46_open_object":               func() validator { return new(T46OpenObjectArgs) },
	"t47_map_of_schema":             func() validator { return new(T47MapOfSchemaArgs) },
	"t48_struct_with_extra":         func() validator { return new(T48StructWithExtraArgs) },
	"t49_free_object":               func() validator { return new(T49FreeObjectArgs) },
	"t50_pattern_properties":        func() validator { return new(T50PatternPropertiesArgs) },
	"t51_pattern_properties_open":   func() validator { return new(T51PatternPropertiesOpenArgs) },
	"t52_array_of_objects":          func() validator { return new(T52ArrayOfObjectsArgs) },
	"t53_array_limits":              func() validator { return new(T53ArrayLimitsArgs) },
	"t54_array_of_arrays":           func() validator { return new(T54ArrayOfArraysArgs) },
	"t55_array_of_nullable":         func() validator { return new(T55ArrayOfNullableArgs) },
	"t56_array_no_items":            func() validator { return new(T56ArrayNoItemsArgs) },
	"t57_prefix_items":              func() validator { return new(T57PrefixItemsArgs) },
	"t58_unique_items":              func() validator { return new(T58UniqueItemsArgs) },
	"t59_true_schema":               func() validator { return new(T59TrueSchemaArgs) },
	"t60_empty_schema":              func() validator { return new(T60EmptySchemaArgs) },
	"t61_no_type":                   func() validator { return new(T61NoTypeArgs) },
	"t62_no_type_constraints":       func() validator { return new(T62NoTypeConstraintsArgs) },
	"t63_false_schema":              func() validator { return new(T63FalseSchemaArgs) },
	"t64_required_fields":           func() validator { return new(T64RequiredFieldsArgs) },
	"t65_nested_object":             func() validator { return new(T65NestedObjectArgs) },
	"t66_defaults":                  func() validator { return new(T66DefaultsArgs) },
	"t67_if_then_else":              func() validator { return new(T67IfThenElseArgs) },
	"t68_not":                       func() validator { return new(T68NotArgs) },
	"t69_property_names":            func() validator { return new(T69PropertyNamesArgs) },
	"t70_dependent_required":        func() validator { return new(T70DependentRequiredArgs) },
	"t71_min_properties_struct":     func() validator { return new(T71MinPropertiesStructArgs) },
	"t72_draft04_exclusive":         func() validator { return new(T72Draft04ExclusiveArgs) },
	"t73_odd_property_names":        func() validator { return new(T73OddPropertyNamesArgs) },
	"t74_no_type_root":              func() validator { return new(T74NoTypeRootArgs) },
	"t75_empty_root":                func() validator { return new(T75EmptyRootArgs) },
	"t76_anyof_required":            func() validator { return new(T76AnyofRequiredArgs) },
	"t77_anyof_nullable_branch":     func() validator { return new(T77AnyofNullableBranchArgs) },
	"t78_oneof_null":                func() validator { return new(T78OneofNullArgs) },
	"t79_nullable_object":           func() validator { return new(T79NullableObjectArgs) },
	"t80_shared_enum_ref":           func() validator { return new(T80SharedEnumRefArgs) },
	"t81_int_or_number":             func() validator { return new(T81IntOrNumberArgs) },
	"t82_pattern_and_format":        func() validator { return new(T82PatternAndFormatArgs) },
	"t83_const_true":                func() validator { return new(T83ConstTrueArgs) },
	"t84_big_integer_const":         func() validator { return new(T84BigIntegerConstArgs) },
	"t85_big_integer_enum":          func() validator { return new(T85BigIntegerEnumArgs) },
	"t86_big_enum_no_type":          func() validator { return new(T86BigEnumNoTypeArgs) },
	"t87_big_number_enum":           func() validator { return new(T87BigNumberEnumArgs) },
	"t88_big_integer_range":         func() validator { return new(T88BigIntegerRangeArgs) },
	"t89_big_integer_exclusive":     func() validator { return new(T89BigIntegerExclusiveArgs) },
	"t90_integer_multiple_rounded":  func() validator { return new(T90IntegerMultipleRoundedArgs) },
	"t91_ecma_pattern":              func() validator { return new(T91EcmaPatternArgs) },
	"t92_ecma_pattern_properties":   func() validator { return new(T92EcmaPatternPropertiesArgs) },
	"t93_format_regex":              func() validator { return new(T93FormatRegexArgs) },
	"t94_member_case":               func() validator { return new(T94MemberCaseArgs) },
	"t95_pattern_props_closed":      func() validator { return new(T95PatternPropsClosedArgs) },
	"t96_pattern_props_open":        func() validator { return new(T96PatternPropsOpenArgs) },
	"t97_allof_closed_part":         func() validator { return new(T97AllofClosedPartArgs) },
	"t98_allof_extra_part":          func() validator { return new(T98AllofExtraPartArgs) },
	"t99_empty_array_dependent":     func() validator { return new(T99EmptyArrayDependentArgs) },
	"t100_empty_map_min_properties": func() validator { return new(T100EmptyMapMinPropertiesArgs) },
	"t101_ecma_space_and_dot":       func() validator { return new(T101EcmaSpaceAndDotArgs) },
	"t102_enum_null_type_excludes":  func() validator { return new(T102EnumNullTypeExcludesArgs) },
	"t103_counts_beyond_int32":      func() validator { return new(T103CountsBeyondInt32Args) },
	"t104_property_named_dash":      func() validator { return new(T104PropertyNamedDashArgs) },
	"t105_recursive_containers":     func() validator { return new(T105RecursiveContainersArgs) },
	"t106_nested_nulls":             func() validator { return new(T106NestedNullsArgs) },
}

// shape describes a struct type: its fields with their Go types and tags,
// and the underlying types of the named types they use, one level deep.
func shape(t reflect.Type) string { return shapeSeen(t, map[reflect.Type]bool{t: true}) }

func shapeSeen(t reflect.Type, seen map[reflect.Type]bool) string {
	var b strings.Builder
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Name == "_" {
			continue // mcpimpl.DoNotCompare, which every struct has
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s %s", f.Name, typeName(f.Type, seen))
		if tag := f.Tag.Get("json"); tag != "" {
			fmt.Fprintf(&b, " %s", tag)
		}
	}
	return b.String()
}

// typeName names a type and, for named types of this package, its kind.
func typeName(t reflect.Type, seen map[reflect.Type]bool) string {
	s := strings.ReplaceAll(t.String(), "schematable.", "")
	base := t
	for base.Name() == "" && (base.Kind() == reflect.Pointer || base.Kind() == reflect.Slice || base.Kind() == reflect.Map) {
		base = base.Elem()
	}
	if base.PkgPath() == reflect.TypeOf(T01StringArgs{}).PkgPath() && base.Name() != "" && !seen[base] {
		seen[base] = true
		defer delete(seen, base)
		switch base.Kind() {
		case reflect.Struct:
			if base.NumField() == 0 {
				s += "(const)"
			} else {
				s += "{" + shapeSeen(base, seen) + "}"
			}
		default:
			s += "(" + base.Kind().String() + ")"
		}
	}
	return s
}

func TestTableIsLarge(t *testing.T) {
	if n := len(MCPTools()); n < 40 {
		t.Fatalf("the table has %d schemas, want at least 40", n)
	}
	if len(newArgs) != len(MCPTools()) {
		t.Fatalf("newArgs has %d entries for %d tools", len(newArgs), len(MCPTools()))
	}
}

func TestShapes(t *testing.T) {
	for _, tool := range MCPTools() {
		mk, ok := newArgs[tool.Name]
		if !ok {
			t.Errorf("no Args type registered for %s", tool.Name)
			continue
		}
		got := shape(reflect.TypeOf(mk()).Elem())
		if *printShapes {
			fmt.Printf("\t%q: %q,\n", tool.Name, got)
			continue
		}
		if want := wantShapes[tool.Name]; got != want {
			t.Errorf("%s: Go shape\n got %s\nwant %s", tool.Name, got, want)
		}
	}
}

// TestValidatorsAgree decodes every instance into the tool's Args type and
// validates it, and checks it with the tool's own schema: both must give
// the verdict the table expects, and an accepted instance, encoded again
// from its Args, must satisfy the schema too.
func TestValidatorsAgree(t *testing.T) {
	if n := checkAgreement(t, func(string) bool { return true }); n < 150 {
		t.Errorf("only %d instances checked", n)
	}
}

// TestIntegerConstEnumBeyond2To53 checks the tools whose const, enum,
// bounds or multipleOf are integers a float64 cannot tell apart from their
// neighbours (beyond 2^53): the generated code must compare them exactly,
// as the schema's own validator does.
func TestIntegerConstEnumBeyond2To53(t *testing.T) {
	big := []string{"t84_big_integer_const", "t85_big_integer_enum", "t86_big_enum_no_type", "t87_big_number_enum",
		"t88_big_integer_range", "t89_big_integer_exclusive", "t90_integer_multiple_rounded"}
	if n := checkAgreement(t, func(name string) bool { return slices.Contains(big, name) }); n < 30 {
		t.Errorf("only %d instances checked", n)
	}
	var a T84BigIntegerConstArgs
	if err := json.Unmarshal([]byte(`{"x":9007199254740992}`), &a); err == nil {
		t.Error("const 9007199254740993 accepted 9007199254740992")
	}
}

// checkAgreement runs the table's instances of the tools for which include
// is true through both validators, and returns how many it checked.
func checkAgreement(t *testing.T, include func(string) bool) int {
	t.Helper()
	instances := 0
	for _, tool := range MCPTools() {
		if !include(tool.Name) {
			continue
		}
		var meta struct {
			Valid   []json.RawMessage `json:"x-valid"`
			Invalid []json.RawMessage `json:"x-invalid"`
		}
		if err := json.Unmarshal(tool.Raw, &meta); err != nil {
			t.Fatal(err)
		}
		mk := newArgs[tool.Name]
		if mk == nil {
			continue
		}
		check := func(inst json.RawMessage, want bool) {
			instances++
			rawErr := ValidateArguments(tool.Name, inst)
			var ve *runtime.ValidationError
			if rawErr != nil && !errors.As(rawErr, &ve) {
				t.Errorf("%s %s: raw validation failed to run: %v", tool.Name, inst, rawErr)
				return
			}
			a := mk()
			goErr := json.Unmarshal(inst, a)
			if goErr == nil {
				goErr = a.Validate()
			}
			if (rawErr == nil) != want {
				t.Errorf("%s %s: jsonschema says %v, the table says valid=%v", tool.Name, inst, rawErr, want)
			}
			if (goErr == nil) != want {
				t.Errorf("%s %s: decode+Validate says %v, the table says valid=%v", tool.Name, inst, goErr, want)
			}
			if goErr == nil {
				// What the generated path accepts is what a Client sends:
				// its encoding must satisfy the schema too.
				enc, err := json.Marshal(a)
				if err != nil {
					t.Errorf("%s %s: encoding the decoded arguments: %v", tool.Name, inst, err)
				} else if err := ValidateArguments(tool.Name, enc); err != nil {
					t.Errorf("%s %s: decoded and encoded again as %s, which jsonschema refuses: %v", tool.Name, inst, enc, err)
				}
			}
			if goErr != nil {
				if errors.As(goErr, &ve) && ve.Reason == "" {
					t.Errorf("%s %s: validation error without a reason: %+v", tool.Name, inst, ve)
				}
			}
		}
		for _, inst := range meta.Valid {
			check(inst, true)
		}
		for _, inst := range meta.Invalid {
			check(inst, false)
		}
	}
	return instances
}

// wantShapes is the Go shape of each tool's arguments: fields with their
// types and JSON tags, named types of this package expanded once.
var wantShapes = map[string]string{
	"t01_string":                    "X *string x,omitempty",
	"t02_string_length":             "X *string x,omitempty",
	"t03_string_pattern":            "X *string x,omitempty",
	"t04_string_pattern_unanchored": "X *string x,omitempty",
	"t05_format_email":              "X *string x,omitempty",
	"t06_format_datetime":           "X *string x,omitempty",
	"t07_format_unknown":            "X *string x,omitempty",
	"t08_integer_range":             "X *int64 x,omitempty",
	"t09_integer_exclusive":         "X *int64 x,omitempty",
	"t10_number_range":              "X *float64 x,omitempty",
	"t11_integer_fraction_bound":    "X *int64 x,omitempty",
	"t12_integer_multiple":          "X *int64 x,omitempty",
	"t13_number_multiple":           "X *float64 x,omitempty",
	"t14_boolean":                   "X *bool x,omitempty",
	"t15_type_null_list":            "X *string x,omitempty",
	"t16_type_multi_list":           "X *T16TypeMultiListX{String *string; Number *float64; Bool *bool} x,omitempty",
	"t17_anyof_null":                "X *int64 x,omitempty",
	"t18_nullable_openapi":          "X *string x,omitempty",
	"t19_enum_string":               "X *T19EnumStringX(string) x,omitempty",
	"t20_enum_integer":              "X *T20EnumIntegerX(int64) x,omitempty",
	"t21_enum_number":               "X *T21EnumNumberX(float64) x,omitempty",
	"t22_enum_boolean":              "X *T22EnumBooleanX(bool) x,omitempty",
	"t23_enum_with_null":            "X *T23EnumWithNullX(string) x,omitempty",
	"t24_enum_mixed":                "X json.RawMessage x,omitempty",
	"t25_enum_empty":                "X json.RawMessage x,omitempty",
	"t26_const_string":              "X *T26ConstStringX(const) x,omitempty",
	"t27_const_number":              "X *T27ConstNumberX(const) x,omitempty",
	"t28_const_object":              "X *T28ConstObjectX(const) x,omitempty",
	"t29_anyof_string_or_integer":   "X *T29AnyofStringOrIntegerX{String *T29AnyofStringOrIntegerXString(string); Int *int64} x,omitempty",
	"t30_oneof_const_tagged":        "X *T30OneofConstTaggedX{Circle *T30OneofConstTaggedXCircle{Type T30OneofConstTaggedXCircleType(const) type; Radius float64 radius}; Square *T30OneofConstTaggedXSquare{Type T30OneofConstTaggedXSquareType(const) type; Side float64 side}} x,omitempty",
	"t31_oneof_required_keys":       "X *T31OneofRequiredKeysX{Object *T31OneofRequiredKeysXObject{ID int64 id}; Object2 *T31OneofRequiredKeysXObject2{Name string name}} x,omitempty",
	"t32_oneof_overlap":             "X *T32OneofOverlapX{Int *int64; Number *float64} x,omitempty",
	"t33_anyof_object_or_string":    "X *T33AnyofObjectOrStringX{String *string; Object *T33AnyofObjectOrStringXObject{Path string path}} x,omitempty",
	"t34_anyof_siblings":            "X *T34AnyofSiblingsX{String *string; String2 *string} x,omitempty",
	"t35_allof_numeric":             "X *int64 x,omitempty",
	"t36_allof_objects":             "X *T36AllofObjectsX{A string a; B *int64 b,omitempty} x,omitempty",
	"t37_allof_two_patterns":        "X *string x,omitempty",
	"t38_ref_defs":                  "From T38RefDefsPoint{X float64 x; Y float64 y} from; To *T38RefDefsPoint{X float64 x; Y float64 y} to,omitempty",
	"t39_ref_definitions_draft07":   "Count *int64 count,omitempty",
	"t40_ref_recursive":             "Root *T40RefRecursiveNode{Name string name; Children []T40RefRecursiveNode children,omitzero} root",
	"t41_ref_root_recursive":        "Label *string label,omitempty; Next *T41RefRootRecursiveArgs next,omitempty",
	"t42_ref_into_properties":       "A *T42RefIntoPropertiesA(string) a,omitempty; B *T42RefIntoPropertiesA(string) b,omitempty",
	"t43_ref_with_description":      "ID *string id,omitempty",
	"t44_ref_with_constraints":      "N *int64 n,omitempty",
	"t45_closed_object":             "A *string a,omitempty",
	"t46_open_object":               "A *string a,omitempty",
	"t47_map_of_schema":             "X map[string]int64 x,omitzero",
	"t48_struct_with_extra":         "Name *string name,omitempty; Extra map[string]bool -",
	"t49_free_object":               "X map[string]json.RawMessage x,omitzero",
	"t50_pattern_properties":        "X map[string]int64 x,omitzero",
	"t51_pattern_properties_open":   "X map[string]json.RawMessage x,omitzero",
	"t52_array_of_objects":          "X []T52ArrayOfObjectsXItem{ID int64 id} x,omitzero",
	"t53_array_limits":              "X []string x,omitzero",
	"t54_array_of_arrays":           "X [][]int64 x,omitzero",
	"t55_array_of_nullable":         "X []*string x,omitzero",
	"t56_array_no_items":            "X []json.RawMessage x,omitzero",
	"t57_prefix_items":              "X []json.RawMessage x,omitzero",
	"t58_unique_items":              "X []int64 x,omitzero",
	"t59_true_schema":               "X json.RawMessage x,omitempty",
	"t60_empty_schema":              "X json.RawMessage x,omitempty",
	"t61_no_type":                   "X json.RawMessage x,omitempty",
	"t62_no_type_constraints":       "X json.RawMessage x,omitempty",
	"t63_false_schema":              "X json.RawMessage x,omitempty; Y *string y,omitempty",
	"t64_required_fields":           "A string a; B []int64 b; C *int64 c",
	"t65_nested_object":             "Address *T65NestedObjectAddress{City string city; Zip *string zip,omitempty} address,omitempty",
	"t66_defaults":                  "N *int64 n,omitempty; S *string s,omitempty",
	"t67_if_then_else":              "Kind *string kind,omitempty; Size *int64 size,omitempty",
	"t68_not":                       "X *string x,omitempty",
	"t69_property_names":            "X map[string]string x,omitzero",
	"t70_dependent_required":        "Card *string card,omitempty; Cvv *string cvv,omitempty",
	"t71_min_properties_struct":     "A *string a,omitempty; B *string b,omitempty",
	"t72_draft04_exclusive":         "X *float64 x,omitempty",
	"t73_odd_property_names":        "Type *string type,omitempty; Schema *string $schema,omitempty; OrderBy *string orderBy,omitempty; OrderBy_860a *int64 order_by,omitempty; AuthMethod *T73OddPropertyNamesAuthMethod(string) auth-method,omitempty; UserName *string {{userName}},omitempty; Default *bool (default),omitempty; X5m *string 5m,omitempty; Validate_7a98 *string Validate,omitempty; Properties map[string]json.RawMessage properties,omitzero",
	"t74_no_type_root":              "A *int64 a,omitempty",
	"t75_empty_root":                "",
	"t76_anyof_required":            "ID *string id,omitempty; Name *string name,omitempty",
	"t77_anyof_nullable_branch":     "X *T77AnyofNullableBranchX{String *string; Int *int64} x,omitempty",
	"t78_oneof_null":                "X *string x,omitempty",
	"t79_nullable_object":           "X *T79NullableObjectX{A string a} x,omitempty",
	"t80_shared_enum_ref":           "Min *T80SharedEnumRefLevel(int64) min,omitempty; Max *T80SharedEnumRefLevel(int64) max,omitempty",
	"t81_int_or_number":             "X *T81IntOrNumberX{Int *int64; Number *float64} x,omitempty",
	"t82_pattern_and_format":        "X *string x,omitempty",
	"t83_const_true":                "X T83ConstTrueX(const) x",
	"t84_big_integer_const":         "X *T84BigIntegerConstX(const) x,omitempty",
	"t85_big_integer_enum":          "X *T85BigIntegerEnumX(int64) x,omitempty",
	"t86_big_enum_no_type":          "X *T86BigEnumNoTypeX(int64) x,omitempty",
	"t87_big_number_enum":           "X json.RawMessage x,omitempty",
	"t88_big_integer_range":         "X *int64 x,omitempty",
	"t89_big_integer_exclusive":     "X *int64 x,omitempty",
	"t90_integer_multiple_rounded":  "X *int64 x,omitempty",
	"t91_ecma_pattern":              "X *string x,omitempty",
	"t92_ecma_pattern_properties":   "X map[string]int64 x,omitzero",
	"t93_format_regex":              "X *string x,omitempty",
	"t94_member_case":               "Name *string name,omitempty; O *T94MemberCaseO{ID *int64 id,omitempty} o,omitempty",
	"t95_pattern_props_closed":      "Name *string name,omitempty; Extra map[string]json.RawMessage -",
	"t96_pattern_props_open":        "Name *string name,omitempty; Extra map[string]json.RawMessage -",
	"t97_allof_closed_part":         "A *string a,omitempty; B *string b,omitempty",
	"t98_allof_extra_part":          "A *string a,omitempty; B *int64 b,omitempty; Extra map[string]string -",
	"t99_empty_array_dependent":     "X []string x,omitzero; Y *string y,omitempty",
	"t100_empty_map_min_properties": "M map[string]string m,omitzero; L []int64 l,omitzero",
	"t101_ecma_space_and_dot":       "X *string x,omitempty; Y *string y,omitempty; Z *string z,omitempty",
	"t102_enum_null_type_excludes":  "X *T102EnumNullTypeExcludesX(string) x,omitempty; Y *T102EnumNullTypeExcludesY(int64) y,omitempty; Z *T102EnumNullTypeExcludesX(string) z,omitempty",
	"t103_counts_beyond_int32":      "S *string s,omitempty; L []int64 l,omitzero; M map[string]int64 m,omitzero; N []string n,omitzero; T *string t,omitempty",
	"t104_property_named_dash":      "Field string -,; O *T104PropertyNamedDashO{Field int64 -,} o,omitempty",
	"t105_recursive_containers":     "L T105RecursiveContainersList(slice) l,omitzero; M T105RecursiveContainersMap(map) m,omitzero; G T105RecursiveContainersGrid(slice) g,omitzero",
	"t106_nested_nulls":             "Aa [][]int64 aa,omitzero; As [][]string as,omitzero; Ma map[string][]int64 ma,omitzero; Am []map[string]string am,omitzero; Aaa [][][]bool aaa,omitzero; Ao [][]T106NestedNullsAoItemItem{N *int64 n,omitempty} ao,omitzero; An [][]*int64 an,omitzero; Na [][]int64 na,omitzero; Nan [][][]string nan,omitzero; Mn map[string]map[string]int64 mn,omitzero; Ex *T106NestedNullsEx{N *int64 n,omitempty; Extra map[string][][]int64 -} ex,omitempty; U *T106NestedNullsU{Array *[][]int64; String *string} u,omitempty; V *T106NestedNullsV{Array *[][]int64; String *string} v,omitempty",
}

// TestDecodeErrorsNameToolAndPointer checks that every decoding error of the
// generated types is a *runtime.ValidationError naming the tool and the JSON
// pointer of the value that failed, however deep: nested objects, arrays,
// unions, $defs types, maps and extra properties.
func TestDecodeErrorsNameToolAndPointer(t *testing.T) {
	cases := []struct {
		tool, in, want string
	}{
		{"t08_integer_range", `{"x":1.5}`, "at /x: must be an integer, not 1.5"},
		{"t08_integer_range", `{"x":"3"}`, "at /x: must be an integer, not a string"},
		{"t65_nested_object", `{"address":{"city":7}}`, "at /address/city: must be a string, not a number"},
		{"t65_nested_object", `{"address":{"zip":"1"}}`, `at /address: missing required property "city"`},
		{"t52_array_of_objects", `{"x":[{"id":1},{"id":"two"}]}`, "at /x/1/id: must be an integer, not a string"},
		{"t54_array_of_arrays", `{"x":[[1],[2,3.5]]}`, "at /x/1/1: must be an integer, not 3.5"},
		{"t30_oneof_const_tagged", `{"x":{"type":"circle","radius":"big"}}`, "at /x/radius: must be a number, not a string"},
		{"t29_anyof_string_or_integer", `{"x":4.5}`, "at /x: must be an integer, not 4.5"},
		{"t38_ref_defs", `{"from":{"x":1,"y":[]}}`, "at /from/y: must be a number, not an array"},
		{"t40_ref_recursive", `{"root":{"name":"a","children":[{"name":"b","children":[{"name":false}]}]}}`, "at /root/children/0/children/0/name: must be a string, not a boolean"},
		{"t47_map_of_schema", `{"x":{"a":1,"b~/c":"s"}}`, "at /x/b~0~1c: must be an integer, not a string"},
		{"t48_struct_with_extra", `{"name":"n","flag":"yes"}`, "at /flag: must be a boolean, not a string"},
		{"t26_const_string", `{"x":"other"}`, `at /x: must be "fixed"`},
		{"t106_nested_nulls", `{"aa":[[1],[2,null]]}`, "at /aa/1/1: must not be null"},
		{"t106_nested_nulls", `{"ma":{"k":[1,null]}}`, "at /ma/k/1: must not be null"},
		{"t106_nested_nulls", `{"nan":[null,[null,["a",null]]]}`, "at /nan/1/1/1: must not be null"},
		{"t105_recursive_containers", `{"g":[[[],[null]]]}`, "at /g/0/1/0: must not be null"},
		{"t106_nested_nulls", `{"ex":{"k":[[1],[null]]}}`, "at /ex/k/1/0: must not be null"},
		{"t106_nested_nulls", `{"u":[[1],[null]]}`, "at /u/1/0: must not be null"},
		{"t106_nested_nulls", `{"v":[null,[1,null]]}`, "at /v/1/1: must not be null"},
	}
	for _, c := range cases {
		a := newArgs[c.tool]()
		err := json.Unmarshal([]byte(c.in), a)
		var ve *runtime.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s %s: got %v (%T), want a *runtime.ValidationError", c.tool, c.in, err, err)
			continue
		}
		if want := "invalid arguments for " + c.tool + " " + c.want; err.Error() != want {
			t.Errorf("%s %s:\n got %v\nwant %s", c.tool, c.in, err, want)
		}
	}
}

// TestDuplicateKeysRefused checks that an object repeating a key, at any
// depth, is refused by both layers at the pointer of the repeated key:
// readers disagree on which value counts (encoding/json and the schema's
// validator take the last, and encoding/json merges an object or map given
// twice), so neither layer may pick one.
func TestDuplicateKeysRefused(t *testing.T) {
	cases := []struct {
		tool, in, pointer string
	}{
		{"t45_closed_object", `{"a":"x","a":"y"}`, "/a"},
		{"t45_closed_object", `{"a":1,"a":"y"}`, "/a"},
		{"t65_nested_object", `{"address":{"city":"A","zip":"1"},"address":{"city":"B"}}`, "/address"},
		{"t65_nested_object", `{"address":{"city":7,"city":"B"}}`, "/address/city"},
		{"t47_map_of_schema", `{"x":{"a":1,"b":2},"x":{"c":3}}`, "/x"},
		{"t47_map_of_schema", `{"x":{"a":"s","a":1}}`, "/x/a"},
		{"t48_struct_with_extra", `{"flag":"yes","flag":true}`, "/flag"},
		{"t52_array_of_objects", `{"x":[{"id":1},{"id":"two","id":2}]}`, "/x/1/id"},
		{"t40_ref_recursive", `{"root":{"name":"a","children":[{"name":"b","children":[{"name":false,"name":"c"}]}]}}`, "/root/children/0/children/0/name"},
		{"t30_oneof_const_tagged", `{"x":{"type":"circle","radius":1,"radius":"big"}}`, "/x/radius"},
	}
	for _, c := range cases {
		want := "invalid arguments for " + c.tool + " at " + c.pointer + ": the object repeats the key "
		err := ValidateArguments(c.tool, []byte(c.in))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s %s: ValidateArguments says %v, want %s...", c.tool, c.in, err, want)
		}
		a := newArgs[c.tool]()
		err = json.Unmarshal([]byte(c.in), a)
		var ve *runtime.ValidationError
		if !errors.As(err, &ve) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s %s: decoding says %v (%T), want %s...", c.tool, c.in, err, err, want)
		}
	}
}

// TestExtraNamingAFieldRefused checks that Validate refuses an Extra map
// holding a member that is a field of its struct, at that member's
// pointer: encoded, the object would give the member twice, or, with the
// field unset, a value the field's schema may not allow, where Validate
// judged only the field.
func TestExtraNamingAFieldRefused(t *testing.T) {
	name, n := "n", int64(1)
	cases := []struct {
		v       validator
		tool    string
		pointer string
	}{
		{&T48StructWithExtraArgs{Extra: map[string]bool{"name": true}}, "t48_struct_with_extra", "/name"},
		{&T48StructWithExtraArgs{Name: &name, Extra: map[string]bool{"flag": true, "name": false}}, "t48_struct_with_extra", "/name"},
		{&T98AllofExtraPartArgs{Extra: map[string]string{"b": "not an integer"}}, "t98_allof_extra_part", "/b"},
		{&T95PatternPropsClosedArgs{Extra: map[string]json.RawMessage{"name": json.RawMessage(`7`)}}, "t95_pattern_props_closed", "/name"},
		{&T106NestedNullsArgs{Ex: &T106NestedNullsEx{N: &n, Extra: map[string][][]int64{"n": {{2}}}}}, "t106_nested_nulls", "/ex/n"},
	}
	for _, c := range cases {
		enc, _ := json.Marshal(c.v)
		err := c.v.Validate()
		var ve *runtime.ValidationError
		if !errors.As(err, &ve) || ve.Pointer != c.pointer || ve.Tool != c.tool || !strings.Contains(ve.Reason, "field") {
			t.Errorf("%T encoded as %s: Validate says %v, want a *runtime.ValidationError for %s at %s about the field", c.v, enc, err, c.tool, c.pointer)
		}
	}
	// Members that are no field stay valid.
	if err := (&T48StructWithExtraArgs{Name: &name, Extra: map[string]bool{"flag": true}}).Validate(); err != nil {
		t.Errorf("Validate of an Extra member that is no field: %v", err)
	}
}
