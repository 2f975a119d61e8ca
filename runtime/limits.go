package runtime

// MaxSchemaNesting is how deeply the JSON text of a tool's schema may nest
// (objects and arrays, counted as JSON levels) for a Schema to compile it.
// Real schemas stay far below it; compiling a deeper one would cost time
// growing with the cube of its depth, which a hostile server could use to
// stall its client.
const MaxSchemaNesting = 256

// MaxRecursiveNesting is how deeply a value decoded into a recursive
// generated type (from a schema that refers to itself, such as a tree) may
// nest, in arrays and objects counted as JSON levels; a deeper one is
// refused with a *ValidationError naming the first level too deep. The
// generated decoder checks each object's members, so a value nested d
// levels deep is read about d times over: a hostile server's 190 KB chain
// of 9,000 nodes took 13 s to decode. Types that do not refer to
// themselves nest only as deeply as their schema, and are not bounded.
const MaxRecursiveNesting = 128

// maxInputRequests bounds the input requests of one round: the members of
// a 2026-07-28 inputRequests object, in an input_required result or a task
// waiting for input, each of which runs a handler (Options.Elicitation,
// Sampling or Roots). A round that asks for more is refused whole, before
// any handler runs. Real servers ask for a few.
const maxInputRequests = 64
