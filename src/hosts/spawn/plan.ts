/**
 * From a spawn request to a run plan, for every host (the pi extension's `subagent` tool and
 * service, `cadre run`): snapshot the parent (cwd, model, thinking, tools, structured prompt
 * options), re-read the files, resolve the request, assemble the child's prompt and bind the
 * child-session factory. Refusals become errors: the tool returns them to the model, the CLI prints them.
 */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import type { Budget } from "../../core/budget.ts";
import type { Diagnostic } from "../../core/diagnostics.ts";
import { safeText } from "../../core/terminal-text.ts";
import { agentDirFrom } from "../../files/discovery.ts";
import { loadAll } from "../../files/load.ts";
import type { LoadResult } from "../../files/types.ts";
import { assemblePrompt } from "../../prompt/assemble.ts";
import { findContextFiles, readGitBranch } from "../../prompt/project-files.ts";
import { renderProjectContext } from "../../prompt/project-context.ts";
import { toolGuidanceLines } from "../../prompt/tool-guidance.ts";
import type { ParentPrompt } from "../../prompt/types.ts";
import { resolve } from "../../resolve/resolve.ts";
import { spawnReader } from "../../resolve/spawn-reader.ts";
import type { ModelCatalog, ParentFacts, ResolveResult, SandboxPlatform, SpawnerFacts, SpawnRequest, StoredRun } from "../../resolve/types.ts";
import type { ChildHandle } from "../../runtime/pi/child-session.ts";
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { RunRecord, SpawnPlan } from "../../runtime/runs.ts";
import { type ChildSandbox, childSandboxFor, sandboxFacts, withSandbox } from "../../sandbox/spawn-sandbox.ts";
import { failOnLostLink } from "../../workspaces/lost-link.ts";
import { remoteRunOf } from "../../workspaces/remote-isolation.ts";
import { knownRemoteSandbox, probeWorkspaces } from "../../workspaces/remote-sandbox.ts";
import { remoteNames } from "../../resolve/workspace.ts";
import type { ResolutionCache } from "./resolution-cache.ts";
import { keptPromptText } from "./prompt-memo.ts";

/** What the parent session had when the child is spawned (plain data, recorded per spawn). */
export interface ParentSnapshot {
	cwd: string;
	agentDir: string;
	homeDir: string;
	projectTrusted: boolean;
	facts: ParentFacts;
	prompt: ParentPrompt;
	/** pi's one-line tool snippets and per-tool guidelines (for the child's own tool guidance); read only. */
	toolSnippets: Readonly<Record<string, string>>;
	toolGuidelines: Readonly<Record<string, readonly string[]>>;
	/** Recent parent conversation, for `inherit_context` (plain text, capped; read only when asked). */
	conversation: () => string | null;
}

/** Creates the child session for a plan (the pi adapter, bound by the extension). */
export type ChildFactory = (options: {
	/** The run the session is for (a delegating run's tools name it as their caller, issue 21). */
	run: RunRecord;
	model: string;
	thinking: string;
	cwd: string;
	systemPrompt: string;
	tools: readonly string[];
	resumeFile: string | null;
	maxTurns: number | null;
	/** The JSON Schema of the child's `submit_result`, or null. */
	outputSchema: Record<string, unknown> | null;
	/** The child's OS sandbox (ADR 0150): its tools replace pi's built-ins; null when unsandboxed. */
	sandbox: ChildSandbox | null;
	/** The budget the run reserved (issue 22): held before each model request; null without one. */
	budget: Budget | null;
	/** Issue 25: the child's tools on its SSH workspace (they replace pi's built-ins); absent when local. */
	remoteTools?: ToolDefinition[];
}) => Promise<ChildHandle>;

/** The agent dir and home of this process, as pi and the loader see them. */
export function agentPaths(): { agentDir: string; homeDir: string } {
	const homeDir = process.env.HOME ?? homedir();
	return { agentDir: agentDirFrom(process.env, homeDir), homeDir };
}

/** Load the files for the parent's cwd (definitions are re-read at every spawn). */
export function loadFor(parent: Pick<ParentSnapshot, "cwd" | "agentDir" | "homeDir" | "projectTrusted">): LoadResult {
	return loadAll({ cwd: parent.cwd, agentDir: parent.agentDir, homeDir: parent.homeDir, projectTrusted: parent.projectTrusted });
}

/** Absolute child cwd from `config.cwd` (relative to the project dir when inside it). */
export function absoluteCwd(configCwd: string, loaded: LoadResult, parentCwd: string): string {
	if (isAbsolute(configCwd)) return configCwd;
	return join(loaded.projectDir ?? parentCwd, configCwd);
}

const gitBranchCache = new Map<string, string | null>();

/** The git branch at `cwd`, detected once per directory (spec 07: no git per spawn). */
function gitBranch(cwd: string): string | null {
	if (!gitBranchCache.has(cwd)) gitBranchCache.set(cwd, readGitBranch(cwd));
	return gitBranchCache.get(cwd) ?? null;
}

/** A refused spawn: the message the model sees, and what to do about it. */
export class SpawnRefused extends Error {
	readonly code: string;
	/** The hints of the resolution's errors (shown escaped), e.g. `use one of: …`. */
	readonly hints: string[];
	constructor(code: string, message: string, hints: string[] = []) {
		super(message);
		this.code = code;
		this.hints = hints;
	}
}

/** The refusal the model reads and pi shows: it quotes files and the request, so it is made safe (ADR 0075). */
function refusalMessage(result: ResolveResult): string {
	const refusal = result.refused;
	if (!refusal) return "";
	const errors = result.diagnostics.filter((d: Diagnostic) => d.severity === "error" && d.file === null).map((d) => d.message);
	const extra = errors.filter((message) => message !== refusal.message);
	return safeText(`Spawn refused (${refusal.code}): ${refusal.message}${extra.length ? `\n${extra.join("\n")}` : ""}`);
}

/** The hints of a refused resolution's own errors, once each. */
function refusalHints(result: ResolveResult): string[] {
	const hints = result.diagnostics.filter((d: Diagnostic) => d.severity === "error" && d.file === null && d.hint).map((d) => safeText(d.hint as string));
	return [...new Set(hints)];
}

/** Options for {@link planSpawn}. */
export interface PlanSpawnOptions {
	request: SpawnRequest;
	parent: ParentSnapshot;
	models: ModelCatalog;
	/** The stored run a `resume` names (null when unknown). */
	resumeFrom?: StoredRun | null;
	createChild: ChildFactory;
	/** The files as loaded for this spawn (loaded here when absent). */
	loaded?: LoadResult;
	/** A nested spawn (issue 21): the spawning run's facts (`spawnerFacts`); absent: the root session spawns. */
	spawner?: SpawnerFacts | null;
	/** The parent's kept resolutions (resolution-cache.ts, issue 28); absent: resolved every time. */
	resolutions?: ResolutionCache;
}

/** The resolution of a request as {@link planSpawn} makes it (pure). */
function resolveRequest(options: PlanSpawnOptions, loaded: LoadResult): ResolveResult {
	const { request, parent } = options;
	return (options.resolutions?.resolve ?? resolve)({
		request,
		type: typeof request.subagent_type === "string" ? request.subagent_type : null,
		loaded,
		parent: sandboxFacts(parent),
		models: options.models,
		reader: spawnReader,
		toolKinds: loaded.settings.toolKinds,
		resumeFrom: request.resume === undefined || request.resume === null ? undefined : (options.resumeFrom ?? null),
		spawner: options.spawner ?? null,
	});
}

/**
 * The parent with the sandbox facts of the SSH workspaces this request may be placed on (issue 25,
 * ADR 0191): those not probed yet in this process are probed now (I/O), so the resolution that
 * plans the spawn decides with them. No workspaces in settings, none named, or `sandbox: off`: no I/O.
 */
export async function withRemoteSandboxFacts(options: PlanSpawnOptions & { loaded: LoadResult }): Promise<ParentSnapshot> {
	const workspaces = options.loaded.settings.workspaces ?? {};
	if (Object.keys(workspaces).length === 0) return options.parent;
	const withFacts = (remoteSandbox: Record<string, SandboxPlatform>) => ({ ...options.parent, facts: { ...options.parent.facts, remoteSandbox: { ...options.parent.facts.remoteSandbox, ...remoteSandbox } } });
	// every workspace probed already (the usual case after the first spawns): no look, no I/O
	const known = knownRemoteSandbox(workspaces);
	if (Object.keys(known).length === Object.keys(workspaces).length) return withFacts(known);
	const first = resolveRequest(options, options.loaded);
	const names = remoteNames(first.trace.workspace?.value);
	if (names.length === 0 || first.trace.sandbox?.value === "off") return options.parent;
	return withFacts(await probeWorkspaces(workspaces, names));
}

/** Resolve a request into a plan, or throw {@link SpawnRefused}. */
export function planSpawn(options: PlanSpawnOptions): SpawnPlan {
	const { request, parent } = options;
	const loaded = options.loaded ?? loadFor(parent);
	const result = resolveRequest(options, loaded);
	if (result.refused || !result.config) throw new SpawnRefused(result.refused?.code ?? "bad-request", refusalMessage(result), refusalHints(result));
	const config = result.config;
	const childCwd = absoluteCwd(config.cwd, loaded, parent.cwd);
	const prompt = typeof request.prompt === "string" ? request.prompt : "";
	const description = typeof request.description === "string" ? request.description : prompt.slice(0, 40);
	const conversation = config.inheritContext ? parent.conversation() : null;
	const fullPrompt = conversation ? `<parent_conversation>\n${conversation}\n</parent_conversation>\n\n${prompt}` : prompt;
	const thinking = (result.trace.reasoningEffort?.applied ?? config.reasoningEffort ?? parent.facts.thinking) as string;
	const assemble = (cwd: string, worktreeParentDir: string | null) =>
		assemblePrompt({
			parent: parent.prompt,
			parentCwd: parent.cwd,
			childCwd: cwd,
			config,
			type: result.type,
			environment: { platform: process.platform, gitBranch: gitBranch(cwd) },
			worktreeParentDir,
			toolGuidance: toolGuidanceLines(config.tools, { snippets: parent.toolSnippets, guidelines: parent.toolGuidelines }),
			projectContext: cwd === parent.cwd && parent.prompt.kind === "options" ? null : renderProjectContext(findContextFiles(cwd, parent.agentDir, undefined, loaded.settings.maxFileBytes)),
		}).text;
	// A prompt that reads no project file is kept for the next spawn of the same inputs (prompt-memo.ts).
	const buildPrompt = (cwd: string, worktreeParentDir: string | null) =>
		cwd === parent.cwd && parent.prompt.kind === "options"
			? keptPromptText(config, { prompt: parent.prompt, snippets: parent.toolSnippets, guidelines: parent.toolGuidelines }, [result.type, cwd, parent.cwd, worktreeParentDir, gitBranch(cwd)], () => assemble(cwd, worktreeParentDir))
			: assemble(cwd, worktreeParentDir);
	return {
		type: result.type,
		description,
		prompt: fullPrompt,
		config,
		trace: result.trace,
		ignored: result.ignored,
		diagnostics: result.diagnostics,
		cwd: childCwd,
		resumeOf: typeof request.resume === "string" ? request.resume : null,
		repairContract: loaded.settings.contracts.repair,
		async createChild(run, cwd, resumeFile) {
			const model = config.model;
			if (!model) throw new Error("no model resolved");
			const assembled = buildPrompt(cwd, cwd === childCwd ? null : parent.cwd);
			// Issue 25: on an SSH workspace the tools run there, in the remote's sandbox when it is sandboxed (ADR 0191).
			const remote = remoteRunOf(run.id);
			if (remote) {
				const child = { run, model, thinking, cwd, systemPrompt: assembled, tools: config.tools, resumeFile, maxTurns: config.maxTurns, outputSchema: config.outputSchema ?? null, sandbox: null, budget: run.budget?.reserved ?? null };
				const handle = await options.createChild({ ...child, remoteTools: remote.tools });
				// its verify runs where it worked (its remote worktree, in the remote's sandbox when it has one)
				const withBlocked = { ...handle, runShell: remote.runShell, diagnostics: () => [...handle.diagnostics(), ...remote.diagnostics()] };
				return failOnLostLink(withBlocked, remote.lost);
			}
			const sandbox = await childSandboxFor({ config, cwd, isolated: cwd !== childCwd, parent, loaded });
			return withSandbox(sandbox, () => options.createChild({
				run,
				model,
				thinking,
				cwd,
				systemPrompt: assembled,
				tools: config.tools,
				resumeFile,
				maxTurns: config.maxTurns,
				outputSchema: config.outputSchema ?? null,
				sandbox,
				budget: run.budget?.reserved ?? null,
			}));
		},
	};
}
