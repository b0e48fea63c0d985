/**
 * The pi extension's state for its parent session (spec 04): the spawner and registry made on
 * first use, what the last load said (result size, widget mode), the parent's own writes, and the
 * `subagent` tool, re-registered whenever its description (the loaded definitions) changes. The
 * extension's entry (extension.ts) creates one {@link ExtensionHost}; the other parts take it.
 */
import type { LoadResult } from "../../files/types.ts";
import type { BuildSystemPromptOptions, ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { SpawnRequest } from "../../resolve/types.ts";
import { liveCatalog } from "../../runtime/pi/model-catalog.ts";
import { parentModelRuntime } from "../../runtime/pi/parent-session.ts";
import { counted, formatResult, resultDetails, runResult, totalTokens } from "../../runtime/result.ts";
import type { RunRecord, RunRegistry } from "../../runtime/runs.ts";
import { agentPaths, loadFor } from "../spawn/plan.ts";
import { createSpawner, type Spawner, type StartOptions } from "../spawn/spawner.ts";
import { earlierRuns } from "./earlier-runs.ts";
import { createNotifier, type Notifier } from "./notifications.ts";
import { SUBAGENT_TOOL, subagentDescription, subagentParameters } from "./tools.ts";
import { sessionTelemetry } from "./session-telemetry.ts";
import type { Telemetry } from "../../telemetry/telemetry.ts";
import type { CadreUi, WidgetMode } from "./ui/index.ts";

const USAGE_ENTRY = "cadre-usage";

export interface SessionState {
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

/** What the extension's parts share: pi's API, where pi's files are, the session's state. */
export interface ExtensionHost {
	pi: ExtensionAPI;
	agentDir: string;
	homeDir: string;
	/** The parent session's state, made by the first event or tool call that needs it. */
	state: SessionState | null;
	/** The `subagent` tool's description as last registered. */
	lastDescription: string;
	notifications: Notifier;
	/** The TUI's parts, registered after the tools (null until then). */
	ui: CadreUi | null;
	/** The session's traces (ADR 0145): off unless an OTLP endpoint is set. */
	telemetry: Telemetry;
}

/** A host for `pi` with no session yet; its notifier follows the session's state. */
export function createExtensionHost(pi: ExtensionAPI): ExtensionHost {
	const { agentDir, homeDir } = agentPaths();
	const host: ExtensionHost = {
		pi,
		agentDir,
		homeDir,
		state: null,
		lastDescription: "",
		notifications: createNotifier({
			send: (message, options) => pi.sendMessage(message, options),
			isIdle: () => host.state?.ctx.isIdle() ?? false,
			mode: () => host.state?.ctx.mode ?? "print",
			maxResultChars: () => host.state?.maxResultChars ?? 20000,
		}),
		ui: null,
		telemetry: sessionTelemetry(pi, { load: (ctx) => safeLoad(host, ctx) }),
	};
	return host;
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

/** Ends a background run as the parent session records it: a usage entry, then the notification. */
function onTerminal(host: ExtensionHost, run: RunRecord): void {
	if (!run.background) return;
	try {
		host.pi.appendEntry(USAGE_ENTRY, { id: run.id, type: run.type, status: run.state, usage: { ...run.usage }, transcript: run.transcript });
	} catch {
		// the parent session may already be gone
	}
	host.notifications.completed(run);
}

/** The session's state, made on first use (with `ctx`), else brought up to `ctx`. */
export function ensure(host: ExtensionHost, ctx: ExtensionContext): SessionState {
	if (host.state) {
		host.state.ctx = ctx;
		return host.state;
	}
	const { pi, agentDir, homeDir } = host;
	const touched: SessionState["touched"] = [];
	// Earlier processes' runs of this session come back (ADR 0068, 0069).
	const earlier = earlierRuns(ctx.sessionManager);
	const spawner = createSpawner({
		pi,
		telemetry: host.telemetry.runs(),
		ctx: () => host.state?.ctx ?? ctx,
		promptOptions: () => host.state?.promptOptions ?? null,
		agentDir,
		homeDir,
		earlier: earlier.runs,
		touchedByParent: (since) => new Set(touched.filter((entry) => entry.at >= since).map((entry) => entry.path)),
		// Definitions are re-read at every spawn; the description follows them at once.
		onLoaded: (loaded) => {
			if (host.state) {
				host.state.maxResultChars = loaded.settings.maxResultChars;
				host.state.widget = loaded.settings.ui.widget;
			}
			refreshDescription(host, host.state?.ctx ?? ctx, loaded);
		},
		// Every payload is a fresh copy made once for its event (runs/events.ts `eventPayload`).
		emit: (event, payload) => pi.events.emit(event, payload),
		onChange: () => host.ui?.onChange(),
		onTerminal: (run) => onTerminal(host, run),
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
	host.state = created;
	return created;
}

/** The files as loaded for the parent's cwd, or null when loading threw. */
export function safeLoad(host: ExtensionHost, ctx: ExtensionContext) {
	try {
		return loadFor({ cwd: ctx.cwd, agentDir: host.agentDir, homeDir: host.homeDir, projectTrusted: ctx.isProjectTrusted() });
	} catch {
		return null;
	}
}

/** The files the `subagent` description was last built from, per host. */
const describedLoad = new WeakMap<ExtensionHost, LoadResult>();

/** Re-register `subagent` when its description changed (pi refreshes tools at once). */
export function refreshDescription(host: ExtensionHost, ctx: ExtensionContext, loaded: ReturnType<typeof safeLoad> = safeLoad(host, ctx)): void {
	// The spawner's load cache hands the same result while no file changed: built once per result.
	if (loaded !== null && loaded === describedLoad.get(host)) return;
	if (loaded !== null) describedLoad.set(host, loaded);
	const description = subagentDescription(loaded);
	if (description !== host.lastDescription) {
		host.lastDescription = description;
		registerSpawnTool(host, description);
	}
}

/** Plan and start a run: the one path for the tool, the service and resume (src/hosts/spawn/spawner.ts). */
export function start(host: ExtensionHost, ctx: ExtensionContext, request: SpawnRequest, options: StartOptions) {
	return ensure(host, ctx).spawner.start(request, options);
}

/** What `explain` needs for `type` in this session: the load, the parent snapshot, the live catalog. */
export function explainInputs(host: ExtensionHost, s: SessionState, type: string) {
	const parent = s.spawner.snapshot({ paths: [], excluded: [] });
	return { loaded: safeLoad(host, s.ctx), parent, models: liveCatalog(parentModelRuntime(s.ctx), parent.facts.model), type };
}

/** The `subagent` tool with `description`. */
export function registerSpawnTool(host: ExtensionHost, description: string): void {
	host.pi.registerTool({
		name: SUBAGENT_TOOL,
		label: "Sub-agent",
		description,
		parameters: subagentParameters,
		async execute(toolCallId, params, signal, onUpdate, ctx) {
			const s = ensure(host, ctx);
			const { run, done } = await start(host, ctx, params as SpawnRequest, {
				signal,
				onProgress: (progress) => {
					host.ui?.toolCall(toolCallId, progress.id);
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
					details: resultDetails(runResult(run, s.maxResultChars)),
				};
			}
			const finished = await done;
			finished.fetched = true;
			const result = runResult(finished, s.maxResultChars);
			return {
				content: [{ type: "text", text: formatResult(result) }],
				details: resultDetails(result),
				usage: toPiUsage(finished.usage),
				isError: finished.state !== "completed",
			};
		},
	});
}
