package mcpimpl

// DoNotCompare is the type of the blank first field of every struct type
// mcpgen generates, which makes == on those types a compile error, as
// protobuf's generated messages do. It takes no space.
//
// A comparable struct with a string or float64 field gets an equality
// function from the compiler whether or not any program compares it: 209
// of them in a package of 344 tools, about 6% of its compile. Compare
// generated values field by field, or with reflect.DeepEqual.
type DoNotCompare [0]func()
