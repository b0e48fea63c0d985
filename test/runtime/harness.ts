/**
 * A real pi parent session with the cadre extension and pi-ai's faux provider, for end-to-end
 * tests. Faux responses are routed by the session's context (the `<active_agent name="…"/>` tag in
 * a child's system prompt; no tag = the parent), never by arrival order.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
	type AssistantMessage,
	type CredentialStore,
	fauxAssistantMessage,
	fauxProvider,
	fauxText,
	fauxToolCall,
	getSystemMessageText,
	type Message,
} from "@earendil-works/pi-ai";
import {
	type AgentSession,
	createAgentSession,
	DefaultResourceLoader,
	type ExtensionFactory,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import cadre, { type CadreService, SERVICE_READY } from "../../src/hosts/pi/extension.ts";

export { fauxAssistantMessage, fauxText, fauxToolCall };

/** What a script sees of one model request. */
export interface Turn {
	/** The child's type from `<active_agent name="…"/>`, or "parent". */
	agent: string;
	system: string;
	messages: Message[];
	last: Message | undefined;
	/** Number of assistant messages so far in this session (0 on the first request). */
	step: number;
	/** Text of the last user or tool-result message. */
	lastText: string;
	/** The request's abort signal (a held response can end when the run is stopped). */
	signal?: AbortSignal;
	/** The tools the session offered the model in this request, by name, with their descriptions. */
	tools: { name: string; description: string }[];
}

/** A model script; a promise holds the response back (a child that finishes when the test says). */
export type Script = (turn: Turn) => AssistantMessage | Promise<AssistantMessage>;

function textOf(message: Message | undefined): string {
	if (!message) return "";
	const content = (message as { content?: unknown }).content;
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return (content as { type: string; text?: string }[])
		.filter((part) => part.type === "text")
		.map((part) => part.text ?? "")
		.join("");
}

/** The tools offered in a request: `context.tools`, then what system messages add and remove. */
function offeredTools(context: { messages: Message[]; tools?: { name: string; description?: string }[] }): Turn["tools"] {
	const tools = new Map((context.tools ?? []).map((tool) => [tool.name, tool.description ?? ""]));
	for (const message of context.messages) {
		const system = message as { role: string; toolsAdded?: { name: string; description?: string }[]; toolsRemoved?: { name: string }[] };
		if (system.role !== "system") continue;
		for (const tool of system.toolsRemoved ?? []) tools.delete(tool.name);
		for (const tool of system.toolsAdded ?? []) tools.set(tool.name, tool.description ?? "");
	}
	return [...tools].map(([name, description]) => ({ name, description }));
}

/** Turn a model context into a {@link Turn}. */
export function describeTurn(context: { messages: Message[]; tools?: { name: string; description?: string }[] }): Turn {
	const system = context.messages
		.filter((m) => (m as { role: string }).role === "system")
		.map((m) => getSystemMessageText(m as never))
		.join("\n");
	const agent = /<active_agent name="([^"]+)"\/>/.exec(system)?.[1] ?? "parent";
	const messages = context.messages.filter((m) => (m as { role: string }).role !== "system");
	const last = messages[messages.length - 1];
	return {
		agent,
		system,
		messages,
		last,
		step: messages.filter((m) => m.role === "assistant").length,
		lastText: textOf(last),
		tools: offeredTools(context),
	};
}

export interface ParentOptions {
	/** Project directory (default: a fresh temp dir). */
	cwd?: string;
	script: Script;
	/** Extension files placed in `<agentDir>/extensions/` (name → source). */
	agentExtensions?: Record<string, string>;
	/** More inline extensions for the parent. */
	extensionFactories?: ExtensionFactory[];
	/** Files under the agent dir (relative path → content), e.g. `agents/scout.md`. */
	agentFiles?: Record<string, string>;
	/** `<agentDir>/subagents.json` content. */
	subagentSettings?: Record<string, unknown>;
	/** Persist the parent session (default: in memory). */
	persisted?: boolean;
	/**
	 * Continue this persisted session file (what `/resume` and `pi -c` do): a new parent session,
	 * with a new extension instance, over an earlier session's file. Implies `persisted`.
	 */
	sessionFile?: string;
	/** Reuse this agent dir (a restart of the same user's pi) instead of a fresh one. */
	agentDir?: string;
	/** Whether the parent's session trusts the project (default: false). */
	projectTrusted?: boolean;
	/**
	 * pi's run mode as extensions see it (default "rpc": a driven session whose notifications start
	 * turns; an SDK session that binds no mode reports "print").
	 */
	mode?: "tui" | "rpc" | "json" | "print";
	/**
	 * pi's availability pass under the test's control (credentials in memory): `pending` — no pass
	 * has landed when the session starts (the faux provider is registered, pi's check is held);
	 * `settled` — the first pass lands, later ones wait while `availability.hold()` is in force.
	 */
	availability?: "pending" | "settled";
	/**
	 * Keep every request in `requests` (default true). A bench of many spawns turns it off: each
	 * kept request holds pi's copy of the whole conversation, a cost of the harness, not of cadre.
	 */
	keepRequests?: boolean;
	/**
	 * Record cadre's lifecycle events in `events` (default true). The benches turn it off: a
	 * listener on every event, keeping every payload, is the harness's, not cadre's.
	 */
	keepEvents?: boolean;
}

/** Holds pi's full availability passes (they list the credential store) until released. */
export interface AvailabilityGate {
	hold(): void;
	release(): void;
}

/** An empty in-memory credential store whose `list` (pi's full availability pass) can be held. */
function gatedCredentials(): { store: CredentialStore; gate: AvailabilityGate } {
	let held: Promise<void> | null = null;
	let open: () => void = () => {};
	const gate: AvailabilityGate = {
		hold() {
			if (!held) held = new Promise((resolve) => (open = resolve));
		},
		release() {
			open();
			held = null;
		},
	};
	const store: CredentialStore = {
		read: async () => undefined,
		async list() {
			while (held) await held;
			return [];
		},
		modify: async (_id, fn) => fn(undefined),
		delete: async () => {},
	};
	return { store, gate };
}

export interface Parent {
	session: AgentSession;
	cwd: string;
	agentDir: string;
	/** Every faux request, in arrival order (for assertions, not routing). */
	requests: Turn[];
	/** Events seen on pi.events. */
	events: { name: string; payload: Record<string, unknown> }[];
	/** The parent's model runtime (providers registered later go here). */
	runtime: ModelRuntime;
	/** pi's availability pass, when `availability` was given (else hold/release do nothing). */
	availability: AvailabilityGate;
	/** cadre's service, as another extension reaches it. */
	service(): CadreService;
	/** Emit pi's session_shutdown to the parent's extensions (what `/new`, quit and `pi -p` do). */
	shutdown(): Promise<void>;
	dispose(): void;
}

/** A fresh agent dir under the test's PI_CODING_AGENT_DIR (or `reuse`), set for this parent. */
function freshAgentDir(reuse?: string): string {
	const base = process.env.PI_CODING_AGENT_DIR ?? mkdtempSync("/tmp/cadre-agent-");
	const dir = reuse ?? mkdtempSync(join(base, "a-"));
	process.env.PI_CODING_AGENT_DIR = dir;
	return dir;
}

function sessionManagerFor(options: ParentOptions, cwd: string, agentDir: string): SessionManager {
	if (options.sessionFile) return SessionManager.open(options.sessionFile, join(agentDir, "sessions"));
	return options.persisted ? SessionManager.create(cwd, join(agentDir, "sessions")) : SessionManager.inMemory(cwd);
}

/** Create a parent pi session with cadre loaded and the faux model. */
export async function createParent(options: ParentOptions): Promise<Parent> {
	const agentDir = freshAgentDir(options.agentDir);
	const cwd = options.cwd ?? mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "proj-"));
	if (options.agentExtensions) {
		mkdirSync(join(agentDir, "extensions"), { recursive: true });
		for (const [name, source] of Object.entries(options.agentExtensions)) writeFileSync(join(agentDir, "extensions", name), source);
	}
	for (const [relative, content] of Object.entries(options.agentFiles ?? {})) {
		mkdirSync(dirname(join(agentDir, relative)), { recursive: true });
		writeFileSync(join(agentDir, relative), content);
	}
	if (options.subagentSettings) writeFileSync(join(agentDir, "subagents.json"), JSON.stringify(options.subagentSettings));
	const gated = options.availability ? gatedCredentials() : null;
	if (options.availability === "pending") gated?.gate.hold();
	const runtime = await ModelRuntime.create({
		...(gated ? { credentials: gated.store } : { authPath: join(agentDir, "auth.json") }),
		modelsPath: join(agentDir, "models.json"),
		allowModelNetwork: false,
		refreshOnCreate: options.availability !== "pending",
	});
	const faux = fauxProvider({ provider: "faux", models: [{ id: "parent-model" }, { id: "child-model", reasoning: true }] });
	runtime.registerNativeProvider(faux.provider);
	// With availability pending, pi's check of the new provider stays held: faux is not in the snapshot.
	if (options.availability !== "pending") await runtime.setRuntimeApiKey("faux", "test-key");
	const requests: Turn[] = [];
	const route = (context: { messages: Message[]; tools?: { name: string; description?: string }[] }, streamOptions?: { signal?: AbortSignal }) => {
		const turn: Turn = { ...describeTurn(context), signal: streamOptions?.signal };
		if (options.keepRequests !== false) requests.push(turn);
		return options.script(turn);
	};
	faux.setResponses(Array.from({ length: 4000 }, () => route as never));
	const events: Parent["events"] = [];
	let service: CadreService | null = null;
	const recorder: ExtensionFactory = (pi) => {
		pi.events.on(SERVICE_READY, (value) => {
			service = value as CadreService;
		});
		if (options.keepEvents === false) return;
		for (const name of ["cadre:created", "cadre:started", "cadre:completed", "cadre:failed", "cadre:steered"]) {
			pi.events.on(name, (payload) => events.push({ name, payload: payload as Record<string, unknown> }));
		}
	};
	const settingsManager = SettingsManager.create(cwd, agentDir, { projectTrusted: options.projectTrusted ?? false });
	const loader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		extensionFactories: [cadre, recorder, ...(options.extensionFactories ?? [])],
	});
	await loader.reload();
	const model = faux.getModel("parent-model");
	const { session } = await createAgentSession({
		cwd,
		agentDir,
		modelRuntime: runtime,
		model,
		thinkingLevel: "off",
		resourceLoader: loader,
		settingsManager,
		sessionManager: sessionManagerFor(options, cwd, agentDir),
	});
	await session.bindExtensions({ mode: options.mode ?? "rpc" });
	return {
		session,
		cwd,
		agentDir,
		requests,
		events,
		runtime,
		availability: gated?.gate ?? { hold() {}, release() {} },
		service() {
			if (!service) throw new Error("cadre service was not announced");
			return service;
		},
		async shutdown() {
			await session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
		},
		dispose: () => session.dispose(),
	};
}

/** The whole result of a stored tool result's run, from the service by its id (stored details are slim, ADR 0188). */
export function fullResult(parent: Parent | null, result: { details: unknown } | undefined): ReturnType<CadreService["get"]> {
	const id = (result?.details as { id?: unknown } | undefined)?.id;
	return typeof id === "string" ? parent?.service().get(id) : undefined;
}

/** The text of the tool results the parent received, by tool name. */
export function toolResults(session: AgentSession, toolName: string): { text: string; isError: boolean; details: unknown }[] {
	return session.messages
		.filter((m) => m.role === "toolResult" && (m as { toolName?: string }).toolName === toolName)
		.map((m) => ({ text: textOf(m as Message), isError: Boolean((m as { isError?: boolean }).isError), details: (m as { details?: unknown }).details }));
}

/** The tool results of a run's last step (parent side), as text. */
export function lastToolResultText(turn: Turn): string {
	return turn.lastText;
}

/** Captures what pi commands print (without a UI they write to stdout) until `restore()`. */
export function captureStdout(): { text: () => string; restore: () => void } {
	const chunks: string[] = [];
	const original = process.stdout.write.bind(process.stdout);
	process.stdout.write = ((chunk: string | Uint8Array) => {
		chunks.push(String(chunk));
		return true;
	}) as typeof process.stdout.write;
	return { text: () => chunks.join(""), restore: () => (process.stdout.write = original) };
}

/** Runs a parent command (`/subagents …`) and returns what it printed. */
export async function commandOutput(parent: Parent | null, text: string): Promise<string> {
	const out = captureStdout();
	try {
		await parent?.session.prompt(text);
	} finally {
		out.restore();
	}
	return out.text();
}

/** Polls `check` every 5 ms until it holds; fails with `what` after `ms`. */
export async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
	const end = Date.now() + ms;
	while (!check()) {
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}
