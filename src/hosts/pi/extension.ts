/**
 * cadre's pi extension: the `subagent`, `get_subagent_result` and `steer_subagent` tools, the
 * `/subagents` command, completion notifications, lifecycle events on `pi.events` and the service
 * other extensions reach through it (spec 04). Children run in-process through the SDK adapter.
 */
import type { BuildSystemPromptOptions, ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { safeText } from "../../core/terminal-text.ts";
import type { SpawnRequest } from "../../resolve/types.ts";
import { checkPiVersion, liveCatalog, parentModelRuntime } from "../../runtime/pi-sdk.ts";
import { counted, formatResult, progressText, type RunResult, runResult, totalTokens } from "../../runtime/result.ts";
import type { RunRecord, RunRegistry } from "../../runtime/runs.ts";
import { recoverInBackground } from "../../isolation/worktree-recovery.ts";
import { agentPaths, loadFor } from "../spawn/plan.ts";
import { createSpawner, type Spawner, type StartOptions } from "../spawn/spawner.ts";
import { explainType, subagentsCommand } from "./commands.ts";
import { earlierRuns } from "./earlier-runs.ts";
import { createNotifier, singleShot, stoppedAtExit } from "./notifications.ts";
import { touchedPath } from "./parent-writes.ts";
import { sessionTelemetry } from "./session-telemetry.ts";
import { enabledTypes } from "../../resolve/resolve.ts";
import { registerCadreUi, type WidgetMode } from "./ui/index.ts";
import {
	RESULT_DESCRIPTION,
	RESULT_TOOL,
	resultParameters,
	STEER_DESCRIPTION,
	STEER_TOOL,
	SUBAGENT_TOOL,
	steerParameters,
	subagentDescription,
	subagentParameters,
} from "./tools.ts";

/** The service other extensions reach on `pi.events` (see docs/runtime.md "Service"). */
export interface CadreService {
	/** Spawn like the `subagent` tool; `done` settles with the result. Refusals reject. */
	spawn(request: SpawnRequest): Promise<{ id: string; done: Promise<RunResult> }>;
	list(): RunResult[];
	get(id: string): RunResult | undefined;
	steer(id: string, message: string): Promise<void>;
	stop(id: string): Promise<RunResult | undefined>;
}

/** Event-bus channel answering `(service) => void` callbacks with the service. */
export const SERVICE_REQUEST = "cadre:service-request";
/** Event-bus channel on which the service is announced at session start. */
export const SERVICE_READY = "cadre:service";

const USAGE_ENTRY = "cadre-usage";

interface SessionState {
	registry: RunRegistry;
	/** Plans and starts this session's runs (shared with `cadre run`, src/hosts/spawn/spawner.ts). */
	spawner: Spawner;
	ctx: ExtensionContext;
	promptOptions: BuildSystemPromptOptions | null;
	maxResultChars: number;
	/** Paths the parent's own edit/write/bash calls touched, with when (for the escape check). */
	touched: { path: string; at: number }[];
	/** Run records of earlier processes that were skipped, as diagnostic lines (ADR 0068). */
	skippedRecords: string[];
	/** Settings `ui.widget`, as of the last load. */
	widget: WidgetMode;
}

/** A run's usage in pi's `Usage` shape (the foreground tool result reports it to pi). */
function toPiUsage(usage: RunRecord["usage"]) {
	return {
		input: usage.input,
		output: usage.output,
		cacheRead: usage.cacheRead,
		cacheWrite: usage.cacheWrite,
		totalTokens: totalTokens(usage),
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: usage.cost },
	};
}

/** The cadre extension. */
export default function cadre(pi: ExtensionAPI): void {
	const version = checkPiVersion();
	if (!version.ok) {
		pi.on("session_start", (_event, ctx) => {
			if (ctx.hasUI) ctx.ui.notify(version.message, "error");
			else process.stderr.write(`${version.message}\n`);
		});
		return;
	}
	const { agentDir, homeDir } = agentPaths();
	let state: SessionState | null = null;
	let lastDescription = "";
	const telemetry = sessionTelemetry(pi, { load: (ctx) => safeLoad(ctx) });

	const notifications = createNotifier({
		send: (message, options) => pi.sendMessage(message, options),
		isIdle: () => state?.ctx.isIdle() ?? false,
		mode: () => state?.ctx.mode ?? "print",
		maxResultChars: () => state?.maxResultChars ?? 20000,
	});

	const ensure = (ctx: ExtensionContext): SessionState => {
		if (state) {
			state.ctx = ctx;
			return state;
		}
		const touched: SessionState["touched"] = [];
		// Earlier processes' runs of this session come back (ADR 0068, 0069).
		const earlier = earlierRuns(ctx.sessionManager);
		const spawner = createSpawner({
			pi,
			ctx: () => state?.ctx ?? ctx,
			promptOptions: () => state?.promptOptions ?? null,
			agentDir,
			homeDir,
			earlier: earlier.runs,
			touchedByParent: (since) => new Set(touched.filter((entry) => entry.at >= since).map((entry) => entry.path)),
			telemetry: telemetry.runs(),
			// Definitions are re-read at every spawn; the description follows them at once.
			onLoaded: (loaded) => {
				if (state) {
					state.maxResultChars = loaded.settings.maxResultChars;
					state.widget = loaded.settings.ui.widget;
				}
				refreshDescription(state?.ctx ?? ctx, loaded);
			},
			emit: (event, payload) => pi.events.emit(event, structuredClone(payload)),
			onChange: () => ui.onChange(),
			onTerminal: (run) => {
				if (!run.background) return;
				try {
					pi.appendEntry(USAGE_ENTRY, { id: run.id, type: run.type, status: run.state, usage: { ...run.usage }, transcript: run.transcript });
				} catch {
					// the parent session may already be gone
				}
				notifications.completed(run);
			},
		});
		const created: SessionState = {
			ctx,
			promptOptions: null,
			touched,
			skippedRecords: earlier.skipped,
			spawner,
			registry: spawner.registry,
			maxResultChars: spawner.loaded()?.settings.maxResultChars ?? 20000,
			widget: spawner.loaded()?.settings.ui.widget ?? "background",
		};
		state = created;
		return created;
	};

	const safeLoad = (ctx: ExtensionContext) => {
		try {
			return loadFor({ cwd: ctx.cwd, agentDir, homeDir, projectTrusted: ctx.isProjectTrusted() });
		} catch {
			return null;
		}
	};

	/** Re-register `subagent` when its description changed (pi refreshes tools at once). */
	const refreshDescription = (ctx: ExtensionContext, loaded: ReturnType<typeof safeLoad> = safeLoad(ctx)) => {
		const description = subagentDescription(loaded);
		if (description !== lastDescription) {
			lastDescription = description;
			registerSpawnTool(description);
		}
	};

	/** Plan and start a run: the one path for the tool, the service and resume (src/hosts/spawn/spawner.ts). */
	const start = (ctx: ExtensionContext, request: SpawnRequest, options: StartOptions) => ensure(ctx).spawner.start(request, options);

	const registerSpawnTool = (description: string) => {
		pi.registerTool({
			name: SUBAGENT_TOOL,
			label: "Sub-agent",
			description,
			parameters: subagentParameters,
			async execute(toolCallId, params, signal, onUpdate, ctx) {
				const s = ensure(ctx);
				const { run, done } = await start(ctx, params as SpawnRequest, {
					signal,
					onProgress: (progress) => {
						ui.toolCall(toolCallId, progress.id);
						onUpdate?.({
							content: [{ type: "text", text: `${progress.id}: ${progress.activity}, ${counted(progress.turns, "turn")}, ${counted(progress.toolUses, "tool use")}` }],
							details: undefined,
						});
					},
				});
				if (run.background) {
					return {
						content: [
							{
								type: "text",
								text: `Started sub-agent ${run.id} (${run.type}) in the background. You will be notified when it finishes; get_subagent_result with agent_id "${run.id}" fetches it (wait: true blocks).`,
							},
						],
						details: runResult(run, s.maxResultChars),
					};
				}
				const finished = await done;
				finished.fetched = true;
				const result = runResult(finished, s.maxResultChars);
				return {
					content: [{ type: "text", text: formatResult(result) }],
					details: result,
					usage: toPiUsage(finished.usage),
					isError: finished.state !== "completed",
				};
			},
		});
	};

	registerSpawnTool(subagentDescription(null));

	pi.registerTool({
		name: RESULT_TOOL,
		label: "Sub-agent result",
		description: RESULT_DESCRIPTION,
		parameters: resultParameters,
		async execute(_toolCallId, params, signal, _onUpdate, ctx) {
			const s = ensure(ctx);
			const ids = Array.isArray(params.agent_id) ? params.agent_id : [params.agent_id];
			// `timeout: 0` polls (answers at once); no timeout waits until the end.
			const timeoutMs = typeof params.timeout === "number" && params.timeout >= 0 ? params.timeout * 1000 : null;
			const answers = await Promise.all(
				ids.map(async (id): Promise<{ text: string; result: RunResult | null }> => {
					const run = s.registry.get(id);
					if (!run) return { text: `No sub-agent run with id ${id}. Known: ${s.registry.list().map((r) => r.id).join(", ") || "none"}.`, result: null };
					const finished = params.wait ? await s.registry.wait(id, timeoutMs, signal) : run.endedAt !== null ? run : null;
					if (!finished) return { text: progressText(run), result: runResult(run, s.maxResultChars) };
					finished.fetched = true;
					const result = runResult(finished, s.maxResultChars);
					return { text: formatResult(result), result };
				}),
			);
			return {
				content: [{ type: "text", text: answers.map((answer) => answer.text).join("\n\n---\n\n") }],
				details: answers.map((answer) => answer.result).filter((result): result is RunResult => result !== null),
			};
		},
	});

	pi.registerTool({
		name: STEER_TOOL,
		label: "Steer sub-agent",
		description: STEER_DESCRIPTION,
		parameters: steerParameters,
		async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
			const run = await ensure(ctx).registry.steer(params.agent_id, params.message);
			return { content: [{ type: "text", text: `Message ${run.state === "queued" ? "buffered for" : "sent to"} ${run.id}.` }], details: undefined };
		},
	});

	pi.registerCommand("subagents", {
		description: "Sub-agent runs (a live view in the TUI); list, stop <id>, explain <type>, transcript <id>, worktrees [list|apply <id>|clean]",
		getArgumentCompletions: (prefix) => ui.completions(prefix),
		handler: async (args, ctx) => {
			const s = ensure(ctx);
			if (args.trim() === "" && (await ui.openView(ctx))) return;
			const text = subagentsCommand(args, {
				registry: s.registry,
				skippedRecords: s.skippedRecords,
				cwd: ctx.cwd,
				explain: (type) => explainInputs(s, type),
			});
			const output = await text;
			if (ctx.hasUI) ctx.ui.notify(output, "info");
			else process.stdout.write(`${output}\n`);
		},
	});

	const explainInputs = (s: SessionState, type: string) => {
		const parent = s.spawner.snapshot({ paths: [], excluded: [] });
		return { loaded: safeLoad(s.ctx), parent, models: liveCatalog(parentModelRuntime(s.ctx), parent.facts.model), type };
	};

	/** Everything a person sees in pi's TUI (src/hosts/pi/ui/). */
	const ui = registerCadreUi(pi, {
		runs: () => state?.registry.list() ?? [],
		ownRuns: () => state?.registry.own() ?? [],
		get: (id) => state?.registry.get(id),
		conversation: (id) => state?.registry.conversation(id) ?? null,
		steer: async (id, message) => {
			await state?.registry.steer(id, message);
		},
		stop: async (id) => state?.registry.stop(id),
		explain: (type) => (state ? explainType(explainInputs(state, type)) : "cadre: no parent session yet."),
		cwd: () => state?.ctx.cwd ?? process.cwd(),
		widgetMode: () => state?.widget ?? "background",
		types: () => {
			const loaded = state ? safeLoad(state.ctx) : null;
			return loaded ? enabledTypes(loaded) : [];
		},
	});

	const service: CadreService = {
		async spawn(request) {
			if (!state) throw new Error("cadre: no parent session yet");
			const { run, done } = await start(state.ctx, request, {});
			const max = state.maxResultChars;
			return { id: run.id, done: done.then((r) => runResult(r, max)) };
		},
		list: () => (state ? state.registry.list().map((r) => runResult(r, state?.maxResultChars ?? 20000)) : []),
		get(id) {
			const run = state?.registry.get(id);
			return run ? runResult(run, state?.maxResultChars ?? 20000) : undefined;
		},
		async steer(id, message) {
			if (!state) throw new Error("cadre: no parent session yet");
			await state.registry.steer(id, message);
		},
		async stop(id) {
			const run = await state?.registry.stop(id);
			return run ? runResult(run, state?.maxResultChars ?? 20000) : undefined;
		},
	};
	pi.events.on(SERVICE_REQUEST, (reply) => {
		if (typeof reply === "function") reply(service);
	});

	pi.on("session_start", (_event, ctx) => {
		const s = ensure(ctx);
		if (s.skippedRecords.length > 0) {
			const text = safeText(`cadre: skipped ${counted(s.skippedRecords.length, "run record")} of this session:\n${s.skippedRecords.join("\n")}`);
			if (ctx.hasUI) ctx.ui.notify(text, "warning");
			else process.stderr.write(`${text}\n`);
		}
		refreshDescription(ctx);
		pi.events.emit(SERVICE_READY, service);
		void recoverInBackground(ctx.cwd, ctx.hasUI ? ctx.ui : null);
	});

	pi.on("before_agent_start", (event, ctx) => {
		const s = ensure(ctx);
		s.promptOptions = event.systemPromptOptions;
		refreshDescription(ctx);
		notifications.runStarting();
	});

	// The parent's own writes, so the escape check does not blame a worktree child for them. Stamped
	// when a call starts and when it ends: pi runs one message's tool calls concurrently, so an edit
	// that started before a worktree run may still write after the run's "before" fingerprint.
	const recordParentWrite = (event: { toolName: string; input: unknown }, ctx: ExtensionContext) => {
		const path = touchedPath(event.toolName, event.input, ctx.cwd);
		if (path === null) return;
		const s = ensure(ctx);
		s.touched.push({ path, at: Date.now() });
		if (s.touched.length > 1000) s.touched.splice(0, s.touched.length - 1000);
	};
	pi.on("tool_call", recordParentWrite);
	pi.on("tool_result", recordParentWrite);

	pi.on("turn_start", () => notifications.turnStarted());
	pi.on("agent_settled", (_event, ctx) => {
		ensure(ctx);
		notifications.settled();
	});

	pi.on("session_shutdown", async (event, ctx) => {
		notifications.close();
		const s = state;
		if (!s) return;
		const going = s.registry.own().filter((run) => run.endedAt === null);
		await s.registry.stopAll();
		await telemetry.shutdown();
		if (singleShot(ctx.mode)) for (const line of stoppedAtExit(going, event.reason)) process.stderr.write(line);
	});

}
