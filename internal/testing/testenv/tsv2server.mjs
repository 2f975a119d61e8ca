// A test server built on the TypeScript SDK's v2 line (npm
// @modelcontextprotocol/server), which serves protocol revision 2026-07-28.
// It exposes what mcpgen's runtime must handle in that revision against a
// server it did not write:
//
//   - deploy: a tool that answers input_required with a form elicitation
//     and a requestState, and finishes when the client retries with the
//     answer (the 2026 elicitation flow);
//   - slow_sum: a tool run as a task of the io.modelcontextprotocol/tasks
//     extension when the client declares it (tasks/get until it completes,
//     tasks/cancel to stop it), answered at once otherwise;
//   - approve: a task that stops in status input_required with an
//     elicitation in inputRequests, and goes on once tasks/update answers it;
//   - the prompt greet and the resource secret://vault, which answer
//     input_required as deploy does (prompts/get and resources/read are the
//     other two requests of the revision that may).
//
// The SDK leaves the tasks extension to the server: tools/call answers
// resultType "task", and tasks/get, tasks/update and tasks/cancel are
// registered here, with the task store shared by every server instance.
//
// Usage: node tsv2server.mjs stdio
//        node tsv2server.mjs http   (prints its endpoint URL, then serves)
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import {
    McpServer,
    ProtocolError,
    ProtocolErrorCode,
    CLIENT_CAPABILITIES_META_KEY,
    acceptedContent,
    createMcpHandler,
    inputRequired,
    inputResponse
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

const TASKS = 'io.modelcontextprotocol/tasks';
const POLL_MS = 100;
const TTL_MS = 60000;

// tasks holds every task by id: { status, statusMessage, createdAt,
// lastUpdatedAt, result, inputRequests, onUpdate, timer }.
const tasks = new Map();

function now() {
    return new Date().toISOString();
}

function newTask(fields) {
    const t = { taskId: randomUUID(), status: 'working', createdAt: now(), ...fields };
    t.lastUpdatedAt = t.createdAt;
    tasks.set(t.taskId, t);
    return t;
}

function setTask(t, fields) {
    Object.assign(t, fields, { lastUpdatedAt: now() });
}

// wireTask is a task as tools/call and tasks/get send it.
function wireTask(t) {
    const w = {
        taskId: t.taskId,
        status: t.status,
        createdAt: t.createdAt,
        lastUpdatedAt: t.lastUpdatedAt,
        ttlMs: TTL_MS,
        pollIntervalMs: POLL_MS
    };
    if (t.statusMessage) w.statusMessage = t.statusMessage;
    if (t.status === 'completed') w.result = t.result;
    if (t.status === 'input_required') w.inputRequests = t.inputRequests;
    return w;
}

function taskOf(params) {
    const t = tasks.get(params.taskId);
    if (!t) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown task ${params.taskId}`);
    return t;
}

// wantsTasks reports whether the request's client declared the tasks
// extension in its per-request capabilities.
function wantsTasks(ctx) {
    const caps = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY];
    return caps?.extensions?.[TASKS] !== undefined;
}

function text(s) {
    return { content: [{ type: 'text', text: s }] };
}

const confirmSchema = z.object({ confirm: z.boolean() });

function build() {
    const server = new McpServer(
        { name: 'mcpgen-ts-v2-test-server', version: '1.0.0' },
        { capabilities: { tools: {}, extensions: { [TASKS]: {} } } }
    );

    server.registerTool(
        'deploy',
        { description: 'Deploys a service after the user confirms.', inputSchema: z.object({ service: z.string() }) },
        async ({ service }, ctx) => {
            const state = ctx.mcpReq.requestState();
            const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
            if (answer.kind === 'missing') {
                return inputRequired({
                    inputRequests: {
                        confirm: inputRequired.elicit({ message: `Deploy ${service}?`, requestedSchema: confirmSchema })
                    },
                    requestState: `deploy:${service}`
                });
            }
            if (state !== `deploy:${service}`) {
                return { ...text(`requestState ${JSON.stringify(state)} was not echoed`), isError: true };
            }
            const content = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirmSchema);
            if (content?.confirm !== true) return text(`deployment of ${service} declined`);
            return text(`deployed ${service} (state ${JSON.stringify(state)})`);
        }
    );

    server.registerTool(
        'slow_sum',
        {
            description: 'Adds two numbers after ms milliseconds, as a task when the client supports tasks.',
            inputSchema: z.object({ a: z.number(), b: z.number(), ms: z.number().int().min(0) })
        },
        async ({ a, b, ms }, ctx) => {
            const result = { ...text(String(a + b)), structuredContent: { sum: a + b } };
            if (!wantsTasks(ctx)) return result;
            const t = newTask({ statusMessage: `adding ${a} and ${b}` });
            t.timer = setTimeout(() => setTask(t, { status: 'completed', statusMessage: 'done', result: { resultType: 'complete', ...result } }), ms);
            return { resultType: 'task', content: [], ...wireTask(t) };
        }
    );

    server.registerTool(
        'approve',
        { description: 'A task that asks the user to approve item while it runs.', inputSchema: z.object({ item: z.string() }) },
        async ({ item }, ctx) => {
            if (!wantsTasks(ctx)) return { ...text('approve runs only as a task'), isError: true };
            const t = newTask({ statusMessage: `reviewing ${item}` });
            t.timer = setTimeout(() => {
                setTask(t, {
                    status: 'input_required',
                    statusMessage: `waiting for approval of ${item}`,
                    inputRequests: {
                        approval: inputRequired.elicit({ message: `Approve ${item}?`, requestedSchema: confirmSchema })
                    },
                    onUpdate: (responses) => {
                        const view = inputResponse(responses, 'approval');
                        if (view.kind === 'missing') return;
                        const ok = acceptedContent(responses, 'approval', confirmSchema)?.confirm === true;
                        setTask(t, {
                            status: 'completed',
                            statusMessage: 'done',
                            inputRequests: undefined,
                            onUpdate: undefined,
                            result: { resultType: 'complete', ...text(ok ? `approved ${item}` : `rejected ${item}`) }
                        });
                    }
                });
            }, POLL_MS);
            return { resultType: 'task', content: [], ...wireTask(t) };
        }
    );

    const nameSchema = z.object({ name: z.string() });
    server.registerPrompt(
        'greet',
        { description: 'Greets the user, whose name it asks for.', argsSchema: z.object({ tone: z.string() }) },
        async ({ tone }, ctx) => {
            const state = ctx.mcpReq.requestState();
            const content = acceptedContent(ctx.mcpReq.inputResponses, 'who', nameSchema);
            if (!content) {
                return inputRequired({
                    inputRequests: { who: inputRequired.elicit({ message: 'Your name?', requestedSchema: nameSchema }) },
                    requestState: `greet:${tone}`
                });
            }
            const text = `${tone} hello, ${content.name} (state ${JSON.stringify(state)})`;
            return { messages: [{ role: 'user', content: { type: 'text', text } }] };
        }
    );
    server.registerResource('vault', 'secret://vault', { mimeType: 'text/plain' }, async (uri, ctx) => {
        const state = ctx.mcpReq.requestState();
        const answer = inputResponse(ctx.mcpReq.inputResponses, 'unlock');
        if (answer.kind === 'missing') {
            return inputRequired({
                inputRequests: { unlock: inputRequired.elicit({ message: 'Unlock the vault?', requestedSchema: confirmSchema }) },
                requestState: 'vault'
            });
        }
        const ok = acceptedContent(ctx.mcpReq.inputResponses, 'unlock', confirmSchema)?.confirm === true;
        return { contents: [{ uri: uri.href, text: ok ? `opened (state ${JSON.stringify(state)})` : 'still locked' }] };
    });

    const taskParams = z.looseObject({ taskId: z.string() });
    server.server.setRequestHandler('tasks/get', { params: taskParams }, async (params) => wireTask(taskOf(params)));
    // The SDK lifts inputResponses off the params of every request, so
    // tasks/update finds them in the context.
    server.server.setRequestHandler('tasks/update', { params: taskParams }, async (params, ctx) => {
        const t = taskOf(params);
        if (t.status !== 'input_required' || !t.onUpdate) {
            throw new ProtocolError(ProtocolErrorCode.InvalidParams, `task ${t.taskId} is ${t.status}, not input_required`);
        }
        if (!ctx.mcpReq.inputResponses) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'tasks/update without inputResponses');
        t.onUpdate(ctx.mcpReq.inputResponses);
        return {};
    });
    server.server.setRequestHandler('tasks/cancel', { params: taskParams }, async (params) => {
        const t = taskOf(params);
        if (t.status === 'working' || t.status === 'input_required') {
            clearTimeout(t.timer);
            setTask(t, { status: 'cancelled', statusMessage: 'cancelled by the client', inputRequests: undefined, onUpdate: undefined });
        }
        return {};
    });
    return server;
}

const mode = process.argv[2];
if (mode === 'stdio') {
    serveStdio(build);
} else if (mode === 'http') {
    const handler = createMcpHandler(build);
    const srv = http.createServer(async (req, res) => {
        try {
            const chunks = [];
            for await (const c of req) chunks.push(c);
            const body = chunks.length ? Buffer.concat(chunks) : undefined;
            const request = new Request(`http://${req.headers.host}${req.url}`, {
                method: req.method,
                headers: req.headers,
                body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body
            });
            const response = await handler.fetch(request);
            res.writeHead(response.status, Object.fromEntries(response.headers));
            if (response.body) {
                for await (const c of response.body) res.write(c);
            }
            res.end();
        } catch (err) {
            console.error(err);
            if (!res.headersSent) res.writeHead(500);
            res.end();
        }
    });
    srv.on('error', (err) => {
        console.error(`listening: ${err.message}`);
        process.exit(1);
    });
    srv.listen(0, '127.0.0.1', () => {
        process.stdout.write(`http://127.0.0.1:${srv.address().port}/mcp\n`);
    });
} else {
    console.error('usage: tsv2server.mjs stdio|http');
    process.exit(2);
}
