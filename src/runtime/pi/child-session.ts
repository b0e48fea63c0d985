/**
 * A child `AgentSession` in the parent's process (spec 04 "In-process children"): the parent's
 * model runtime, the resolved model, the assembled prompt, the effective tools, the parent's
 * extensions reloaded behind the capability guard, a persisted transcript — and the small
 * {@link ChildHandle} the run lifecycle drives without touching pi types.
 */

import {
	type AgentSession,
	createAgentSession,
	createExtensionRuntime,
	DefaultResourceLoader,
	type LoadExtensionsResult,
	type ModelRuntime,
	type ResourceLoader,
	SessionManager,
	type Skill,
	type ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import type { Budget } from "../../core/budget.ts";
import type { Diagnostic } from "../../core/diagnostics.ts";
import type { ThinkingLevel } from "../../core/values.ts";
import type { StructuredState } from "../contract.ts";
import type { ShellRunner, ShellWrap } from "../shell-command.ts";
import { type ResultTool, SUBMIT_RESULT_TOOL } from "../structured-result.ts";
import { limited } from "../budget-meter.ts";
import { type BudgetGate, type BudgetGateState, type GateChildren, installBudgetGate } from "./budget-gate.ts";
import { childSettingsManager } from "./child-settings.ts";
import { guardExtension, type ToolGuard, type ToolWait } from "./capability-guard.ts";
import { type ChildEvent, translate } from "./child-events.ts";
import { type ChildMessage, childMessages } from "./conversation.ts";
import { extensionErrorLog } from "./extension-errors.ts";

/** A resource loader built from already-resolved data: no discovery per child. */
function childResourceLoader(systemPrompt: string, skills: readonly Skill[], extensions: () => LoadExtensionsResult): ResourceLoader {
	return {
		getExtensions: extensions,
		getSkills: () => ({ skills: [...skills], diagnostics: [] }),
		getPrompts: () => ({ prompts: [], diagnostics: [] }),
		getThemes: () => ({ themes: [], diagnostics: [] }),
		getAgentsFiles: () => ({ agentsFiles: [] }),
		getSystemPrompt: () => systemPrompt,
		getSystemPromptSource: () => undefined,
		getAppendSystemPrompt: () => [],
		getAppendSystemPromptSources: () => [],
		extendResources: () => {},
		reload: async () => {},
	};
}

/** Options for {@link createChildSession}. */
export interface ChildSessionOptions {
	/** The parent's model runtime (never a fresh one). */
	modelRuntime: ModelRuntime;
	/** `provider/id` of the resolved model. */
	model: string;
	/** The level the child runs with (`trace.reasoningEffort.applied`). */
	thinkingLevel: ThinkingLevel;
	/** Absolute working directory of the child. */
	cwd: string;
	/**
	 * The parent's cwd: the child reads pi's settings (compaction, retry, shell, …) from here, as
	 * the parent does, wherever the child runs (a subdirectory, a worktree). Defaults to `cwd`.
	 */
	settingsCwd?: string;
	agentDir: string;
	/** The parent session's project trust. */
	projectTrusted: boolean;
	/** The assembled system prompt (spec 03); pi appends skills and `<cwd>`. */
	systemPrompt: string;
	/** The parent's loaded skills, for the child's own skills catalogue. */
	skills: readonly Skill[];
	/** The effective tool list. */
	tools: readonly string[];
	/** Extension files the child loads (from {@link discoverChildExtensions}). */
	extensionPaths: readonly string[];
	/** The call-time capability guard. */
	guard: ToolGuard;
	/** `max_turns`: tool calls of this turn are blocked with terminate (no further request). */
	turnLimit?: number | null;
	/** The `submit_result` tool of a child with an `output_schema` (always allowed; not in `tools`). */
	resultTool?: ResultTool | null;
	/** Tools that replace pi's built-ins of the same name (the OS sandbox's, ADR 0150). */
	customTools?: ToolDefinition[];
	/** Directory the new transcript goes into. */
	sessionDir: string;
	/** A transcript to continue instead of starting a new one (resume). */
	resumeFile?: string;
	/**
	 * A transcript to copy into a new one in `sessionDir` and continue there (the resume of a run
	 * of the session this one was forked from: the original transcript stays as it was).
	 */
	forkFile?: string;
	/** The limits the run reserved (issue 22, ADR 0176): held before each model request; none or unlimited: no gate. */
	budget?: Budget | null;
}

/** Usage totals of a child session. */
export interface ChildUsage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	cost: number;
}

/** How full a child's context window is. */
export interface ChildContext {
	/** Estimated tokens in the context, or null when unknown (right after compaction). */
	tokens: number | null;
	/** The model's context window in tokens. */
	window: number;
	/** `tokens` as a percentage of `window`, or null when unknown. */
	percent: number | null;
}

/** What a run holds of a child session: no pi type leaks past this adapter. */
export interface ChildHandle {
	/** The transcript path (the file exists once the first assistant message is written). */
	transcript: string | null;
	/** Subscribe to translated events; returns the unsubscribe function. */
	subscribe(listener: (event: ChildEvent) => void): () => void;
	/** Send the prompt and resolve when the child settles. */
	run(prompt: string): Promise<void>;
	/** Queue a steering message (after the current tool call). */
	steer(text: string): Promise<void>;
	/** Abort the active operation. */
	abort(): Promise<void>;
	/** The last assistant text, or null. */
	lastText(): string | null;
	/** What `submit_result` received, or null when the child has no such tool. */
	structured(): StructuredState | null;
	usage(): ChildUsage;
	/** How full the child's context window is (after its last answer), or null before it is known. */
	contextUsage(): ChildContext | null;
	/** The child's conversation so far, as plain data (the conversation viewer). */
	messages(): ChildMessage[];
	/** Every raw pi session event, for observers that need more than the translation (telemetry's spans, ADR 0145). */
	observe?(listener: (event: { type: string; [key: string]: unknown }) => void): () => void;
	/** Release the session and its extension runtime. */
	dispose(): void;
	/**
	 * How cadre's own commands for this child (its `verify`) run: inside its OS sandbox when it has
	 * one (the command and environment to hand to the shell instead); absent: as they are.
	 */
	shell?: ShellWrap;
	/** Where cadre's own commands for this child run instead of this machine: its SSH workspace (its remote worktree). */
	runShell?: ShellRunner;
	/**
	 * What went wrong in the child without ending it: an extension that failed to load (the child
	 * runs without it) or whose handler threw (pi goes on), as `extension-error` diagnostics.
	 */
	diagnostics(): Diagnostic[];
	/**
	 * Messages steered to it that it never read — they came after its last turn — once the steers
	 * in flight have landed. Ask when `run` has settled.
	 */
	unread(): Promise<string[]>;
	/** What the budget gate saw (used, the dimension that stopped the child), or null without a budget. */
	budget?(): BudgetGateState | null;
	/**
	 * Also holds the child to `room()` (what its reservation still has room for once its own
	 * children hold part of it), checked with its budget before each request.
	 */
	budgetRoom?(room: () => Budget | null, children?: GateChildren): void;
	/** Each tool call the guard lets through waits for `wait(toolName)` before it runs (the receipt's look at the tree, issue 28). */
	beforeTools?(wait: (toolName: string) => Promise<void> | null): void;
}

function splitModel(runtime: ModelRuntime, id: string) {
	const slash = id.indexOf("/");
	const provider = slash < 0 ? "" : id.slice(0, slash);
	const modelId = slash < 0 ? id : id.slice(slash + 1);
	const model = runtime.getModel(provider, modelId);
	if (!model) throw new Error(`cadre: model ${id} is not known to the parent's model runtime.`);
	return model;
}

/**
 * Create a child `AgentSession` in-process: the parent's model runtime, the resolved model passed
 * explicitly (also on resume), the assembled prompt with no context files of its own, the effective
 * tools, the parent's extensions reloaded for the child (guard first), a persisted transcript.
 */
export async function createChildSession(options: ChildSessionOptions): Promise<ChildHandle> {
	const model = splitModel(options.modelRuntime, options.model);
	const settingsManager = childSettingsManager(options.settingsCwd ?? options.cwd, options.agentDir, options.projectTrusted);
	const result = options.resultTool ? { tool: options.resultTool, state: { calls: 0, errors: null } as StructuredState } : null;
	const toolWait: ToolWait = { wait: null };
	const guard = guardExtension(options.guard, options.turnLimit ?? null, result, toolWait);
	const errors = extensionErrorLog();
	let extensions: LoadExtensionsResult;
	if (options.extensionPaths.length === 0) {
		extensions = { extensions: [guard], errors: [], runtime: createExtensionRuntime() };
	} else {
		const loader = new DefaultResourceLoader({
			cwd: options.cwd,
			agentDir: options.agentDir,
			settingsManager,
			noExtensions: true,
			additionalExtensionPaths: [...options.extensionPaths],
			noSkills: true,
			noPromptTemplates: true,
			noThemes: true,
			noContextFiles: true,
			extensionsOverride: (base) => ({ ...base, extensions: [guard, ...base.extensions] }),
		});
		await loader.reload();
		extensions = loader.getExtensions();
		for (const failed of extensions.errors) errors.add({ path: failed.path, event: "load", error: failed.error });
	}
	const sessionManager = options.forkFile
		? SessionManager.forkFrom(options.forkFile, options.cwd, options.sessionDir)
		: options.resumeFile
			? SessionManager.open(options.resumeFile, options.sessionDir, options.cwd)
			: SessionManager.create(options.cwd, options.sessionDir);
	const { session } = await createAgentSession({
		cwd: options.cwd,
		agentDir: options.agentDir,
		modelRuntime: options.modelRuntime,
		model,
		thinkingLevel: options.thinkingLevel,
		resourceLoader: childResourceLoader(options.systemPrompt, options.skills, () => extensions),
		tools: result ? [...options.tools, SUBMIT_RESULT_TOOL] : [...options.tools],
		customTools: options.customTools,
		sessionManager,
		settingsManager,
	});
	// pi reports a handler that threw to this listener and goes on; the run's result names it.
	if (options.extensionPaths.length > 0) await session.bindExtensions({ onError: (error) => errors.add({ ...error, path: error.extensionPath }) });
	const gate = limited(options.budget) ? installBudgetGate(session, options.budget) : null;
	return sessionHandle(session, result?.state ?? null, errors.list, gate, toolWait);
}

function sessionHandle(session: AgentSession, structured: StructuredState | null, diagnostics: () => Diagnostic[], gate: BudgetGate | null, toolWait: ToolWait): ChildHandle {
	const turn = { n: 0 };
	/** Steers pi has not queued yet (it runs input handlers first). */
	const steering = new Set<Promise<unknown>>();
	return {
		transcript: session.sessionManager.getSessionFile() ?? null,
		subscribe(listener) {
			return session.subscribe((event) => {
				const translated = translate(event, turn);
				if (translated) listener(translated);
			});
		},
		observe: (listener) => session.subscribe((event) => listener(event as unknown as { type: string; [key: string]: unknown })),
		run: (prompt) => {
			gate?.start();
			return session.prompt(prompt);
		},
		async steer(text) {
			const queued = session.steer(text);
			steering.add(queued);
			try {
				await queued;
			} finally {
				steering.delete(queued);
			}
		},
		async unread() {
			await Promise.allSettled([...steering]);
			return [...session.getSteeringMessages()];
		},
		abort: () => session.abort(),
		lastText: () => session.getLastAssistantText() ?? null,
		structured: () => (structured ? { ...structured } : null),
		usage() {
			const stats = session.getSessionStats();
			return {
				input: stats.tokens.input,
				output: stats.tokens.output,
				cacheRead: stats.tokens.cacheRead,
				cacheWrite: stats.tokens.cacheWrite,
				cost: stats.cost,
			};
		},
		contextUsage() {
			const usage = session.getContextUsage();
			return usage ? { tokens: usage.tokens, window: usage.contextWindow, percent: usage.percent } : null;
		},
		messages: () => childMessages(session.messages),
		dispose: () => {
			gate?.dispose();
			session.dispose();
		},
		diagnostics,
		budget: () => gate?.state() ?? null,
		budgetRoom: (room, children) => gate?.setRoom(room, children),
		beforeTools: (wait) => {
			toolWait.wait = wait;
		},
	};
}
