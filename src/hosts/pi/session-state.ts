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
import type { RunRecord, RunRegistry } from "../../runtime/runs.ts";
import { agentPaths, loadFor } from "../spawn/plan.ts";
import { createSpawner, type Spawner, type StartOptions } from "../spawn/spawner.ts";
import { earlierRuns } from "./earlier-runs.ts";
import { createNotifier, type Notifier } from "./notifications.ts";
import { subagentDescription } from "./tools.ts";
import { type DelegationScope, spawnToolDefinition } from "../spawn/delegation-tools.ts";
import { sessionTelemetry } from "./session-telemetry.ts";
import type { Telemetry } from "../../telemetry/telemetry.ts";
import type { CadreUi, WidgetMode } from "./ui/index.ts";
import { sandboxFacts } from "../../sandbox/spawn-sandbox.ts";
import { sandboxPlatform } from "../../sandbox/platform.ts";
import { knownRemoteSandbox } from "../../workspaces/remote-sandbox.ts";
import { contextTrust } from "../../runtime/pi/project-trust.ts";

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

/** Ends a background run as the parent session records it: a usage entry, then the notification. */
function onTerminal(host: ExtensionHost, run: RunRecord): void {
	// A nested run's end is told to the run that spawned it (ADR 0175), not to this session.
	if (!run.background || run.parentId !== null) return;
	try {
		// `treeUsage`: with the runs it spawned (issue 21); the same as `usage` for a run that spawned none.
		host.pi.appendEntry(USAGE_ENTRY, { id: run.id, type: run.type, status: run.state, usage: { ...run.usage }, treeUsage: { ...(run.treeUsage ?? run.usage) }, transcript: run.transcript });
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
		return loadFor({ cwd: ctx.cwd, agentDir: host.agentDir, homeDir: host.homeDir, projectTrusted: contextTrust(ctx, host.agentDir, host.homeDir) });
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
	const description = subagentDescription(loaded, undefined, sandboxPlatform());
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
	const snapshot = s.spawner.snapshot({ paths: [], excluded: [] });
	// The project's trust and this platform's sandbox, as the spawn would see them (issue 27).
	// The SSH workspaces' sandbox as this process last probed them (no I/O here; ADR 0191).
	const loaded = safeLoad(host, s.ctx);
	const parent = { ...snapshot, facts: { ...sandboxFacts(snapshot), remoteSandbox: knownRemoteSandbox(loaded?.settings.workspaces ?? {}) } };
	return { loaded, parent, models: liveCatalog(parentModelRuntime(s.ctx), parent.facts.model), type, dirs: { homeDir: parent.homeDir, agentDir: parent.agentDir } };
}

/** The root session's scope of the delegation tools (src/hosts/spawn/delegation-tools.ts): every run of the tree. */
export function rootScope(host: ExtensionHost, ctx: ExtensionContext): DelegationScope {
	const s = ensure(host, ctx);
	return {
		registry: s.registry,
		caller: null,
		start: (request, options) => start(host, ctx, request, options),
		maxResultChars: () => s.maxResultChars,
		onProgress: (toolCallId, run) => host.ui?.toolCall(toolCallId, run.id),
	};
}

/** The `subagent` tool with `description`. */
export function registerSpawnTool(host: ExtensionHost, description: string): void {
	host.pi.registerTool(spawnToolDefinition(description, (ctx) => rootScope(host, ctx)));
}
