// A test client built on the TypeScript SDK's v1 line (npm
// @modelcontextprotocol/sdk), which speaks the legacy era (2025-11-25). It
// checks a server's requests for input against a client mcpgen did not
// write: it declares elicitation, sampling and roots, answers each request
// with fixed values, calls the tool ask with {"q":"x"}, gets the prompt
// greet and reads vault://k, and prints the three results as one JSON line,
// with the methods of the requests the server sent, in order.
//
// Usage: node tsv1client.mjs stdio COMMAND ARGS...
//        node tsv1client.mjs http URL
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
    CreateMessageRequestSchema,
    ElicitRequestSchema,
    ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const [mode, ...rest] = process.argv.slice(2);
let transport;
if (mode === 'stdio') {
    transport = new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: process.env, stderr: 'inherit' });
} else if (mode === 'http') {
    transport = new StreamableHTTPClientTransport(new URL(rest[0]));
} else {
    console.error('usage: node tsv1client.mjs stdio COMMAND ARGS... | http URL');
    process.exit(2);
}

const client = new Client(
    { name: 'tsv1client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } } },
);
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.method + ': ' + req.params.message);
    return { action: 'accept', content: { name: 'Ada' } };
});
client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    asked.push(req.method + ': ' + req.params.messages[0].content.text);
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm1', stopReason: 'endTurn' };
});
client.setRequestHandler(ListRootsRequestSchema, async (req) => {
    asked.push(req.method);
    return { roots: [{ uri: 'file:///work', name: 'work' }] };
});

try {
    await client.connect(transport);
    const tool = await client.callTool({ name: 'ask', arguments: { q: 'x' } });
    const prompt = await client.getPrompt({ name: 'greet' });
    const resource = await client.readResource({ uri: 'vault://k' });
    console.log(JSON.stringify({
        tool: tool.content[0].text,
        isError: tool.isError ?? false,
        prompt: prompt.messages[0].content.text,
        resource: resource.contents[0].text,
        asked,
    }));
    await client.close();
} catch (err) {
    console.error('tsv1client:', err);
    process.exit(1);
}
