/**
 * Starting runs for a pi parent session, for every host: the pi extension's own session and the
 * headless parent `cadre run` creates through the SDK adapter (ADR 0090) both call this, so a run
 * from the command line is planned, started, isolated, recorded and reported exactly as one from
 * the `subagent` tool. Holds the parent's run registry (records on disk, worktree isolation, the
 * limiter), the extensions its children load, the parent snapshot (parent-snapshot.ts) and the
 * resume claims.
 */
import { existsSync } from "node:fs";
import type { Budget } from "../../core/budget.ts";
import type { BuildSystemPromptOptions, ExtensionAPI, ExtensionContext, Skill, ToolDefinition } from "@earendil-works/pi-coding-agent";
import { normalizeThinking } from "../../core/values.ts";
import { sessionBudget } from "../../resolve/budget.ts";
import { findGitRoot } from "../../files/discovery.ts";
import type { LoadResult } from "../../files/types.ts";
import type { ParentFacts, SpawnRequest, StoredRun } from "../../resolve/types.ts";
import { type ChildExtensionSet, discoverChildExtensions } from "../../runtime/pi/child-extensions.ts";
import { createChildSession } from "../../runtime/pi/child-session.ts";
import { contextTrust } from "../../runtime/pi/project-trust.ts";
import { parentModelRuntime, transcriptDir } from "../../runtime/pi/parent-session.ts";
import { liveCatalog, withAvailableModels } from "../../runtime/pi/model-catalog.ts";
import { recordWriter } from "../../runtime/run-store.ts";
import { resultTool } from "../../runtime/structured-result.ts";
import { chainRoot, createRunRegistry, type ProgressListener, type RunRecord, type RunRegistry, type RunRegistryOptions } from "../../runtime/runs.ts";
import { createWorktreeIsolation } from "../../isolation/worktree-hooks.ts";
import { withRemoteWorkspaces } from "../../workspaces/remote-isolation.ts";
import type { RunTelemetry } from "../../telemetry/telemetry.ts";
import { SPAWN_TOOLS } from "./tool-names.ts";
import { nestedNotification } from "./delegation-tools.ts";
import { nestedSnapshot, runDelegationTools } from "./nested-spawn.ts";
import { spawnerFacts } from "../../resolve/delegation.ts";
import { type ChildFactory, loadFor, type ParentSnapshot, planSpawn, withRemoteSandboxFacts } from "./plan.ts";
import { parentSnapshot } from "./parent-snapshot.ts";
import { createLoadCache, type LoadCache } from "./load-cache.ts";
import { createResolutionCache, type ResolutionCache } from "./resolution-cache.ts";

/** Options for {@link createSpawner}. */
export interface SpawnerOptions {
	/** The parent's extension API: its tools and thinking level. */
	pi: ExtensionAPI;
	/** The parent's current context (pi hands a fresh one to every event). */
	ctx(): ExtensionContext;
	/** pi's structured prompt options of the parent's latest request, or null before its first. */
	promptOptions(): BuildSystemPromptOptions | null;
	agentDir: string;
	homeDir: string;
	/** Lifecycle events of the registry. */
	emit: RunRegistryOptions["emit"];
	/** Called once per run when it is terminal. */
	onTerminal?: RunRegistryOptions["onTerminal"];
	/** Called after every change a person could see (live displays). */
	onChange?: RunRegistryOptions["onChange"];
	/** Runs of earlier processes of this parent (ADR 0068, 0069). */
	earlier?: readonly RunRecord[];
	/** Paths the parent's own tool calls touched since `since` (the escape check); none when absent. */
	touchedByParent?(since: number): Set<string>;
	/** The extensions children load (default: discovered once for the parent, as pi would). */
	childExtensions?(): Promise<ChildExtensionSet>;
	/** Called with the files as loaded for each spawn (the extension refreshes its tool description). */
	onLoaded?(loaded: LoadResult): void;
	/** Adjusts the parent's facts (the CLI's `--parent-model`, `--parent-thinking`, `--parent-tools`). */
	facts?(facts: ParentFacts): ParentFacts;
	/** Traces the runs (src/telemetry/, ADR 0145); none: no spans. */
	telemetry?: RunTelemetry;
	/** The pool all runs of this parent reserve from (`cadre run --batch --budget`); default settings `budget.session`. */
	sessionBudget?: Budget;
}

/** How one run starts. */
export interface StartOptions {
	/** Aborts a foreground run (the parent's Esc). */
	signal?: AbortSignal;
	onProgress?: ProgressListener;
	/** Run in the background (through the limiter) or not, whatever the config says. */
	background?: boolean;
	/**
	 * A nested spawn (issue 21): the run whose `subagent` tool asks, and the directory it works in
	 * (its worktree). Resolved with `spawnerFacts(run.type, run.config)` and that run's session as
	 * the parent; recorded with its `parentId`. Absent: the root session spawns.
	 */
	spawner?: { run: RunRecord; cwd: string };
	/** What the run takes in a budget dimension it leaves open, instead of all that remains (a batch's share). */
	budgetShare?: Partial<Budget>;
}

/** A parent's spawner. */
export interface Spawner {
	readonly registry: RunRegistry;
	/** Plan and start a run: the one path for the tool, the service, resume and `cadre run`. Refusals throw. */
	start(request: SpawnRequest, options?: StartOptions): Promise<{ run: RunRecord; done: Promise<RunRecord> }>;
	/** What the parent has now, with the given child extension set. */
	snapshot(set: ChildExtensionSet): ParentSnapshot;
	/** The files for the parent's cwd, or null when they cannot be loaded. */
	load(): LoadResult | null;
	/** The files as last loaded (at creation, then at every spawn), or null when they could not be. */
	loaded(): LoadResult | null;
	/** The files for the parent's cwd through the spawner's cache (issue 28), or null when they cannot be loaded. */
	loadCached(): Promise<LoadResult | null>;
}

/** What one parent's spawner holds. */
interface SpawnerState {
	options: SpawnerOptions;
	registry: RunRegistry;
	/** The files as last loaded (at creation, then at every spawn). */
	lastLoaded: LoadResult | null;
	/** Runs being resumed right now: a second resume would append to the same transcript. */
	resuming: Set<string>;
	/** The extensions children load, discovered once. */
	childExtensionSet: Promise<ChildExtensionSet> | null;
	/** The git root of each cwd seen, found once per cwd. */
	repoRoots: Map<string, string | null>;
	/** The files, loaded again only when one of their inputs changed (issue 28). */
	loads: LoadCache;
	/** Resolutions kept while nothing they read changed (issue 28). */
	resolutions: ResolutionCache;
}

/** The files for the parent's cwd, or null when they cannot be loaded. */
function safeLoad(options: SpawnerOptions): LoadResult | null {
	const ctx = options.ctx();
	try {
		return loadFor({ cwd: ctx.cwd, agentDir: options.agentDir, homeDir: options.homeDir, projectTrusted: contextTrust(ctx, options.agentDir, options.homeDir) });
	} catch {
		return null;
	}
}

/** Per dimension the lower of two pools (null = no limit); undefined when neither is given. */
function lowerOf(a: Budget | undefined, b: Budget | undefined): Budget | undefined {
	if (!a || !b) return a ?? b;
	const pick = (x: number | null, y: number | null) => (x === null ? y : y === null ? x : Math.min(x, y));
	return { tokens: pick(a.tokens, b.tokens), cost: pick(a.cost, b.cost), time: pick(a.time, b.time) };
}

/** The parent's run registry: records next to the transcripts (ADR 0068), worktree isolation. */
function parentRegistry(options: SpawnerOptions, loaded: LoadResult | null, lastLoaded: () => LoadResult | null): RunRegistry {
	const { agentDir } = options;
	const initial = options.ctx();
	const registry: RunRegistry = createRunRegistry({
		maxConcurrent: loaded?.settings.maxConcurrent.value ?? 4,
		parentSession: initial.sessionManager.getSessionId(),
		// Records go next to the transcripts (ADR 0068).
		records: recordWriter(transcriptDir(initial, agentDir)),
		earlier: options.earlier,
		// One ledger per parent session (ADR 0172): settings budget.session, or the host's own pool.
		sessionBudget: lowerOf(options.sessionBudget, loaded ? sessionBudget(loaded.settings.budget) : undefined),
		// Issue 25: runs placed on an SSH workspace get a remote worktree; the others the local hooks.
		isolation: withRemoteWorkspaces(createWorktreeIsolation({
			agentDir,
			parentCwd: initial.cwd,
			// Asked while the run is prepared, right after `startPlanned` re-read the files for this spawn.
			settings: () => lastLoaded()?.settings.worktree ?? { baseDir: null, allowSharedFallback: false },
			childCwd: (run) => run.plannedCwd,
			touchedByParent: (since) => options.touchedByParent?.(since) ?? new Set(),
			chainRoot: (id) => chainRoot(id, (run) => registry.get(run)),
		}), { settings: () => lastLoaded()?.settings ?? null, parentCwd: initial.cwd, record: (id) => registry.get(id), chainRoot: (id) => chainRoot(id, (run) => registry.get(run)) }),
		emit: options.emit,
		onTerminal: (run) => {
			options.telemetry?.ended(run);
			options.onTerminal?.(run);
		},
		onChange: options.onChange,
		notifyText: nestedNotification,
	});
	return registry;
}

/** The extensions children load: the host's, else discovered once for the parent as pi would. */
function childExtensions(state: SpawnerState): Promise<ChildExtensionSet> {
	const { options } = state;
	if (!state.childExtensionSet) {
		const ctx = options.ctx();
		const discover =
			options.childExtensions ??
			(() =>
				discoverChildExtensions({
					cwd: ctx.cwd,
					agentDir: options.agentDir,
					projectTrusted: ctx.isProjectTrusted(),
					exclude: safeLoad(options)?.settings.childExtensions.exclude ?? [],
				}));
		state.childExtensionSet = discover().catch(() => ({ paths: [], excluded: [] }));
	}
	return state.childExtensionSet;
}

/** What the parent has now, with the given child extension set (and cadre's trust of its project, when decided already). */
function snapshot(state: SpawnerState, set: ChildExtensionSet, projectTrusted?: boolean): ParentSnapshot {
	const { options } = state;
	/** The git root of a cwd, found once per cwd by walking the file system (no git subprocess). */
	const repoRootOf = (cwd: string) => {
		if (!state.repoRoots.has(cwd)) state.repoRoots.set(cwd, findGitRoot(cwd));
		return state.repoRoots.get(cwd) ?? null;
	};
	const facts = options.facts ? (found: ParentFacts) => options.facts?.(found) ?? found : undefined;
	return parentSnapshot({ pi: options.pi, ctx: options.ctx(), promptOptions: options.promptOptions(), agentDir: options.agentDir, homeDir: options.homeDir, repoRootOf, facts, projectTrusted }, set);
}

/** What a child session of this parent is made from, beside what the plan decides. */
interface ChildSessionBase {
	ctx: ExtensionContext;
	runtime: ReturnType<typeof parentModelRuntime>;
	agentDir: string;
	projectTrusted: boolean;
	skills: Skill[];
	set: ChildExtensionSet;
	sessionDir: string;
	forkFile: string | undefined;
	/** The delegation tools of a run whose config allows it (issue 21), run in `cwd`; none otherwise. */
	delegate(run: RunRecord, cwd: string): ToolDefinition[];
}

/** Creates a planned child's session: its tools (never the spawn tools), the guard, the transcript. */
function childFactory(base: ChildSessionBase): ChildFactory {
	return (child) => {
		// The delegation tools only as the child's own custom tools, bound to its run (never pi's, never the parent's).
		const delegation = child.run.config.delegation?.allowed ? base.delegate(child.run, child.cwd) : [];
		const own = new Set(delegation.map((tool) => tool.name));
		const allowed = new Set(child.tools.filter((name) => !SPAWN_TOOLS.has(name) || own.has(name)));
		const customTools = [...(child.remoteTools ?? child.sandbox?.tools ?? []), ...delegation]; // ADR 0150; issue 25
		return createChildSession({
			modelRuntime: base.runtime,
			model: child.model,
			thinkingLevel: normalizeThinking(child.thinking) ?? "off",
			cwd: child.cwd,
			settingsCwd: base.ctx.cwd,
			agentDir: base.agentDir,
			projectTrusted: base.projectTrusted,
			systemPrompt: child.systemPrompt,
			skills: base.skills,
			tools: [...allowed],
			extensionPaths: base.set.paths,
			guard: (name) =>
				allowed.has(name) ? null : `cadre: "${name}" is outside this sub-agent's tools (${[...allowed].join(", ") || "none"}); the call was refused.`,
			sessionDir: base.sessionDir,
			resumeFile: child.resumeFile ?? undefined,
			forkFile: base.forkFile,
			turnLimit: child.maxTurns,
			resultTool: child.outputSchema ? resultTool(child.outputSchema) : null,
			customTools: customTools.length > 0 ? customTools : undefined, // ADR 0150, issue 21
			budget: child.budget, // ADR 0176
		});
	};
}

/** The run `resumeId` names, refused when its transcript cannot be continued. */
function resumeSource(state: SpawnerState, resumeId: string | null): RunRecord | undefined {
	const source = resumeId ? state.registry.get(resumeId) : undefined;
	if (resumeId && source && !source.transcript) throw new Error(`Spawn refused (resume-refused): run ${resumeId} has no transcript to continue.`);
	if (resumeId && source?.transcript && !existsSync(source.transcript)) {
		throw new Error(`Spawn refused (resume-refused): the transcript of run ${resumeId} (${source.transcript}) is gone; it cannot be continued.`);
	}
	return source;
}

/** Plans a request over freshly read files and the live catalog, and starts it in the registry. */
async function startPlanned(state: SpawnerState, request: SpawnRequest, resumeId: string | null, startOptions: StartOptions) {
	const { options, registry } = state;
	const { agentDir, homeDir } = options;
	const ctx = options.ctx();
	// pi's trust for what pi loads (the child's settings); cadre's own files by cadre's rule (ADR 0190).
	const projectTrusted = ctx.isProjectTrusted();
	const filesTrusted = contextTrust(ctx, agentDir, homeDir);
	// Definitions are re-read where a file or folder they come from changed (a stat each, ADR 0198).
	const loaded = await state.loads.get({ cwd: ctx.cwd, agentDir, homeDir, projectTrusted: filesTrusted });
	state.lastLoaded = loaded;
	options.onLoaded?.(loaded);
	const set = await childExtensions(state);
	const nested = startOptions.spawner;
	// A nested spawn's parent is the spawning run's session: its cwd, model, thinking and tools.
	const root = snapshot(state, set, filesTrusted);
	const parent = nested ? nestedSnapshot(root, nested.run, nested.cwd, (id) => registry.conversation(id)) : root;
	const source = resumeSource(state, resumeId);
	const stored: StoredRun | null = source ? { id: source.id, state: source.state, config: source.config } : null;
	const skills = (options.promptOptions()?.skills ?? []) as Skill[];
	const runtime = parentModelRuntime(ctx);
	const sessionDir = transcriptDir(ctx, agentDir);
	// A run of the session this one was forked from continues in a copy of its transcript (ADR 0069).
	const forkFile = source?.transcript && source.parentSession !== ctx.sessionManager.getSessionId() ? source.transcript : undefined;
	const delegate = (run: RunRecord, cwd: string) =>
		runDelegationTools({ run, cwd, registry, loaded: () => state.lastLoaded, start: (req, o) => start(state, req, { ...o, spawner: { run, cwd } }) });
	const createChild = childFactory({ ctx, runtime, agentDir, projectTrusted, skills, set, sessionDir, forkFile, delegate });
	const spawnerOf = nested ? spawnerFacts(nested.run.type, nested.run.config) : null;
	// The SSH workspaces it may go to are probed first, once per host in this process (ADR 0191); where
	// it goes and its sandbox mode do not depend on the models, so the live catalog serves that look.
	const { resolutions } = state;
	const probed = await withRemoteSandboxFacts({ request, parent, models: liveCatalog(runtime, parent.facts.model), loaded, resumeFrom: stored, createChild, spawner: spawnerOf, resolutions });
	// pi's availability check may not have landed yet: a provider it does not list is checked first.
	const plan = await withAvailableModels(runtime, parent.facts.model, (models) => planSpawn({ request, parent: probed, models, loaded, resumeFrom: stored, createChild, spawner: spawnerOf, resolutions }));
	registry.setMaxConcurrent(loaded.settings.maxConcurrent.value);
	const background = startOptions.background ?? (request.run_in_background === undefined && resumeId ? false : plan.config.runInBackground);
	return registry.spawn(options.telemetry ? options.telemetry.traced(plan) : plan, {
		background,
		signal: background ? undefined : startOptions.signal,
		onProgress: startOptions.onProgress,
		resumeFile: forkFile ? null : (source?.transcript ?? null),
		parentId: nested?.run.id ?? null,
		spawnerCwd: nested?.cwd ?? null,
		budgetShare: startOptions.budgetShare,
	});
}

/** Starts a request, claiming a resumed run first so two resumes in one message cannot both pass. */
async function start(state: SpawnerState, request: SpawnRequest, startOptions: StartOptions) {
	const resumeId = typeof request.resume === "string" ? request.resume : null;
	// Claimed before the first await, so two resumes in one message cannot both pass.
	if (resumeId !== null && state.resuming.has(resumeId)) {
		throw new Error(`Spawn refused (resume-refused): run ${resumeId} is being resumed already; wait for that run to end, then resume it again.`);
	}
	if (resumeId !== null) state.resuming.add(resumeId);
	try {
		const started = await startPlanned(state, request, resumeId, startOptions);
		if (resumeId !== null) void started.done.finally(() => state.resuming.delete(resumeId));
		return started;
	} catch (error) {
		if (resumeId !== null) state.resuming.delete(resumeId);
		throw error;
	}
}

/** The files through the cache, or null when they cannot be loaded. */
async function cachedLoad(state: SpawnerState): Promise<LoadResult | null> {
	const ctx = state.options.ctx();
	const { agentDir, homeDir } = state.options;
	return state.loads.get({ cwd: ctx.cwd, agentDir, homeDir, projectTrusted: contextTrust(ctx, agentDir, homeDir) }).catch(() => null);
}

/** The spawner of one parent session. */
export function createSpawner(options: SpawnerOptions): Spawner {
	const loaded = safeLoad(options);
	// The isolation hook asks for the files as last loaded, which the state holds once it exists.
	let created: SpawnerState | undefined;
	const registry = parentRegistry(options, loaded, () => (created ? created.lastLoaded : loaded));
	created = { options, registry, lastLoaded: loaded, resuming: new Set(), childExtensionSet: null, repoRoots: new Map(), loads: createLoadCache(loadFor), resolutions: createResolutionCache() };
	return {
		registry,
		snapshot: (set) => snapshot(created, set),
		load: () => safeLoad(options),
		loaded: () => created.lastLoaded,
		loadCached: () => cachedLoad(created),
		start: (request, startOptions = {}) => start(created, request, startOptions),
	};
}
