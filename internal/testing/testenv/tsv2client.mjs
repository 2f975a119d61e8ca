// A test client built on the TypeScript SDK's v2 line (npm
// @modelcontextprotocol/client), pinned to protocol revision 2026-07-28. It
// is tsv2client.mjs for the new revision: the same handlers and calls, the
// same line printed, with the server's requests for input arriving as
// input_required results that the SDK fulfils and retries.
//
// Usage: node tsv2client.mjs stdio COMMAND ARGS...
//        node tsv2client.mjs http URL
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [mode, ...rest] = process.argv.slice(2);
let transport;
if (mode === 'stdio') {
    transport = new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: process.env, stderr: 'inherit' });
} else if (mode === 'http') {
    transport = new StreamableHTTPClientTransport(new URL(rest[0]));
} else {
    console.error('usage: node tsv2client.mjs stdio COMMAND ARGS... | http URL');
    process.exit(2);
}

const client = new Client(
    { name: 'tsv2client', version: '1.0.0' },
    {
        capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
);
const asked = [];
client.setRequestHandler('elicitation/create', async (req) => {
    asked.push(req.method + ': ' + req.params.message);
    return { action: 'accept', content: { name: 'Ada' } };
});
client.setRequestHandler('sampling/createMessage', async (req) => {
    asked.push(req.method + ': ' + req.params.messages[0].content.text);
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm1', stopReason: 'endTurn' };
});
client.setRequestHandler('roots/list', async (req) => {
    asked.push(req.method);
    return { roots: [{ uri: 'file:///work', name: 'work' }] };
});

try {
    await client.connect(transport);
    const tool = await client.callTool({ name: 'ask', arguments: { q: 'x' } });
    const prompt = await client.getPrompt({ name: 'greet' });
    const resource = await client.readResource({ uri: 'vault://k' });
    console.log(JSON.stringify({
        version: client.getNegotiatedProtocolVersion() ?? null,
        tool: tool.content[0].text,
        isError: tool.isError ?? false,
        prompt: prompt.messages[0].content.text,
        resource: resource.contents[0].text,
        asked,
    }));
    await client.close();
} catch (err) {
    console.error('tsv2client:', err);
    process.exit(1);
}
