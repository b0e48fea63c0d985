/**
 * Load and faults (issue 9 "Must show", ADR 0079): a real pi parent with the faux model spawns 200
 * background children (`maxConcurrent: 4`) in waves through the `subagent` tool, while the test
 * stops, steers and fetches them, aborts the parent, and injects real faults — a model answer that
 * errors mid-stream, a tool of the child's extension that throws, an extension handler that throws
 * in the child, a transcript directory that cannot be written. Whatever the interleaving:
 * - never more than 4 children run at once (the events, the registry and the children's own loops);
 * - every run is created once and ends in exactly one terminal state, with exactly one
 *   notification, or none because the parent fetched it;
 * - no run is lost: the registry, the lifecycle events, the run records on disk and the
 *   notifications agree;
 * - a failure says what failed: a failed run's error names its fault, an extension that threw is
 *   named in the result, a record that could not be written says why and is written later.
 *
 * Seeded (support/fault-plan.ts): `CADRE_FAULTS_SEED`, random otherwise; a failure prints the seed.
 * `npm run faults` runs more rounds (`CADRE_FAULTS_ROUNDS`, `CADRE_FAULTS_SPAWNS`). Nothing waits on
 * a clock: held requests are released by the test's own actions; waits poll for states, and their
 * bounds only turn a hang into a report. `CADRE_FAULTS_DEBUG=<file>` writes a timeline there.
 */
import { appendFileSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { AssistantMessage } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import type { NotificationDetails } from "../../src/hosts/pi/notifications.ts";
import { childrenDir } from "../../src/runtime/pi/parent-session.ts";
import type { RunResult } from "../../src/runtime/result.ts";
import { listRuns } from "../../src/runtime/run-reader.ts";
import type { FaultProbe } from "./fixtures/fault-extension.ts";
import { createParent, fauxAssistantMessage, fauxText, fauxToolCall, type Parent, type Turn, until } from "./harness.ts";
import { type ChildPlan, planFor, type Scenario } from "./support/fault-plan.ts";

const envInt = (name: string, fallback: number) => {
	const n = Number(process.env[name]);
	return Number.isInteger(n) && n > 0 ? n : fallback;
};
const SPAWNS = envInt("CADRE_FAULTS_SPAWNS", 200);
const ROUNDS = envInt("CADRE_FAULTS_ROUNDS", 1);
const FIRST_SEED = envInt("CADRE_FAULTS_SEED", Math.floor(Math.random() * 2 ** 31));
const MAX_CONCURRENT = 4;
/** A transcript-directory fault lasts until its child ends or this many lifecycle events pass. */
const WINDOW_EVENTS = 12;
const TERMINAL = new Set(["completed", "failed", "aborted", "stopped"]);
const HOLDING = new Set(["stop-running", "steer-running", "abort-wait"]);
const STOPPED_EARLY = new Set(["stop-created", "stop-queued", "stop-running"]);

const trace = (...args: unknown[]) => {
	if (process.env.CADRE_FAULTS_DEBUG) appendFileSync(process.env.CADRE_FAULTS_DEBUG, `${Date.now() % 1_000_000} ${args.join(" ")}\n`);
};

function textOf(message: unknown): string {
	const content = (message as { content?: unknown } | undefined)?.content;
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return (content as { type: string; text?: string }[]).map((part) => part.text ?? "").join("");
}

/** The messages after the last assistant message: what this request answers. */
function tail(turn: Turn) {
	const index = turn.messages.map((m) => m.role).lastIndexOf("assistant");
	return turn.messages.slice(index + 1);
}

const count = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);
const steerText = (marker: string) => `STEER ${marker}: also say hello.`;
const toolCalls = (calls: ReturnType<typeof fauxToolCall>[]) => fauxAssistantMessage(calls, { stopReason: "toolUse" });

/** Everything one round sees and does. */
class Round {
	readonly seed: number;
	readonly plan: Scenario;
	readonly byMarker: Map<string, ChildPlan>;
	readonly ids = new Map<string, string>();
	readonly markers = new Map<string, string>();
	readonly problems: string[] = [];
	readonly stats = { abortedTurns: 0, abortedWaits: 0, abortedSpawns: 0, respawned: 0, windows: 0, persistErrors: 0, extensionErrors: 0, undelivered: 0, notifications: 0, batched: 0, fetched: 0 };
	// What the children and their extension report.
	readonly requests = new Map<string, Turn[]>();
	readonly fired = new Map<string, Set<string>>();
	readonly sawToolError = new Set<string>();
	/** Children a steer was accepted for while they ran. */
	readonly steered = new Set<string>();
	live = 0;
	peakLive = 0;
	// The lifecycle events.
	eventCount = 0;
	readonly created = new Map<string, number>();
	readonly started = new Map<string, number>();
	readonly terminal = new Map<string, number>();
	readonly terminalStatus = new Map<string, string>();
	readonly createdAt = new Map<string, number>();
	readonly endedAt = new Map<string, number>();
	running = 0;
	peakRunning = 0;
	peakRegistry = 0;
	// Holds, later actions, the waves.
	readonly gates = new Map<string, () => void>();
	readonly released = new Set<string>();
	readonly due: { at: number; marker: string }[] = [];
	readonly waves: ChildPlan[][] = [];
	readonly waveOf = new Map<string, number>();
	readonly abortedWaves = new Set<number>();
	pendingWave = -1;
	notificationTurn = 0;
	// The transcript directory fault.
	transcriptDir = "";
	window: { marker: string; closeAt: number } | null = null;
	readonly windows: { from: number; to: number | null }[] = [];
	parent!: Parent;

	constructor(seed: number) {
		this.seed = seed;
		this.plan = planFor(seed, SPAWNS);
		this.byMarker = new Map(this.plan.children.map((c) => [c.marker, c]));
	}

	service() {
		return this.parent.service();
	}

	planOf(id: string): ChildPlan | undefined {
		return this.byMarker.get(this.markers.get(id) ?? "");
	}

	release(marker: string) {
		this.released.add(marker);
		this.gates.get(marker)?.();
		this.gates.delete(marker);
	}

	/** A child's first request waits here until the test releases it or the run is stopped. */
	hold(marker: string, signal: AbortSignal | undefined): Promise<void> {
		return new Promise((resolve) => {
			if (this.released.has(marker)) return resolve();
			this.gates.set(marker, resolve);
			signal?.addEventListener("abort", () => resolve(), { once: true });
			const id = this.ids.get(marker) ?? "";
			const action = this.byMarker.get(marker)?.action;
			if (action === "stop-running") void this.service().stop(id);
			if (action === "steer-running") {
				void this.service()
					.steer(id, steerText(marker))
					.then(() => this.steered.add(marker))
					.finally(() => this.release(marker));
			}
		});
	}

	/** A file where the transcript directory is (so it fails as root too, unlike chmod); one at a time. */
	breakDir(marker: string) {
		if (this.window) return;
		renameSync(this.transcriptDir, `${this.transcriptDir}.away`);
		writeFileSync(this.transcriptDir, "not a directory");
		this.window = { marker, closeAt: this.eventCount + WINDOW_EVENTS };
		this.windows.push({ from: Date.now(), to: null });
	}

	repairDir() {
		if (!this.window) return;
		this.window = null;
		rmSync(this.transcriptDir, { force: true });
		renameSync(`${this.transcriptDir}.away`, this.transcriptDir);
		const open = this.windows.at(-1);
		if (open) open.to = Date.now();
	}

	/** Whether the run lived while the transcript directory was unwritable. */
	inWindow(id: string): boolean {
		const from = this.createdAt.get(id) ?? 0;
		const to = this.endedAt.get(id) ?? Number.POSITIVE_INFINITY;
		return this.windows.some((w) => from <= (w.to ?? Number.POSITIVE_INFINITY) && to >= w.from);
	}

	abortParent(wave: number) {
		if (this.abortedWaves.has(wave)) return;
		this.abortedWaves.add(wave);
		this.stats.abortedSpawns++;
		void this.parent.session.abort();
	}
}

/** The extension's reports: faults that fired, children whose run starts and settles. */
function probe(round: Round): FaultProbe {
	return {
		fired(kind, marker) {
			if (!round.fired.has(marker)) round.fired.set(marker, new Set());
			round.fired.get(marker)?.add(kind);
		},
		agentStart(marker) {
			round.peakLive = Math.max(round.peakLive, ++round.live);
			trace("child start", marker, round.live);
		},
		agentEnd(marker) {
			round.live--;
			trace("child settled", marker, round.live);
			// Its session has settled, its run has not ended yet: a steer now comes after its last turn.
			const id = round.ids.get(marker);
			if (round.byMarker.get(marker)?.action === "steer-finishing" && id && !round.steered.has(marker)) {
				void round.service().steer(id, steerText(marker)).then(() => round.steered.add(marker), () => undefined);
			}
		},
		loopEnd(marker) {
			const id = round.ids.get(marker);
			if (round.byMarker.get(marker)?.action === "stop-finishing" && id) void round.service().stop(id);
		},
	};
}

/** A child's model: its fault, its `ls` steps, its final answer. */
async function childTurn(round: Round, turn: Turn): Promise<AssistantMessage> {
	const marker = /\b(R\d+)\b/.exec(textOf(turn.messages[0]))?.[1] ?? "?";
	const plan = round.byMarker.get(marker);
	if (!plan) throw new Error(`a child request without a plan: ${textOf(turn.messages[0]).slice(0, 80)}`);
	const seen = round.requests.get(marker) ?? [];
	round.requests.set(marker, [...seen, turn]);
	if (seen.length === 0) {
		if (plan.fault === "dir") round.breakDir(marker);
		if (HOLDING.has(plan.action)) await round.hold(marker, turn.signal);
	}
	if (tail(turn).some((m) => m.role === "toolResult" && (m as { isError?: boolean }).isError && textOf(m).includes(marker))) round.sawToolError.add(marker);
	if (plan.fault.startsWith("tool") && turn.step === 0) return toolCalls([fauxToolCall("fault_tool", { marker, how: plan.fault.slice(5) || "error" })]);
	if ((plan.fault === "ext:tool_call" && turn.step === 0) || turn.step < plan.steps) return toolCalls([fauxToolCall("ls", { path: "." })]);
	if (plan.fault === "model") {
		return fauxAssistantMessage([fauxText(`partial answer of ${marker} `)], { stopReason: "error", errorMessage: `injected model fault ${marker}: the answer broke off mid-stream` });
	}
	return fauxAssistantMessage(`done ${marker}`);
}

/** The parent's model: spawns a wave on "wave <k>", then waits for / polls some of it; answers notifications. */
async function parentTurn(round: Round, turn: Turn): Promise<AssistantMessage> {
	const messages = tail(turn);
	const wave = messages.map((m) => (m.role === "user" ? /^wave (\d+)$/.exec(textOf(m))?.[1] : undefined)).find((k) => k !== undefined);
	if (wave !== undefined) {
		return toolCalls(
			(round.waves[Number(wave)] ?? []).map((c) =>
				fauxToolCall("subagent", {
					prompt: `Task ${c.marker}${c.fault.startsWith("ext:") ? ` EXT=${c.fault.slice(4)}` : ""}: list the files, then answer.`,
					description: `task ${c.marker}`,
					subagent_type: c.fault === "fragile" ? "fragile" : "worker",
					run_in_background: true,
				}),
			),
		);
	}
	const tools = messages.filter((m) => m.role === "toolResult").map((m) => (m as { toolName?: string }).toolName);
	if (tools.includes("subagent")) {
		const mine = messages.flatMap((m) => /Started sub-agent (\S+)/.exec(textOf(m))?.[1] ?? []).flatMap((id) => round.planOf(id) ?? []);
		const idsOf = (actions: string[]) => mine.filter((c) => actions.includes(c.action)).map((c) => round.ids.get(c.marker) ?? "");
		const [waitFor, poll] = [idsOf(["fetch-wait", "abort-wait"]), idsOf(["fetch-poll"])];
		const calls = [
			...(waitFor.length ? [fauxToolCall("get_subagent_result", { agent_id: waitFor, wait: true })] : []),
			...(poll.length ? [fauxToolCall("get_subagent_result", { agent_id: poll })] : []),
		];
		return calls.length ? toolCalls(calls) : fauxAssistantMessage("wave spawned");
	}
	if (tools.length > 0) return fauxAssistantMessage("results read");
	const notified = messages.map(textOf).filter((text) => /background sub-agents? finished: /.test(text));
	if (notified.length === 0) return fauxAssistantMessage("ok");
	const choice = round.plan.notificationTurns[round.notificationTurn++ % round.plan.notificationTurns.length];
	// The user presses Esc while the parent answers a notification (never while a wave prompt waits).
	if (choice === "abort" && round.pendingWave < 0 && turn.signal) {
		const signal = turn.signal;
		const aborted = new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
		round.stats.abortedTurns++;
		void round.parent.session.abort();
		await aborted;
		return fauxAssistantMessage("interrupted", { stopReason: "aborted" });
	}
	if (choice === "fetch") {
		const ids = notified.flatMap((text) => [...(/finished: (.*)\./.exec(text)?.[1] ?? "").matchAll(/(\S+) \(\w+\)/g)].map((m) => m[1] ?? ""));
		if (ids.length) return toolCalls([fauxToolCall("get_subagent_result", { agent_id: ids })]);
	}
	return fauxAssistantMessage("noted");
}

/** The test's actions and bookkeeping on every lifecycle event. */
function onLifecycle(round: Round, name: string, payload: Record<string, unknown>) {
	const id = String(payload.id);
	const service = round.service();
	round.eventCount++;
	trace(name, id, round.markers.get(id) ?? payload.description, payload.status, String(payload.error ?? "").slice(0, 80));
	if (round.window && round.window.closeAt <= round.eventCount) round.repairDir();
	for (const next of round.due.filter((d) => d.at <= round.eventCount)) {
		round.due.splice(round.due.indexOf(next), 1);
		const target = round.ids.get(next.marker) ?? "";
		if (round.byMarker.get(next.marker)?.action === "stop-random") void service.stop(target);
		else void service.steer(target, steerText(next.marker)).then(() => round.steered.add(next.marker), () => undefined);
	}
	round.peakRegistry = Math.max(round.peakRegistry, service.list().filter((r) => r.status === "running").length);
	if (name === "cadre:created") {
		const marker = String(payload.description).replace(/^task /, "");
		round.ids.set(marker, id);
		round.markers.set(id, marker);
		count(round.created, id);
		round.createdAt.set(id, Date.now());
		const wave = round.waveOf.get(marker) ?? -1;
		if (round.plan.abortAtSpawn[wave] === "at-created") round.abortParent(wave);
		const plan = round.byMarker.get(marker);
		if (plan?.action === "stop-random" || plan?.action === "steer-random") round.due.push({ at: round.eventCount + plan.delay, marker });
		if (plan?.action === "stop-created") void service.stop(id);
		if (plan?.action === "stop-queued") queueMicrotask(() => void service.stop(id));
		if (plan?.action === "steer-queued") void service.steer(id, steerText(marker));
		if (plan?.action === "steer-command") void service.steer(id, `/fault-cmd ${marker}`);
	}
	if (name === "cadre:started") {
		count(round.started, id);
		round.peakRunning = Math.max(round.peakRunning, ++round.running);
	}
	if (name === "cadre:completed" || name === "cadre:failed") {
		count(round.terminal, id);
		round.terminalStatus.set(id, String(payload.status));
		round.endedAt.set(id, Date.now());
		if (round.started.has(id)) round.running--;
		if (round.window?.marker === round.markers.get(id)) round.repairDir();
	}
}

/** The parent session's own events: aborts at spawn calls and during waits, spawn calls per wave. */
function watchParent(round: Round): Map<number, number> {
	const spawnEnds = new Map<number, number>();
	const spawnCalls = new Map<string, number>();
	round.parent.session.subscribe((event) => {
		if (!/update|delta|message_start/.test(event.type)) trace("parent", event.type, (event as { toolName?: string }).toolName ?? "");
		if (event.type === "tool_execution_start" && event.toolName === "subagent") {
			const wave = round.waveOf.get(String((event.args as { description?: string }).description).replace(/^task /, "")) ?? -1;
			spawnCalls.set(event.toolCallId, wave);
			if (round.plan.abortAtSpawn[wave] === "at-call") round.abortParent(wave);
		}
		if (event.type === "tool_execution_end" && event.toolName === "subagent") count(spawnEnds, spawnCalls.get(event.toolCallId) ?? -1);
		if (event.type === "tool_execution_start" && event.toolName === "get_subagent_result" && (event.args as { wait?: boolean }).wait) {
			const held = [(event.args as { agent_id: string[] }).agent_id].flat().flatMap((id) => (round.planOf(id)?.action === "abort-wait" ? [round.markers.get(id) ?? ""] : []));
			if (held.length > 0) {
				round.stats.abortedWaits++;
				void round.parent.session.abort().then(() => held.forEach((marker) => round.release(marker)));
			}
		}
	});
	return spawnEnds;
}

/** The waves: the next one once every spawn call of this one has ended; skipped ones go again. */
async function driveWaves(round: Round, spawnEnds: Map<number, number>) {
	const pending = [...round.plan.children];
	for (let k = 0; pending.length > 0; k++) {
		const wave = pending.splice(0, round.plan.waveSizes[k % round.plan.waveSizes.length]);
		round.waves[k] = wave;
		for (const c of wave) round.waveOf.set(c.marker, k);
		round.pendingWave = k;
		await round.parent.session.prompt(`wave ${k}`, { streamingBehavior: "followUp" });
		await until(() => (spawnEnds.get(k) ?? 0) >= wave.length, `the ${wave.length} spawn calls of wave ${k}`, 60_000);
		round.pendingWave = -1;
		// A parent abort skips the spawn calls after it: those children go into the next wave.
		const skipped = wave.filter((c) => !round.ids.has(c.marker));
		round.stats.respawned += skipped.length;
		pending.unshift(...skipped);
		// A child held for a wait the parent never made (its wave was aborted) goes on once the parent is idle.
		for (const c of wave) if (c.action === "abort-wait") void until(() => round.parent.session.isIdle, "idle").then(() => round.release(c.marker));
	}
}

function notifiedRuns(parent: Parent): RunResult[] {
	return parent.session.messages
		.filter((m) => m.role === "custom" && (m as { customType?: string }).customType === "cadre-notification")
		.flatMap((m) => (m as unknown as { details: NotificationDetails }).details.runs);
}

/** Runs whose terminal result the parent got from `get_subagent_result`. */
function fetchedIds(parent: Parent): Set<string> {
	return new Set(
		parent.session.messages
			.filter((m) => m.role === "toolResult" && (m as { toolName?: string }).toolName === "get_subagent_result")
			.flatMap((m) => [(m as { details?: RunResult[] }).details ?? []].flat().filter((r) => TERMINAL.has(r.status)).map((r) => r.id)),
	);
}

/** Runs that have not ended, or whose end reached the parent neither by notification nor by fetch. */
function unaccounted(round: Round): string[] {
	const notified = new Set(notifiedRuns(round.parent).map((r) => r.id));
	const fetched = fetchedIds(round.parent);
	return round
		.service()
		.list()
		.filter((r) => !TERMINAL.has(r.status) || !(notified.has(r.id) || fetched.has(r.id)))
		.map((r) => `${round.markers.get(r.id)} ${r.id} ${r.status} (${round.planOf(r.id)?.action})`);
}

/** One run's invariants: events, delivery, record, and what it says about its fault. */
function checkRun(round: Round, r: RunResult, delivered: { notified: Map<string, RunResult[]>; fetched: Set<string> }, records: Map<string, { state: string; error: string | null }>) {
	const marker = round.markers.get(r.id) ?? "?";
	const plan = round.byMarker.get(marker);
	const say = (what: string) => round.problems.push(`${marker} ${r.id} (${plan?.fault}, ${plan?.action}; ${r.status}): ${what}`);
	if (!plan) return say("no plan for this run");
	if ((round.created.get(r.id) ?? 0) !== 1) say(`${round.created.get(r.id) ?? 0} created events`);
	if ((round.started.get(r.id) ?? 0) > 1) say(`${round.started.get(r.id)} started events`);
	if ((round.terminal.get(r.id) ?? 0) !== 1) say(`${round.terminal.get(r.id) ?? 0} terminal events`);
	if (!TERMINAL.has(r.status)) say("not in a terminal state");
	else if (round.terminalStatus.get(r.id) !== r.status) say(`its terminal event said ${round.terminalStatus.get(r.id)}`);
	const notified = delivered.notified.get(r.id) ?? [];
	if (notified.length > 1) say(`notified ${notified.length} times`);
	if (notified.length === 0 && !delivered.fetched.has(r.id)) say("neither notified nor fetched");
	if (notified[0] && notified[0].status !== r.status) say(`notified as ${notified[0].status}`);
	// The record on disk agrees, or the result says why it could not be written.
	const record = records.get(r.id);
	if (r.persistError === null) {
		if (!record) say("no run record on disk and no persistError");
		else if (record.state !== r.status || record.error !== r.error) say(`the record on disk says ${record.state} (${record.error})`);
	} else if (!/ENOTDIR|EEXIST/.test(r.persistError) || !r.persistError.includes(round.transcriptDir) || !round.inWindow(r.id)) {
		say(`persistError does not name the unwritable directory: ${r.persistError}`);
	}
	// How it ended, and what it says about it.
	if (r.status === "aborted") say("a background run ended aborted");
	if (r.status === "stopped" && !plan.action.startsWith("stop-")) say("stopped, but nobody stopped it");
	if (r.status === "stopped" && !/^stopped/.test(r.error ?? "")) say(`stopped without saying so: ${r.error}`);
	if (r.status === "completed" && r.error !== null) say(`completed with an error: ${r.error}`);
	if (r.status === "completed" && STOPPED_EARLY.has(plan.action)) say("completed although it was stopped before it could finish");
	if (r.status === "failed") {
		const modelFault = plan.fault === "model" && r.error?.includes(`injected model fault ${marker}`);
		const dirFault = /ENOTDIR/.test(r.error ?? "") && round.inWindow(r.id);
		if (!modelFault && !dirFault) say(`failed, and the error names no fault of it: ${r.error}`);
	}
	if (plan.fault === "model" && r.status === "completed" && round.requests.get(marker)?.some((t) => t.step >= plan.steps)) say("its model fault did not fail it");
	const fired = round.fired.get(marker) ?? new Set<string>();
	for (const kind of fired) {
		// A tool_call handler that throws is pi's "block this call": the child gets it as the tool's error (below).
		if (!kind.startsWith("ext:") || kind === "ext:tool_call") continue;
		const fault = `injected extension fault ${kind === "ext:session_start" ? "FRAGILE" : marker} in ${kind.slice(4)}`;
		if (![r.error ?? "", ...r.warnings].some((line) => line.includes(fault))) say(`its extension's ${kind.slice(4)} fault is not named (error ${r.error}; warnings ${r.warnings.join(" | ")})`);
	}
	if ((fired.has("tool") || fired.has("ext:tool_call")) && r.status === "completed" && !round.sawToolError.has(marker)) say("the child never saw its tool's error");
	const first = round.requests.get(marker)?.[0];
	if (plan.action === "steer-queued" && first && !JSON.stringify(first.messages).includes(`STEER ${marker}`)) say("a message steered while queued missed its first request");
	// An accepted steer reaches a later request of the child, or its result says it did not.
	if (round.steered.has(marker) && r.status === "completed") {
		const reached = round.requests.get(marker)?.some((t) => JSON.stringify(t.messages).includes(`STEER ${marker}`));
		if (!reached && !r.warnings.some((w) => w.includes("steer-undelivered"))) say("a steer it accepted never reached it, and its result does not say so");
	}
}

/** At the session's end every record on disk agrees with its run (ends that failed were written again). */
async function checkRecordsAtEnd(round: Round) {
	let ended = false;
	void round.parent.shutdown().then(() => (ended = true));
	await until(() => ended, "the session's end (stopping every run)", 30_000).catch((error: Error) => round.problems.push(error.message));
	const records = new Map(listRuns(round.transcriptDir).runs.map((r) => [r.id, r]));
	for (const r of round.service().list()) {
		const record = records.get(r.id);
		const marker = round.markers.get(r.id) ?? "?";
		if (r.persistError !== null) round.problems.push(`${marker} ${r.id}: still not persisted at the session's end: ${r.persistError}`);
		else if (!record || record.state !== r.status || record.error !== r.error || record.text !== r.text) {
			round.problems.push(`${marker} ${r.id}: the record on disk (${record?.state}, ${record?.error}) disagrees with the run (${r.status}, ${r.error})`);
		}
	}
}

/** What the round exercised, one line (a round that exercises nothing proves nothing). */
function summary(round: Round, runs: RunResult[], fetchedOnly: number): string {
	const statuses = new Map<string, number>();
	for (const r of runs) count(statuses, r.status);
	const batches = round.parent.session.messages.filter((m) => m.role === "custom" && (m as { customType?: string }).customType === "cadre-notification");
	Object.assign(round.stats, {
		windows: round.windows.length,
		extensionErrors: runs.filter((r) => r.warnings.some((w) => w.includes(" extension-error "))).length,
		undelivered: runs.filter((r) => r.warnings.some((w) => w.includes(" steer-undelivered "))).length,
		notifications: batches.length,
		batched: batches.filter((m) => (m as unknown as { details: NotificationDetails }).details.runs.length > 1).length,
		fetched: fetchedOnly,
	});
	const stats = Object.entries(round.stats).map(([k, v]) => `${k} ${v}`);
	return `faults seed ${round.seed}: ${[...statuses].map(([s, n]) => `${n} ${s}`).join(", ")}; peak ${round.peakRunning} running; ${stats.join(", ")}`;
}

/** One seeded round; returns every broken invariant. */
async function runRound(seed: number, track: (parent: Parent) => void): Promise<string[]> {
	const round = new Round(seed);
	(globalThis as { __cadreFaults?: FaultProbe }).__cadreFaults = probe(round);
	round.parent = await createParent({
		persisted: true,
		subagentSettings: { maxConcurrent: MAX_CONCURRENT },
		agentExtensions: { "faults.ts": readFileSync(join(import.meta.dirname, "fixtures", "fault-extension.ts"), "utf8") },
		agentFiles: {
			"agents/worker.md": "---\ndescription: Does one task\ntools: [ls, fault_tool]\n---\nDo the task you are given.\n",
			"agents/fragile.md": "---\ndescription: Does one task, with a fragile extension\ntools: [ls, fault_tool]\n---\nFRAGILE. Do the task you are given.\n",
		},
		script: (turn) => (turn.agent === "parent" ? parentTurn(round, turn) : childTurn(round, turn)),
	});
	track(round.parent);
	round.transcriptDir = childrenDir(dirname(round.parent.session.sessionFile as string), round.parent.session.sessionId);
	const push = round.parent.events.push.bind(round.parent.events);
	round.parent.events.push = (...items) => {
		for (const item of items) onLifecycle(round, item.name, item.payload);
		return push(...items);
	};
	await driveWaves(round, watchParent(round));

	// Everything ends, and every run's end reaches the parent.
	await until(() => round.ids.size === SPAWNS && unaccounted(round).length === 0 && round.parent.session.isIdle, "every run to end and reach the parent", 60_000).catch(
		(error: Error) => round.problems.push(`${error.message}; not ended or never delivered: ${unaccounted(round).join(", ")}`),
	);
	if (round.peakRunning > MAX_CONCURRENT) round.problems.push(`${round.peakRunning} runs were running at once (events)`);
	if (round.peakRegistry > MAX_CONCURRENT) round.problems.push(`${round.peakRegistry} runs were running at once (registry)`);
	if (round.peakLive > MAX_CONCURRENT) round.problems.push(`${round.peakLive} children ran at once (their own agent loops)`);
	const runs = round.service().list();
	if (runs.length !== SPAWNS || round.ids.size !== SPAWNS) round.problems.push(`${round.ids.size} of ${SPAWNS} children spawned, ${runs.length} in the registry`);
	const notified = new Map<string, RunResult[]>();
	for (const r of notifiedRuns(round.parent)) notified.set(r.id, [...(notified.get(r.id) ?? []), r]);
	const delivered = { notified, fetched: fetchedIds(round.parent) };
	const records = new Map(listRuns(round.transcriptDir).runs.map((r) => [r.id, r]));
	for (const r of runs) checkRun(round, r, delivered, records);
	round.stats.persistErrors = runs.filter((r) => r.persistError !== null).length;
	await checkRecordsAtEnd(round);
	console.log(summary(round, runs, runs.filter((r) => delivered.fetched.has(r.id) && !notified.has(r.id)).length));
	return round.problems;
}

let parents: Parent[] = [];
afterEach(() => {
	for (const parent of parents) parent.dispose();
	parents = [];
	delete (globalThis as { __cadreFaults?: unknown }).__cadreFaults;
});

describe("load and faults", () => {
	it(
		`${SPAWNS} background spawns, maxConcurrent ${MAX_CONCURRENT}, stops, steers, parent aborts and injected faults (${ROUNDS} seeded round${ROUNDS === 1 ? "" : "s"})`,
		async () => {
			for (let r = 0; r < ROUNDS; r++) {
				const seed = FIRST_SEED + r;
				const problems = await runRound(seed, (parent) => parents.push(parent)).catch((error: Error) => [`the round threw: ${error.stack}`]);
				expect(problems, `seed ${seed} (replay: CADRE_FAULTS_SEED=${seed} npm run faults)`).toEqual([]);
				for (const parent of parents.splice(0)) parent.dispose();
			}
		},
		ROUNDS * 180_000,
	);
});
