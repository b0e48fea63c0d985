/**
 * `npm run bench:fanout` (issue 15): the parent spawns N background children in one message; a
 * faux model answers every request at once. For N = 10, 50 and 500 it prints the parent's model
 * requests and the wall time from the parent's prompt until every child was delivered to the
 * parent (the notification message that carries it ended), next to the floor measured in the same
 * run: a bare extension that does the same fan-out with `createAgentSession` (one bare child session
 * per call, no limiter, completions held while the parent is busy and sent as one message when it
 * settles). cadre runs once with `maxConcurrent` N (its limiter admits everything at once, as the
 * floor does) and once with the default 4, where children finish a few at a time and every one that
 * finishes while the parent is idle starts a turn at once (no timer holds it back; ADR 0070).
 * Targets: parent requests ≤ 10 at every N; wall ≤ 2.5× the floor at N = 500. Then a two-level
 * fan-out (issue 21): 10 leads × 10 children, against the flat floor of as many bare sessions.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { benchRoot, bareLoader, ms, now } from "./support.ts";

const { fauxAssistantMessage, fauxProvider, fauxToolCall, getSystemMessageText } = await import("@earendil-works/pi-ai");
const { createAgentSession, DefaultResourceLoader, ModelRuntime, SessionManager, SettingsManager } = await import("@earendil-works/pi-coding-agent");
const { Type } = await import("typebox");
const { createParent } = await import("../test/runtime/harness.ts");

type Message = import("@earendil-works/pi-ai").Message;
type AgentSession = import("@earendil-works/pi-coding-agent").AgentSession;
type ExtensionAPI = import("@earendil-works/pi-coding-agent").ExtensionAPI;

interface Outcome {
	parentRequests: number;
	wallMs: number;
}

const spawnCalls = (n: number) =>
	fauxAssistantMessage(
		Array.from({ length: n }, (_, i) => fauxToolCall("subagent", { prompt: `task ${i}`, description: `task ${i}`, subagent_type: "explore", run_in_background: true })),
		{ stopReason: "toolUse" },
	);

/** Children delivered so far: notification messages of `customType`, counted by their `details`. */
function deliveryCounter(session: AgentSession, customType: string, count: (details: unknown) => number) {
	let delivered = 0;
	let at = 0;
	session.subscribe((event) => {
		if (event.type !== "message_end" || event.message.role !== "custom" || event.message.customType !== customType) return;
		delivered += count(event.message.details);
		at = now();
	});
	return { delivered: () => delivered, lastAt: () => at };
}

async function settle(session: AgentSession, done: () => boolean) {
	const end = Date.now() + 120_000;
	while (!done() || !session.isIdle) {
		if (Date.now() > end) throw new Error("fan-out did not finish");
		await session.waitForIdle();
		await new Promise((resolve) => setTimeout(resolve, 1));
	}
}

/**
 * What a parent does once, at its start, is over: the harness wrote its definition files a moment
 * ago, and a load within 100 ms of a change is not kept (ADR 0198: racily clean), so every spawn
 * would load them again; the parent's background worktree recovery runs its `git`. A user's session
 * starts long before its first fan-out.
 */
const pastStartup = () => new Promise((resolve) => setTimeout(resolve, 150));

/** cadre: the `subagent` tool N times in one parent message. */
async function cadre(n: number, maxConcurrent: number): Promise<Outcome> {
	const parent = await createParent({
		subagentSettings: { maxConcurrent },
		script: (turn) => {
			if (turn.agent !== "parent") return fauxAssistantMessage("child done");
			if (turn.lastText === "fan out" && turn.last?.role === "user") return spawnCalls(n);
			return fauxAssistantMessage("ok");
		},
	});
	await parent.session.prompt("warm up");
	await pastStartup();
	const counter = deliveryCounter(parent.session, "cadre-notification", (details) => {
		const runs = (details as { runs?: unknown[] } | undefined)?.runs;
		return Array.isArray(runs) ? runs.length : 1;
	});
	const before = parent.requests.filter((turn) => turn.agent === "parent").length;
	const t0 = now();
	await parent.session.prompt("fan out");
	await settle(parent.session, () => counter.delivered() >= n);
	const outcome = { parentRequests: parent.requests.filter((turn) => turn.agent === "parent").length - before, wallMs: counter.lastAt() - t0 };
	if (counter.delivered() !== n) throw new Error(`cadre delivered ${counter.delivered()} of ${n} children`);
	parent.dispose();
	return outcome;
}

/** The floor: a bare extension whose `subagent` tool runs a bare createAgentSession child. */
async function floor(n: number): Promise<Outcome> {
	const agentDir = mkdtempSync(join(benchRoot, "floor-agent-"));
	const cwd = mkdtempSync(join(benchRoot, "floor-proj-"));
	mkdirSync(join(agentDir, "sessions"), { recursive: true });
	const runtime = await ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: join(agentDir, "models.json"), allowModelNetwork: false });
	const faux = fauxProvider({ provider: "floor", models: [{ id: "parent" }, { id: "child" }] });
	runtime.registerNativeProvider(faux.provider);
	await runtime.setRuntimeApiKey("floor", "key");
	let parentRequests = 0;
	const route = (context: { messages: Message[] }) => {
		const system = context.messages.filter((m) => (m as { role: string }).role === "system").map((m) => getSystemMessageText(m as never)).join("\n");
		if (system.includes("You are a bench child.")) return fauxAssistantMessage("child done");
		parentRequests++;
		const last = context.messages[context.messages.length - 1];
		const text = last?.role === "user" && Array.isArray(last.content) ? last.content.map((part) => (part.type === "text" ? part.text : "")).join("") : "";
		return text === "fan out" ? spawnCalls(n) : fauxAssistantMessage("ok");
	};
	faux.setResponses(Array.from({ length: 4 * n + 100 }, () => route as never));
	const extension = (pi: ExtensionAPI) => {
		const held: string[] = [];
		const send = (notes: string[]) =>
			pi.sendMessage({ customType: "floor-notification", content: notes.join("\n\n"), display: true, details: { count: notes.length } }, { triggerTurn: true, deliverAs: "followUp" });
		let next = 0;
		pi.registerTool({
			name: "subagent",
			label: "floor",
			description: "Run a task in a background child session.",
			parameters: Type.Object({ prompt: Type.String(), description: Type.String(), subagent_type: Type.Optional(Type.String()), run_in_background: Type.Optional(Type.Boolean()) }),
			async execute(_id, params, _signal, _update, ctx) {
				const id = `child-${next++}`;
				void (async () => {
					const { session } = await createAgentSession({
						cwd,
						agentDir,
						modelRuntime: runtime,
						model: faux.getModel("child"),
						thinkingLevel: "off",
						resourceLoader: bareLoader("You are a bench child."),
						tools: ["read", "grep", "find", "ls"],
						sessionManager: SessionManager.create(cwd, join(agentDir, "sessions")),
						settingsManager: SettingsManager.inMemory({}),
					});
					await session.prompt(params.prompt);
					const answer = session.messages.at(-1);
					session.dispose();
					const note = `Background ${id} completed: ${JSON.stringify(answer?.role === "assistant" ? answer.content : null)}`;
					if (ctx.isIdle()) send([note]);
					else held.push(note);
				})();
				return { content: [{ type: "text", text: `Started ${id} in the background.` }], details: undefined };
			},
		});
		pi.on("agent_settled", () => {
			if (held.length > 0) send(held.splice(0));
		});
	};
	const settingsManager = SettingsManager.create(cwd, agentDir);
	const loader = new DefaultResourceLoader({ cwd, agentDir, settingsManager, extensionFactories: [extension] });
	await loader.reload();
	const { session } = await createAgentSession({
		cwd,
		agentDir,
		modelRuntime: runtime,
		model: faux.getModel("parent"),
		thinkingLevel: "off",
		resourceLoader: loader,
		settingsManager,
		sessionManager: SessionManager.inMemory(cwd),
	});
	await session.bindExtensions({ mode: "rpc" });
	await session.prompt("warm up");
	const counter = deliveryCounter(session, "floor-notification", (details) => (details as { count: number }).count);
	const before = parentRequests;
	const t0 = now();
	await session.prompt("fan out");
	await settle(session, () => counter.delivered() >= n);
	const outcome = { parentRequests: parentRequests - before, wallMs: counter.lastAt() - t0 };
	session.dispose();
	return outcome;
}

/** The ids a session's tool results name as started in the background. */
function startedIds(messages: Message[]): string[] {
	return messages.flatMap((message) => {
		if (message.role !== "toolResult") return [];
		const text = message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
		return [...text.matchAll(/Started sub-agent (\S+)/g)].map((match) => match[1] as string);
	});
}

/**
 * Two levels (issue 21): the root starts `leads` leads in the background in one message, each lead
 * starts `children` explore children in the background in one message and waits for them, the root
 * waits for the leads. Wall from the root's prompt to its last answer; the model requests of the root
 * and of the leads.
 */
async function cadreTwoLevel(leads: number, children: number, maxConcurrent: number): Promise<Outcome & { leadRequests: number; runs: number }> {
	const spawnMany = (n: number, type: string) =>
		fauxAssistantMessage(
			Array.from({ length: n }, (_, i) => fauxToolCall("subagent", { prompt: `task ${i}`, description: `task ${i}`, subagent_type: type, run_in_background: true })),
			{ stopReason: "toolUse" },
		);
	const waitFor = (messages: Message[]) => fauxAssistantMessage([fauxToolCall("get_subagent_result", { agent_id: startedIds(messages), wait: true })], { stopReason: "toolUse" });
	const parent = await createParent({
		subagentSettings: { maxConcurrent },
		agentFiles: { "agents/lead.md": "---\ndescription: Bench lead\ntools: [read, subagent]\nsubagents: [explore]\n---\nDelegate.\n" },
		script: (turn) => {
			if (turn.agent === "explore") return fauxAssistantMessage("child done");
			if (turn.agent === "lead") return turn.step === 0 ? spawnMany(children, "explore") : turn.step === 1 ? waitFor(turn.messages) : fauxAssistantMessage("lead done");
			if (turn.lastText === "fan out" && turn.last?.role === "user") return spawnMany(leads, "lead");
			// Right after the spawns (the last message is a `subagent` result): wait for every lead.
			if (turn.last?.role === "toolResult" && (turn.last as { toolName?: string }).toolName === "subagent") return waitFor(turn.messages);
			return fauxAssistantMessage("ok");
		},
	});
	await parent.session.prompt("warm up");
	await pastStartup();
	const before = parent.requests.length;
	const t0 = now();
	await parent.session.prompt("fan out");
	await parent.session.waitForIdle();
	const wallMs = now() - t0;
	const turns = parent.requests.slice(before);
	const runs = parent.service().list();
	if (runs.filter((run) => run.status === "completed").length !== leads * (children + 1)) throw new Error(`two-level fan-out: ${runs.filter((run) => run.status === "completed").length} of ${leads * (children + 1)} runs completed`);
	parent.dispose();
	return { parentRequests: turns.filter((turn) => turn.agent === "parent").length, leadRequests: turns.filter((turn) => turn.agent === "lead").length, wallMs, runs: runs.length };
}

const line = (label: string, outcome: Outcome, floorWall?: number) =>
	`${label} ${String(outcome.parentRequests).padStart(3)} parent requests, wall ${ms(outcome.wallMs).padStart(11)}${floorWall ? `  ×${(outcome.wallMs / floorWall).toFixed(2)} floor` : ""}`;
// Warm up both paths (module loading, JIT) so the first measured N does not pay for it.
await floor(5);
await cadre(5, 5);
console.log("fan-out: N background children in one parent message (faux model), prompt → every child delivered to the parent");
// `BENCH_ONLY=two-level` prints the two-level fan-out alone.
for (const n of process.env.BENCH_ONLY === "two-level" ? [] : [10, 50, 500]) {
	const bare = await floor(n);
	const unlimited = await cadre(n, n);
	const limited = await cadre(n, 4);
	console.log(`  N=${n}${n === 500 ? "  (targets: requests ≤ 10, wall ≤ 2.5× floor)" : "  (target: requests ≤ 10)"}`);
	console.log(line("    floor (bare createAgentSession extension):", bare));
	console.log(line("    cadre, maxConcurrent N (as the floor):     ", unlimited, bare.wallMs));
	console.log(line("    cadre, maxConcurrent 4 (the default):      ", limited, bare.wallMs));
}
{
	// Two levels, 10 leads × 10 children: 110 child sessions; the floor is the flat fan-out of as many bare sessions.
	const bare = await floor(110);

	console.log("two-level fan-out: 10 leads × 10 explore children each (110 runs), root prompt → its last answer (issue 21)");
	console.log(line("    floor (110 bare sessions, flat):           ", bare));
	console.log(line("    cadre flat, 110 children, maxConcurrent 110:", await cadre(110, 110), bare.wallMs));
	for (const max of [110, 4]) {
		const tree = await cadreTwoLevel(10, 10, max);
		console.log(`${line(`    cadre two levels, maxConcurrent ${String(max).padEnd(3)}:       `, tree, bare.wallMs)}; ${tree.leadRequests} lead requests`);
	}
}
process.exit(0);
