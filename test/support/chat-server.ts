/**
 * A small OpenAI-compatible chat-completions server on 127.0.0.1 for tests and benches that go
 * through pi's real provider code (`api: "openai-completions"` in a `models.json`): it answers
 * `POST /v1/chat/completions` with a streamed (SSE) reply — text, tool calls, usage — that a script
 * decides per request, routed by the request's content (the child's `<active_agent name="…"/>`
 * tag), never by arrival order. It counts the requests in flight, so a test can check a limiter
 * at the server, and a reply can be held until the test releases it (or the client goes away).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the script sees it. */
export interface ChatRequest {
	/** Arrival number, from 1. */
	n: number;
	model: string;
	/** The system message's text. */
	system: string;
	/** The child's type from `<active_agent name="…"/>`, or "parent". */
	agent: string;
	/** The messages after the system message (OpenAI shape). */
	messages: { role: string; content?: unknown; tool_calls?: unknown[] }[];
	/** How many assistant messages the conversation has so far (0 on the first request). */
	step: number;
	/** The text of the last message (the prompt, or a tool result). */
	lastText: string;
	/** Names of the tools the request offers. */
	tools: string[];
	authorization: string | null;
	/** Resolves when the client closes the connection before the reply ended (an abort). */
	closed: Promise<void>;
}

/** What the server streams back; `hold` delays it (the reply is dropped when the client leaves first). */
export interface ChatReply {
	text?: string;
	toolCalls?: { name: string; arguments: Record<string, unknown> }[];
	usage?: { prompt: number; completion: number };
	hold?: Promise<unknown>;
	/**
	 * Send the usage with the first piece of text (as some providers report it while streaming),
	 * then wait for this before the rest (the reply is dropped when the client leaves first).
	 */
	usageFirstThenHold?: Promise<unknown>;
}

export type ChatScript = (request: ChatRequest) => ChatReply | Promise<ChatReply>;

export interface ChatServer {
	/** `http://127.0.0.1:<port>/v1` */
	baseUrl: string;
	/** Every request, in arrival order (for assertions, not routing). */
	requests: ChatRequest[];
	/** Requests whose reply has not ended. */
	inFlight(): number;
	/** The most requests ever in flight at once. */
	maxInFlight(): number;
	/** Resolves when `count` requests have arrived. */
	waitForRequests(count: number): Promise<void>;
	/** Replace the script. */
	setScript(script: ChatScript): void;
	close(): Promise<void>;
}

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return (content as { type?: string; text?: string }[])
		.filter((part) => part.type === "text")
		.map((part) => part.text ?? "")
		.join("");
}

function describe(n: number, body: Record<string, unknown>, req: IncomingMessage, closed: Promise<void>): ChatRequest {
	const all = (Array.isArray(body.messages) ? body.messages : []) as ChatRequest["messages"];
	const system = all
		.filter((m) => m.role === "system" || m.role === "developer")
		.map((m) => textOf(m.content))
		.join("\n");
	const messages = all.filter((m) => m.role !== "system" && m.role !== "developer");
	const last = messages[messages.length - 1];
	const tools = (Array.isArray(body.tools) ? body.tools : []) as { function?: { name?: string } }[];
	return {
		n,
		model: String(body.model ?? ""),
		system,
		agent: /<active_agent name="([^"]+)"\/>/.exec(system)?.[1] ?? "parent",
		messages,
		step: messages.filter((m) => m.role === "assistant").length,
		lastText: textOf(last?.content),
		tools: tools.map((tool) => tool.function?.name ?? "").filter(Boolean),
		authorization: req.headers.authorization ?? null,
		closed,
	};
}

function chunk(id: string, model: string, delta: Record<string, unknown>, finish: string | null = null): string {
	return `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function usageOf(reply: ChatReply) {
	const usage = reply.usage ?? { prompt: 100, completion: 10 };
	return { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion };
}

async function stream(res: ServerResponse, request: ChatRequest, reply: ChatReply): Promise<void> {
	const id = `chatcmpl-${request.n}`;
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
	res.write(chunk(id, request.model, { role: "assistant", content: "" }));
	const text = reply.text ?? "";
	// Two pieces, so the client really assembles a stream.
	const half = Math.ceil(text.length / 2);
	if (reply.usageFirstThenHold) {
		res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: request.model, choices: [{ index: 0, delta: { content: text.slice(0, half) }, finish_reason: null }], usage: usageOf(reply) })}\n\n`);
		await Promise.race([reply.usageFirstThenHold, request.closed]);
		if (res.destroyed || res.writableEnded) return;
		if (text.slice(half)) res.write(chunk(id, request.model, { content: text.slice(half) }));
	} else for (const piece of [text.slice(0, half), text.slice(half)]) if (piece) res.write(chunk(id, request.model, { content: piece }));
	(reply.toolCalls ?? []).forEach((call, index) => {
		const args = JSON.stringify(call.arguments);
		res.write(chunk(id, request.model, { tool_calls: [{ index, id: `call_${request.n}_${index}`, type: "function", function: { name: call.name, arguments: "" } }] }));
		res.write(chunk(id, request.model, { tool_calls: [{ index, function: { arguments: args } }] }));
	});
	res.write(chunk(id, request.model, {}, reply.toolCalls?.length ? "tool_calls" : "stop"));
	res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: request.model, choices: [], usage: usageOf(reply) })}\n\n`);
	res.end("data: [DONE]\n\n");
}

/** Start the server on 127.0.0.1 (a free port). */
export async function startChatServer(script: ChatScript): Promise<ChatServer> {
	let current = script;
	const requests: ChatRequest[] = [];
	const waiters: { count: number; resolve: () => void }[] = [];
	let inFlight = 0;
	let maxInFlight = 0;
	const server = createServer((req, res) => {
		if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
			res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
			return;
		}
		inFlight++;
		maxInFlight = Math.max(maxInFlight, inFlight);
		let ended = false;
		let onClosed: () => void = () => {};
		const closed = new Promise<void>((resolve) => (onClosed = resolve));
		res.on("close", () => {
			if (!ended) {
				ended = true;
				inFlight--;
			}
			onClosed();
		});
		const parts: Buffer[] = [];
		req.on("data", (part: Buffer) => parts.push(part));
		req.on("end", async () => {
			const body = JSON.parse(Buffer.concat(parts).toString("utf8") || "{}") as Record<string, unknown>;
			const request = describe(requests.length + 1, body, req, closed);
			requests.push(request);
			for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
				waiters.splice(waiters.indexOf(waiter), 1);
				waiter.resolve();
			}
			try {
				const reply = await current(request);
				if (reply.hold) await Promise.race([reply.hold, closed]);
				if (res.destroyed || res.writableEnded) return;
				// Counted out before the last byte: the client may start its next request at once.
				ended = true;
				inFlight--;
				await stream(res, request, reply);
			} catch (error) {
				if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: (error as Error).message } }));
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		inFlight: () => inFlight,
		maxInFlight: () => maxInFlight,
		waitForRequests: (count) =>
			requests.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
		setScript(next) {
			current = next;
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** A `models.json` with one provider `stub` at the server, its models reasoning or not. */
export function stubModels(baseUrl: string, ids: readonly string[] = ["model-a"], apiKey = "stub-key"): unknown {
	return {
		providers: {
			stub: {
				baseUrl,
				api: "openai-completions",
				apiKey,
				models: ids.map((id) => ({ id, name: id, reasoning: false, input: ["text"], contextWindow: 128000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } })),
			},
		},
	};
}
