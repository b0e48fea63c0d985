/**
 * Starting runs for a pi parent session, for every host: the pi extension's own session and the
 * headless parent `cadre run` creates through the SDK adapter (ADR 0090) both call this, so a run
 * from the command line is planned, started, isolated, recorded and reported exactly as one from
 * the `subagent` tool. Holds the parent's run registry (records on disk, worktree isolation, the
 * limiter), the extensions its children load, the parent snapshot and the resume claims.
 */
import { existsSync } from "node:fs";
import type { BuildSystemPromptOptions, ExtensionAPI, ExtensionContext, Skill } from "@earendil-works/pi-coding-agent";
import { normalizeThinking } from "../../core/values.ts";
import { findGitRoot } from "../../files/discovery.ts";
import type { LoadResult } from "../../files/types.ts";
import { parentPromptOptionsFromPi } from "../../prompt/pi-options.ts";
import type { ParentPrompt } from "../../prompt/types.ts";
import { builtinToolNames } from "../../resolve/tools.ts";
import type { ParentFacts, SpawnRequest, StoredRun } from "../../resolve/types.ts";
import {
	builtinToolGuidance,
	type ChildExtensionSet,
	childMessages,
	createChildSession,
	discoverChildExtensions,
	parentModelRuntime,
	piDocPaths,
	transcriptDir,
	withAvailableModels,
} from "../../runtime/pi-sdk.ts";
import { recordWriter } from "../../runtime/run-store.ts";
import { resultTool } from "../../runtime/structured-result.ts";
import { chainRoot, createRunRegistry, type ProgressListener, type RunRecord, type RunRegistry, type RunRegistryOptions } from "../../runtime/runs.ts";
import { createWorktreeIsolation } from "../../isolation/worktree-hooks.ts";
import { SPAWN_TOOLS } from "./tool-names.ts";
import { loadFor, type ParentSnapshot, planSpawn } from "./plan.ts";

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
}

/** How one run starts. */
export interface StartOptions {
	/** Aborts a foreground run (the parent's Esc). */
	signal?: AbortSignal;
	onProgress?: ProgressListener;
	/** Run in the background (through the limiter) or not, whatever the config says. */
	background?: boolean;
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
}

/** The user and assistant text of the parent's current branch, last `maxChars` (inherit_context). */
function conversationText(ctx: ExtensionContext, maxChars = 8000): string | null {
	const messages = ctx.sessionManager.getBranch().flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
	const parts: string[] = [];
	for (const message of childMessages(messages)) {
		if (message.role !== "user" && message.role !== "assistant") continue;
		if (message.text.trim()) parts.push(`${message.role}: ${message.text.trim()}`);
	}
	const text = parts.join("\n\n");
	return text ? text.slice(-maxChars) : null;
}

/** The spawner of one parent session. */
export function createSpawner(options: SpawnerOptions): Spawner {
	const { pi, agentDir, homeDir } = options;
	const repoRoots = new Map<string, string | null>();
	/** The git root of a cwd, found once per cwd by walking the file system (no git subprocess). */
	const repoRootOf = (cwd: string) => {
		if (!repoRoots.has(cwd)) repoRoots.set(cwd, findGitRoot(cwd));
		return repoRoots.get(cwd) ?? null;
	};
	const safeLoad = () => {
		const ctx = options.ctx();
		try {
			return loadFor({ cwd: ctx.cwd, agentDir, homeDir, projectTrusted: ctx.isProjectTrusted() });
		} catch {
			return null;
		}
	};
	const initial = options.ctx();
	const loaded = safeLoad();
	let lastLoaded = loaded;
	/** Runs being resumed right now: a second resume would append to the same transcript. */
	const resuming = new Set<string>();
	let childExtensionSet: Promise<ChildExtensionSet> | null = null;
	const registry: RunRegistry = createRunRegistry({
		maxConcurrent: loaded?.settings.maxConcurrent.value ?? 4,
		parentSession: initial.sessionManager.getSessionId(),
		// Records go next to the transcripts (ADR 0068).
		records: recordWriter(transcriptDir(initial, agentDir)),
		earlier: options.earlier,
		isolation: createWorktreeIsolation({
			agentDir,
			parentCwd: initial.cwd,
			// Asked while the run is prepared, right after `startPlanned` re-read the files for this spawn.
			settings: () => lastLoaded?.settings.worktree ?? { baseDir: null, allowSharedFallback: false },
			childCwd: (run) => run.plannedCwd,
			touchedByParent: (since) => options.touchedByParent?.(since) ?? new Set(),
			chainRoot: (id) => chainRoot(id, (run) => registry.get(run)),
		}),
		emit: options.emit,
		onTerminal: options.onTerminal,
		onChange: options.onChange,
	});

	const childExtensions = () => {
		if (!childExtensionSet) {
			const ctx = options.ctx();
			const discover =
				options.childExtensions ??
				(() =>
					discoverChildExtensions({
						cwd: ctx.cwd,
						agentDir,
						projectTrusted: ctx.isProjectTrusted(),
						exclude: safeLoad()?.settings.childExtensions.exclude ?? [],
					}));
			childExtensionSet = discover().catch(() => ({ paths: [], excluded: [] }));
		}
		return childExtensionSet;
	};

	const snapshot = (set: ChildExtensionSet): ParentSnapshot => {
		const ctx = options.ctx();
		const promptOptions = options.promptOptions();
		const builtins = builtinToolNames();
		const excluded = new Set(set.excluded);
		const extensionTools = pi
			.getAllTools()
			.filter((tool) => !builtins.includes(tool.name) && !SPAWN_TOOLS.has(tool.name) && !excluded.has(tool.sourceInfo.path))
			.map((tool) => tool.name)
			.sort();
		// Before the parent's first prompt (a service spawn) pi has handed no prompt options yet:
		// pi's own guidance for its built-in tools stands in.
		const guidance = promptOptions
			? { snippets: promptOptions.toolSnippets ?? {}, guidelines: promptOptions.toolGuidelines ?? {} }
			: builtinToolGuidance(ctx.cwd);
		const prompt: ParentPrompt = promptOptions
			? { kind: "options", options: parentPromptOptionsFromPi(promptOptions, piDocPaths()) }
			: { kind: "text", text: ctx.getSystemPrompt(), source: "pi" };
		const facts: ParentFacts = {
			cwd: ctx.cwd,
			model: ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : null,
			thinking: normalizeThinking(pi.getThinkingLevel()) ?? "medium",
			activeTools: pi.getActiveTools().filter((name) => !SPAWN_TOOLS.has(name)),
			toolUniverse: [...builtins, ...new Set(extensionTools)],
			repoRoot: repoRootOf(ctx.cwd),
		};
		return {
			cwd: ctx.cwd,
			agentDir,
			homeDir,
			projectTrusted: ctx.isProjectTrusted(),
			facts: options.facts ? options.facts(facts) : facts,
			prompt,
			toolSnippets: { ...guidance.snippets },
			toolGuidelines: Object.fromEntries(Object.entries(guidance.guidelines).map(([k, v]) => [k, [...v]])),
			conversation: () => conversationText(ctx),
		};
	};

	const startPlanned = async (request: SpawnRequest, resumeId: string | null, startOptions: StartOptions) => {
		const ctx = options.ctx();
		const set = await childExtensions();
		const parent = snapshot(set);
		const source = resumeId ? registry.get(resumeId) : undefined;
		const stored: StoredRun | null = source ? { id: source.id, state: source.state, config: source.config } : null;
		if (resumeId && source && !source.transcript) throw new Error(`Spawn refused (resume-refused): run ${resumeId} has no transcript to continue.`);
		if (resumeId && source?.transcript && !existsSync(source.transcript)) {
			throw new Error(`Spawn refused (resume-refused): the transcript of run ${resumeId} (${source.transcript}) is gone; it cannot be continued.`);
		}
		const skills = (options.promptOptions()?.skills ?? []) as Skill[];
		const projectTrusted = ctx.isProjectTrusted();
		const loadedNow = loadFor({ cwd: ctx.cwd, agentDir, homeDir, projectTrusted });
		// Definitions are re-read at every spawn.
		lastLoaded = loadedNow;
		options.onLoaded?.(loadedNow);
		const runtime = parentModelRuntime(ctx);
		const sessionDir = transcriptDir(ctx, agentDir);
		// A run of the session this one was forked from continues in a copy of its transcript (ADR 0069).
		const forkFile = source?.transcript && source.parentSession !== ctx.sessionManager.getSessionId() ? source.transcript : undefined;
		// pi's availability check may not have landed yet: a provider it does not list is checked first.
		const plan = await withAvailableModels(runtime, parent.facts.model, (models) =>
			planSpawn({
				request,
				parent,
				models,
				loaded: loadedNow,
				resumeFrom: stored,
				createChild: (child) => {
					const allowed = new Set(child.tools.filter((name) => !SPAWN_TOOLS.has(name)));
					return createChildSession({
						modelRuntime: runtime,
						model: child.model,
						thinkingLevel: normalizeThinking(child.thinking) ?? "off",
						cwd: child.cwd,
						settingsCwd: ctx.cwd,
						agentDir,
						projectTrusted,
						systemPrompt: child.systemPrompt,
						skills,
						tools: [...allowed],
						extensionPaths: set.paths,
						guard: (name) =>
							allowed.has(name)
								? null
								: `cadre: "${name}" is outside this sub-agent's tools (${[...allowed].join(", ") || "none"}); the call was refused.`,
						sessionDir,
						resumeFile: child.resumeFile ?? undefined,
						forkFile,
						turnLimit: child.maxTurns,
						resultTool: child.outputSchema ? resultTool(child.outputSchema) : null,
						customTools: child.sandbox?.tools, // ADR 0150
					});
				},
			}),
		);
		registry.setMaxConcurrent(loadedNow.settings.maxConcurrent.value);
		const background = startOptions.background ?? (request.run_in_background === undefined && resumeId ? false : plan.config.runInBackground);
		return registry.spawn(plan, {
			background,
			signal: background ? undefined : startOptions.signal,
			onProgress: startOptions.onProgress,
			resumeFile: forkFile ? null : (source?.transcript ?? null),
		});
	};

	return {
		registry,
		snapshot,
		load: safeLoad,
		loaded: () => lastLoaded,
		async start(request, startOptions = {}) {
			const resumeId = typeof request.resume === "string" ? request.resume : null;
			// Claimed before the first await, so two resumes in one message cannot both pass.
			if (resumeId !== null && resuming.has(resumeId)) {
				throw new Error(`Spawn refused (resume-refused): run ${resumeId} is being resumed already; wait for that run to end, then resume it again.`);
			}
			if (resumeId !== null) resuming.add(resumeId);
			try {
				const started = await startPlanned(request, resumeId, startOptions);
				if (resumeId !== null) void started.done.finally(() => resuming.delete(resumeId));
				return started;
			} catch (error) {
				if (resumeId !== null) resuming.delete(resumeId);
				throw error;
			}
		},
	};
}
