/**
 * `npm run bench:spawn` (spec 07): spawn overhead from the `subagent` tool call to the child's
 * first model request (p50/p95 over 100 spawns, with and without extensions in the child, and the
 * floor — a bare `createAgentSession` child — in the same run); wall time and RSS for 1, 10 and 50
 * concurrent background children; memory retained per finished child; the three tools'
 * description + schema size in tokens (chars/4); file-system calls per spawn (fs-counter.ts) and
 * the parent's stored tool result per child (the message as pi keeps it, JSON), each against the
 * floor (for the result: the child's answer as a bare extension's tool returns it, no details).
 * Files are counted in the sequential runs only (both sides pay the counter there); the interleaved
 * rounds run without it.
 * Beside them, spawn overhead at depth 2 (a lead child spawns) against depth 1 (issue 21;
 * `BENCH_ONLY=depth` prints only that; `BENCH_ONLY=interleaved` only the alternating rounds).
 * `BENCH_REPO=1` puts the interleaved cadre parent in a git repository (the full run prints both).
 * `BENCH_N` sets the spawn count (default 100). All with pi-ai's faux model, offline. cadre's
 * parents keep no request log (`keepRequests: false`): the test harness's log holds pi's copy of
 * the whole conversation per request, hundreds of MB over a run, whose garbage collection would be
 * billed to cadre's spawns; the measured ones keep no events either (`keepEvents: false`: the
 * harness's listener on every lifecycle event).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { bareLoader, benchRoot as root, ms, now } from "./support.ts";
import { fsCalls } from "./fs-counter.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const { fauxAssistantMessage, fauxProvider, fauxToolCall } = await import("@earendil-works/pi-ai");
const { createAgentSession, DefaultResourceLoader, ModelRuntime, SessionManager, SettingsManager } = await import("@earendil-works/pi-coding-agent");
const { Type } = await import("typebox");
const { createParent, describeTurn } = await import("../test/runtime/harness.ts");

const pct = (values: number[], p: number) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

/** A tiny extension of the kind users load: a tool and a tool_call handler. */
const EXTENSION = (n: number) => `
import { Type } from "typebox";
export default function (pi) {
	pi.registerTool({ name: "ext_tool_${n}", label: "t", description: "bench tool ${n}", parameters: Type.Object({}),
		async execute() { return { content: [{ type: "text", text: "ok" }], details: undefined }; } });
	pi.on("tool_call", () => undefined);
}
`;

/** What one spawn cycle costs besides time: file calls and the stored tool result (chars of JSON). */
interface SpawnCosts {
	fsPerSpawn: number;
	fsTop: string;
	resultChars: number;
	/** Where the calls named by `BENCH_FS_TRACE` came from, in the measured spawns. */
	fsStacks: string;
	/** Of which the `details` field. */
	detailsChars: number;
	/** Of which the text the model reads. */
	textChars?: number;
}
const costs: { cadre?: SpawnCosts; floor?: SpawnCosts; extension?: SpawnCosts } = {};

/** The mean size of the parent's stored `subagent` tool results (JSON chars), and of their `details`. */
function storedResultChars(messages: readonly unknown[]): { resultChars: number; detailsChars: number; textChars: number } {
	const results = messages.filter((m) => (m as { role?: string; toolName?: string }).role === "toolResult" && (m as { toolName?: string }).toolName === "subagent");
	const mean = (size: (m: unknown) => number) => results.reduce((sum: number, m) => sum + size(m), 0) / Math.max(1, results.length);
	const text = (m: unknown) => ((m as { content?: { text?: string }[] }).content ?? []).reduce((sum, part) => sum + (part.text ?? "").length, 0);
	return { resultChars: mean((m) => JSON.stringify(m).length), detailsChars: mean((m) => JSON.stringify((m as { details?: unknown }).details ?? null).length), textChars: mean(text) };
}

/**
 * A real project is older than the racy window of the files' cache (stat-key.ts RACY_NS): a load
 * within 100 ms of a change is used once and not kept, which a fresh temp project — and the first
 * spawn, which makes cadre's folders in the agent dir — would make every spawn of the next 100 ms
 * pay. The benches wait past it after creating a parent and after the warm-up spawns.
 */
const pastRacyWindow = () => new Promise((resolve) => setTimeout(resolve, 150));

/** A project in a git repository with one commit (where users spawn from). */
function gitProject(): string {
	const dir = mkdtempSync(join(root, "repo-"));
	const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
	git("init", "-q");
	writeFileSync(join(dir, "README.md"), "bench\n");
	git("add", ".");
	git("-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "init");
	return dir;
}

/** A parent measured by spawning: `spawn` runs one parent turn whose `subagent` call starts one child. */
interface SpawningParent {
	spawn(i: number): Promise<void>;
	/** Tool call → the child's first request, one per spawn so far. */
	samples: number[];
	messages(): readonly unknown[];
	dispose(): void;
}

/** A real cadre parent whose model calls `subagent` once per turn (with 3 parent extensions in the child, or none), in a plain directory or a git repository. */
async function cadreParent(extensions: boolean, inRepo = false): Promise<SpawningParent> {
	const samples: number[] = [];
	let started = 0;
	let pendingChildRequest = false;
	const parent = await createParent({
		cwd: inRepo ? gitProject() : undefined,
		keepRequests: false,
		keepEvents: false,
		agentExtensions: extensions ? { "a.ts": EXTENSION(1), "b.ts": EXTENSION(2), "c.ts": EXTENSION(3) } : undefined,
		extensionFactories: [
			(pi) => {
				pi.on("tool_call", (event) => {
					if (event.toolName === "subagent") {
						started = now();
						pendingChildRequest = true;
					}
				});
			},
		],
		script: (turn) => {
			if (turn.agent !== "parent") {
				if (pendingChildRequest) {
					samples.push(now() - started);
					pendingChildRequest = false;
				}
				return fauxAssistantMessage("child done");
			}
			if (turn.last?.role === "toolResult") return fauxAssistantMessage("ok");
			return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "say done", description: "bench child", subagent_type: "explore" })], {
				stopReason: "toolUse",
			});
		},
	});
	await pastRacyWindow();
	return { spawn: (i) => parent.session.prompt(`spawn ${i}`), samples, messages: () => parent.session.messages, dispose: () => parent.dispose() };
}

/** Spawn overhead through a real parent: tool_call of `subagent` → the child's first request. */
async function spawnOverhead(count: number, extensions: boolean): Promise<number[]> {
	const parent = await cadreParent(extensions);
	for (let i = 0; i < 5; i++) await parent.spawn(i);
	await pastRacyWindow();
	fsCalls.reset();
	for (let i = 5; i < count + 5; i++) await parent.spawn(i);
	fsCalls.stop();
	if (!extensions) costs.cadre ??= { fsPerSpawn: fsCalls.count() / count, fsTop: fsCalls.top(14), fsStacks: fsCalls.stacks(), ...storedResultChars(parent.messages()) };
	parent.dispose();
	return parent.samples.slice(5);
}

/** The floor's child: a bare createAgentSession session with a prebuilt loader and in-memory settings. */
async function bareChild(o: { cwd: string; agentDir: string; runtime: Awaited<ReturnType<typeof ModelRuntime.create>>; model: ReturnType<ReturnType<typeof fauxProvider>["getModel"]>; loader: ReturnType<typeof bareLoader> }) {
	const { session } = await createAgentSession({
		cwd: o.cwd,
		agentDir: o.agentDir,
		modelRuntime: o.runtime,
		model: o.model,
		thinkingLevel: "off",
		resourceLoader: o.loader,
		tools: ["read", "grep", "find", "ls"],
		sessionManager: SessionManager.create(o.cwd, join(o.agentDir, "floor-sessions")),
		settingsManager: SettingsManager.inMemory({}),
	});
	return session;
}

/** The floor: a bare createAgentSession child with a prebuilt loader, to its first request. */
async function floor(count: number): Promise<number[]> {
	const agentDir = process.env.PI_CODING_AGENT_DIR ?? root;
	const runtime = await ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: join(agentDir, "models.json"), allowModelNetwork: false });
	const faux = fauxProvider({ provider: "floor", models: [{ id: "m" }] });
	runtime.registerNativeProvider(faux.provider);
	let started = 0;
	const samples: number[] = [];
	faux.setResponses(
		Array.from({ length: count + 10 }, () => () => {
			samples.push(now() - started);
			return fauxAssistantMessage("done");
		}) as never,
	);
	const cwd = mkdtempSync(join(root, "floor-"));
	const loader = bareLoader("You are a bench child.");
	let floorResult = 0;
	for (let i = 0; i < count + 5; i++) {
		if (i === 5) fsCalls.reset();
		started = now();
		const session = await bareChild({ cwd, agentDir, runtime, model: faux.getModel(), loader });
		await session.prompt("go");
		// What a bare extension's tool would store for this child: its answer, no details.
		const answer = session.getLastAssistantText() ?? "";
		floorResult = JSON.stringify({ role: "toolResult", toolCallId: "call_0000000000", toolName: "subagent", content: [{ type: "text", text: answer }], isError: false, timestamp: Date.now() }).length;
		session.dispose();
	}
	fsCalls.stop();
	costs.floor = { fsPerSpawn: fsCalls.count() / count, fsTop: fsCalls.top(), resultChars: floorResult, detailsChars: 0, fsStacks: "" };
	return samples.slice(5);
}

/**
 * The floor as the issue names it (ADR 0193): a bare `createAgentSession` extension — a parent pi
 * session whose `subagent` tool starts a bare child (prebuilt loader, in-memory settings), waits
 * for its answer and returns it with the child's usage (what pi asks of a tool with nested model
 * calls), no details. Measured like cadre: the parent's `subagent` tool call → the child's first
 * request; file calls per spawn cycle (the parent's own turns included); the stored result as pi
 * keeps it.
 */
async function floorExtensionParent(count: number): Promise<SpawningParent> {
	const agentDir = mkdtempSync(join(root, "floor-agent-"));
	const cwd = mkdtempSync(join(root, "floor-ext-"));
	const runtime = await ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: join(agentDir, "models.json"), allowModelNetwork: false });
	const faux = fauxProvider({ provider: "floorext", models: [{ id: "m" }] });
	runtime.registerNativeProvider(faux.provider);
	const samples: number[] = [];
	let started = 0;
	let pending = false;
	const CHILD = "You are a bench child.";
	const route = (context: Parameters<typeof describeTurn>[0]) => {
		const turn = describeTurn(context);
		if (turn.system.includes(CHILD)) {
			if (pending) samples.push(now() - started);
			pending = false;
			return fauxAssistantMessage("child done");
		}
		if (turn.last?.role === "toolResult") return fauxAssistantMessage("ok");
		return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "say done" })], { stopReason: "toolUse" });
	};
	faux.setResponses(Array.from({ length: 4 * (count + 10) }, () => route as never));
	const loader = bareLoader(CHILD);
	const extension = (pi: import("@earendil-works/pi-coding-agent").ExtensionAPI) => {
		pi.on("tool_call", (event) => {
			if (event.toolName !== "subagent") return;
			started = now();
			pending = true;
		});
		pi.registerTool({
			name: "subagent",
			label: "Sub-agent",
			description: "Delegate a task to a sub-agent.",
			parameters: Type.Object({ prompt: Type.String() }),
			async execute(_id: string, params: { prompt: string }) {
				const session = await bareChild({ cwd, agentDir, runtime, model: faux.getModel(), loader });
				await session.prompt(params.prompt);
				const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
				for (const m of session.messages) {
					if (m.role !== "assistant") continue;
					for (const key of ["input", "output", "cacheRead", "cacheWrite", "totalTokens"] as const) usage[key] += m.usage[key];
					for (const key of ["input", "output", "cacheRead", "cacheWrite", "total"] as const) usage.cost[key] += m.usage.cost[key];
				}
				const answer = session.getLastAssistantText() ?? "";
				session.dispose();
				return { content: [{ type: "text" as const, text: answer }], details: undefined, usage };
			},
		});
	};
	const settingsManager = SettingsManager.create(cwd, agentDir, { projectTrusted: false });
	const parentLoader = new DefaultResourceLoader({ cwd, agentDir, settingsManager, extensionFactories: [extension] });
	await parentLoader.reload();
	const { session } = await createAgentSession({
		cwd,
		agentDir,
		modelRuntime: runtime,
		model: faux.getModel(),
		thinkingLevel: "off",
		resourceLoader: parentLoader,
		settingsManager,
		sessionManager: SessionManager.inMemory(cwd),
	});
	await session.bindExtensions({ mode: "rpc" });
	return { spawn: (i) => session.prompt(`spawn ${i}`), samples, messages: () => session.messages, dispose: () => session.dispose() };
}

/** The extension floor, `count` spawns after 5 warm-up ones: its samples, file calls and stored results. */
async function floorExtension(count: number): Promise<number[]> {
	const parent = await floorExtensionParent(count);
	for (let i = 0; i < 5; i++) await parent.spawn(i);
	await pastRacyWindow();
	fsCalls.reset();
	for (let i = 5; i < count + 5; i++) await parent.spawn(i);
	fsCalls.stop();
	costs.extension = { fsPerSpawn: fsCalls.count() / count, fsTop: fsCalls.top(14), fsStacks: "", ...storedResultChars(parent.messages()) };
	parent.dispose();
	return parent.samples.slice(5);
}

/**
 * cadre and the extension floor measured in alternating rounds of 10 spawns, both parents alive
 * throughout: a machine that speeds up or slows down during the run (a shared VM does) moves
 * both the same way, so their ratio holds where two sequential runs drift apart. `inRepo`: the
 * cadre parent works in a git repository, where users spawn from (what cadre does there beside
 * what it does anywhere, e.g. a receipt's look at the tree, shows).
 */
async function interleaved(count: number, inRepo = false): Promise<{ cadre: number[]; floor: number[] }> {
	const parents = { cadre: await cadreParent(false, inRepo), floor: await floorExtensionParent(count) };
	for (let i = 0; i < 5; i++) for (const parent of Object.values(parents)) await parent.spawn(i);
	await pastRacyWindow();
	const warm = { cadre: parents.cadre.samples.length, floor: parents.floor.samples.length };
	for (let round = 0; round * 10 < count; round++) {
		for (const parent of Object.values(parents)) for (let i = 0; i < 10; i++) await parent.spawn(5 + round * 10 + i);
	}
	for (const parent of Object.values(parents)) parent.dispose();
	return { cadre: parents.cadre.samples.slice(warm.cadre), floor: parents.floor.samples.slice(warm.floor) };
}

/** N background children at once: wall time until all finished, RSS after. */
async function concurrent(n: number): Promise<{ wallMs: number; rss: number }> {
	const parent = await createParent({
		keepRequests: false,
		subagentSettings: { maxConcurrent: 64 },
		script: (turn) => (turn.agent === "parent" ? fauxAssistantMessage("parent") : fauxAssistantMessage("child done")),
	});
	await parent.session.prompt("warm up");
	const service = parent.service();
	const t0 = now();
	const spawned = await Promise.all(
		Array.from({ length: n }, (_, i) => service.spawn({ prompt: `task ${i}`, description: `task ${i}`, subagent_type: "explore", run_in_background: true })),
	);
	const results = await Promise.all(spawned.map((s) => s.done));
	const wallMs = now() - t0;
	if (results.some((r) => r.status !== "completed")) throw new Error("a background child did not complete");
	const rss = process.memoryUsage().rss;
	parent.dispose();
	return { wallMs, rss };
}

/** Heap retained per finished child: heap after N children finished (GC'd) minus before, over N. */
async function retained(n: number): Promise<number> {
	const parent = await createParent({
		keepRequests: false,
		subagentSettings: { maxConcurrent: 64 },
		script: (turn) => (turn.agent === "parent" ? fauxAssistantMessage("parent") : fauxAssistantMessage("child done")),
	});
	await parent.session.prompt("warm up");
	const service = parent.service();
	const warm = await service.spawn({ prompt: "warm", description: "warm", subagent_type: "explore", run_in_background: true });
	await warm.done;
	gc();
	gc();
	const before = process.memoryUsage().heapUsed;
	const spawned = await Promise.all(
		Array.from({ length: n }, (_, i) => service.spawn({ prompt: `task ${i}`, description: `task ${i}`, subagent_type: "explore", run_in_background: true })),
	);
	await Promise.all(spawned.map((s) => s.done));
	await new Promise((resolve) => setTimeout(resolve, 50));
	gc();
	gc();
	const after = process.memoryUsage().heapUsed;
	if (service.list().length !== n + 1) throw new Error("runs were not retained in the registry");
	parent.dispose();
	return (after - before) / n;
}

/** The three tools' description + schema as the model receives them, in tokens (chars/4). */
async function toolTokens(): Promise<{ perTool: Record<string, number>; total: number }> {
	let tools: { name: string; description: string; parameters: unknown }[] = [];
	const parent = await createParent({
		keepRequests: false,
		extensionFactories: [
			(pi) => {
				pi.on("before_agent_start", () => {
					tools = pi.getAllTools().filter((t) => ["subagent", "get_subagent_result", "steer_subagent"].includes(t.name));
				});
			},
		],
		script: () => fauxAssistantMessage("ok"),
	});
	await parent.session.prompt("hi");
	parent.dispose();
	const perTool: Record<string, number> = {};
	for (const tool of tools) {
		perTool[tool.name] = Math.ceil(JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters }).length / 4);
	}
	return { perTool, total: Object.values(perTool).reduce((a, b) => a + b, 0) };
}

const LEAD_FILE = "---\ndescription: Bench lead\ntools: [read, subagent]\nsubagents: [explore]\n---\nDelegate.\n";

/** Marks every `subagent` tool call; loaded by the root and (as a parent extension) by every child. */
const MARK_EXTENSION = `
export default function (pi) {
	pi.on("tool_call", (event) => { if (event.toolName === "subagent") globalThis.__cadreBenchSpawnAt = performance.now(); });
}
`;

/**
 * Spawn overhead at depth 1 and 2 measured the same way (issue 21): from the spawner's
 * `subagent` tool call to the spawned child's first request, `count` sequential spawns in one
 * turn of the spawner — the root session (depth 1) or a foreground `lead` child (depth 2). The
 * same extension marks the call in both (a child loads the parent's extensions).
 */
async function spawnAtDepth(count: number, depth: 1 | 2): Promise<number[]> {
	const samples: number[] = [];
	const spawner = depth === 1 ? "parent" : "lead";
	const marks = globalThis as { __cadreBenchSpawnAt?: number };
	const parent = await createParent({
		keepRequests: false,
		agentFiles: { "agents/lead.md": LEAD_FILE },
		agentExtensions: { "mark.ts": MARK_EXTENSION },
		script: (turn) => {
			if (turn.agent === "explore") {
				samples.push(now() - (marks.__cadreBenchSpawnAt ?? Number.NaN));
				return fauxAssistantMessage("child done");
			}
			if (turn.agent === spawner) {
				if (turn.step >= count + 5) return fauxAssistantMessage("spawner done");
				return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "say done", description: "bench child", subagent_type: "explore" })], { stopReason: "toolUse" });
			}
			// depth 2: the root starts one foreground lead.
			return turn.step === 0
				? fauxAssistantMessage([fauxToolCall("subagent", { prompt: "lead", description: "bench lead", subagent_type: "lead" })], { stopReason: "toolUse" })
				: fauxAssistantMessage("root done");
		},
	});
	await parent.session.prompt("spawn");
	parent.dispose();
	if (samples.length !== count + 5) throw new Error(`depth ${depth}: ${samples.length} of ${count + 5} spawns reached their child`);
	return samples.slice(5);
}

void describeTurn;
const N = Number(process.env.BENCH_N ?? 100);
if (process.env.BENCH_ONLY === "depth") {
	await printDepth(N);
	process.exit(0);
}

/** Depth 2 beside depth 1 (issue 21; target: depth-2 p50 ≤ 1.5× depth 1). */
async function printDepth(count: number) {
	const one = await spawnAtDepth(count, 1);
	const two = await spawnAtDepth(count, 2);
	console.log(`nested spawn overhead (spawner's subagent call → child's first request), ${count} spawns each`);
	console.log(`  depth 1 (the root session spawns): p50 ${ms(pct(one, 50))}  p95 ${ms(pct(one, 95))}`);
	console.log(`  depth 2 (a lead child spawns):     p50 ${ms(pct(two, 50))}  p95 ${ms(pct(two, 95))}`);
	console.log(`  depth 2 p50 / depth 1 p50: ×${(pct(two, 50) / pct(one, 50)).toFixed(2)}  (target ≤ 1.5)`);
}
const alternating = await interleaved(N, process.env.BENCH_REPO === "1");
if (process.env.BENCH_ONLY === "interleaved") {
	console.log(`interleaved${process.env.BENCH_REPO === "1" ? " in a git repository" : ""}, ${N} spawns each: cadre p50 ${ms(pct(alternating.cadre, 50))}, extension floor p50 ${ms(pct(alternating.floor, 50))}: ×${(pct(alternating.cadre, 50) / pct(alternating.floor, 50)).toFixed(2)}  (target ≤ 1.5)`);
	process.exit(0);
}
const floorSamples = await floor(N);
const extensionSamples = await floorExtension(N);
const bare = await spawnOverhead(N, false);
const withExt = await spawnOverhead(N, true);
console.log(`spawn overhead (tool call → child's first model request), ${N} spawns each`);
console.log(`  floor (bare createAgentSession child): p50 ${ms(pct(floorSamples, 50))}  p95 ${ms(pct(floorSamples, 95))}`);
console.log(`  cadre, no child extensions:           p50 ${ms(pct(bare, 50))}  p95 ${ms(pct(bare, 95))}  (target p50 ≤ 3 ms)`);
console.log(`  cadre, 3 parent extensions in child:  p50 ${ms(pct(withExt, 50))}  p95 ${ms(pct(withExt, 95))}`);
console.log(`  floor as an extension (a parent's bare subagent tool starts it): p50 ${ms(pct(extensionSamples, 50))}  p95 ${ms(pct(extensionSamples, 95))}`);
console.log(`  cadre p50 / floor p50: ×${(pct(bare, 50) / pct(floorSamples, 50)).toFixed(2)}  (target ≤ 1.5); / extension floor p50: ×${(pct(bare, 50) / pct(extensionSamples, 50)).toFixed(2)}`);
console.log(
	`  interleaved (rounds of 10, both parents alive): cadre p50 ${ms(pct(alternating.cadre, 50))}, extension floor p50 ${ms(pct(alternating.floor, 50))}: ×${(pct(alternating.cadre, 50) / pct(alternating.floor, 50)).toFixed(2)}  (target ≤ 1.5)`,
);
const inRepo = process.env.BENCH_REPO === "1" ? alternating : await interleaved(N, true);
console.log(`  the same, the cadre parent in a git repository: cadre p50 ${ms(pct(inRepo.cadre, 50))}, extension floor p50 ${ms(pct(inRepo.floor, 50))}: ×${(pct(inRepo.cadre, 50) / pct(inRepo.floor, 50)).toFixed(2)}  (target ≤ 1.5)`);
const { cadre: own, floor: base } = costs;
if (own && base) {
	console.log(`file-system calls per spawn cycle (sync + async, fs-counter.ts; target ≤ 40):`);
	console.log(`  floor: ${base.fsPerSpawn.toFixed(1)}  (${base.fsTop})`);
	console.log(`  cadre: ${own.fsPerSpawn.toFixed(1)}  (${own.fsTop})`);
	if (process.env.BENCH_FS_TRACE) console.log(own.fsStacks);
	const ext = costs.extension;
	if (ext) console.log(`  extension floor (its parent's turns included): ${ext.fsPerSpawn.toFixed(1)}  (${ext.fsTop}); cadre +${(own.fsPerSpawn - ext.fsPerSpawn).toFixed(1)}`);
	console.log(`parent's stored tool result per child (JSON chars): cadre ${own.resultChars.toFixed(0)} (details ${own.detailsChars.toFixed(0)}, text ${(own.textChars ?? 0).toFixed(0)}, the rest pi's fields and the usage)`);
	if (ext) console.log(`  extension floor (as pi stores it, with the child's usage): ${ext.resultChars.toFixed(0)}  ×${(own.resultChars / ext.resultChars).toFixed(2)} (target ≤ 2)`);
	console.log(`  floor of the answer alone: ${base.resultChars}  ×${(own.resultChars / base.resultChars).toFixed(2)}`);
}
await printDepth(N);
console.log("background children (faux model), wall until all finished / RSS after");
for (const n of [1, 10, 50]) {
	const { wallMs, rss } = await concurrent(n);
	console.log(`  ${String(n).padStart(2)} children: wall ${ms(wallMs)}  RSS ${mb(rss)}${n === 50 ? "  (target ≤ 250 ms)" : ""}`);
}
const perChild = await retained(50);
console.log(`retained heap per finished child (N = 50): ${mb(perChild)}  (target ≤ 0.3 MB)`);
const tokens = await toolTokens();
console.log(
	`tool description + schema, 3 built-in types: ${tokens.total} tokens (${Object.entries(tokens.perTool)
		.map(([name, value]) => `${name} ${value}`)
		.join(", ")}; target ≤ 800)`,
);
process.exit(0);
