/**
 * The three delegation tools — `subagent`, `get_subagent_result`, `steer_subagent` — as tool
 * definitions over a {@link DelegationScope}: the root session registers them with pi
 * (hosts/pi/session-state.ts, query-tools.ts), a delegating child gets the same definitions as its
 * session's custom tools (spawner.ts, issue 21). One registry serves the whole tree; a scope names
 * the run that calls (null: the root session), sees only its own subtree, and gives its limiter
 * slot back while it waits on its children (ADR 0173).
 */
import type { ExtensionContext, ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { SpawnRequest } from "../../resolve/types.ts";
import { counted, formatResult, notificationText, progressText, resultDetails, type RunResult, runResult, totalTokens } from "../../runtime/result.ts";
import type { ProgressListener, RunRecord, RunRegistry } from "../../runtime/runs.ts";
import { RESULT_DESCRIPTION, resultParameters, STEER_DESCRIPTION, steerParameters, subagentParameters } from "../pi/tools.ts";
import { RESULT_TOOL, STEER_TOOL, SUBAGENT_TOOL } from "./tool-names.ts";

// biome-ignore lint/suspicious/noExplicitAny: pi's own alias for a tool of any schema (customTools takes these)
type AnyTool = ToolDefinition<any, any>;

/** How a call of the tools starts a run (the spawner's `start`, with the caller's options). */
export type StartRun = (
	request: SpawnRequest,
	options: { signal?: AbortSignal; onProgress?: ProgressListener },
) => Promise<{ run: RunRecord; done: Promise<RunRecord> }>;

/** What the tools of one caller (the root session or a delegating run) work on. */
export interface DelegationScope {
	/** The tree's one registry. */
	registry: RunRegistry;
	/** The run that calls the tools, or null for the root session. */
	caller: string | null;
	start: StartRun;
	/** Settings `maxResultChars`. */
	maxResultChars(): number;
	/** A foreground run reported progress for the tool call `toolCallId` (the TUI links the two). */
	onProgress?(toolCallId: string, run: RunRecord): void;
}

/** The scope for a call, given pi's context of the calling session. */
export type ScopeOf = (ctx: ExtensionContext) => DelegationScope;

/** A run's usage in pi's `Usage` shape (the foreground tool result reports it to pi). */
export function toPiUsage(usage: RunRecord["usage"]) {
	return {
		input: usage.input,
		output: usage.output,
		cacheRead: usage.cacheRead,
		cacheWrite: usage.cacheWrite,
		totalTokens: totalTokens(usage),
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: usage.cost },
	};
}

/** Whether `run` is in the caller's subtree (every run is, for the root session). */
export function inScope(scope: Pick<DelegationScope, "registry" | "caller">, run: RunRecord): boolean {
	if (scope.caller === null) return true;
	let up = run.parentId;
	for (let step = 0; up && step < 64; step++) {
		if (up === scope.caller) return true;
		up = scope.registry.get(up)?.parentId ?? null;
	}
	return false;
}

/** The run `id` as the caller may see it, or undefined. */
function visible(scope: DelegationScope, id: string): RunRecord | undefined {
	const run = scope.registry.get(id);
	return run && inScope(scope, run) ? run : undefined;
}

/** The note a nested background run's end leaves in the session of the run that spawned it (ADR 0175). */
export function nestedNotification(run: RunRecord): string {
	return `1 background sub-agent finished: ${run.id} (${run.state}).\n\n${notificationText(run)}`;
}

/** `subagent` with `description` (the enabled types, or a delegating child's `spawnableTypes`). */
export function spawnToolDefinition(description: string, scopeOf: ScopeOf): AnyTool {
	return {
		name: SUBAGENT_TOOL,
		label: "Sub-agent",
		description,
		parameters: subagentParameters,
		async execute(toolCallId: string, params: unknown, signal: AbortSignal | undefined, onUpdate: ((update: { content: { type: "text"; text: string }[]; details: undefined }) => void) | undefined, ctx: ExtensionContext) {
			const scope = scopeOf(ctx);
			// The tool call's progress line; pi is told only when it says something new (every child event reports).
			let said = "";
			const { run, done } = await scope.start(params as SpawnRequest, {
				signal,
				onProgress: (progress) => {
					scope.onProgress?.(toolCallId, progress);
					const text = `${progress.id}: ${progress.activity}, ${counted(progress.turns, "turn")}, ${counted(progress.toolUses, "tool use")}`;
					if (text === said) return;
					said = text;
					onUpdate?.({ content: [{ type: "text", text }], details: undefined });
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
					details: resultDetails(runResult(run, scope.maxResultChars())),
				};
			}
			// A run waiting on its child gives its slot back meanwhile (ADR 0173).
			const finished = await scope.registry.whileWaiting(scope.caller, () => done);
			finished.fetched = true;
			const result = runResult(finished, scope.maxResultChars());
			return {
				content: [{ type: "text", text: formatResult(result) }],
				details: resultDetails(result),
				usage: toPiUsage(finished.treeUsage ?? finished.usage),
				isError: finished.state !== "completed",
			};
		},
	};
}

/** `get_subagent_result`: a run's result, its progress, or (with `wait`) its end. */
export function resultToolDefinition(scopeOf: ScopeOf): AnyTool {
	return {
		name: RESULT_TOOL,
		label: "Sub-agent result",
		description: RESULT_DESCRIPTION,
		parameters: resultParameters,
		async execute(_toolCallId: string, params: { agent_id: string | string[]; wait?: boolean; timeout?: number; verbose?: boolean }, signal: AbortSignal | undefined, _onUpdate: unknown, ctx: ExtensionContext) {
			const scope = scopeOf(ctx);
			const { registry } = scope;
			const ids = Array.isArray(params.agent_id) ? params.agent_id : [params.agent_id];
			// `timeout: 0` polls (answers at once); no timeout waits until the end.
			const timeoutMs = typeof params.timeout === "number" && params.timeout >= 0 ? params.timeout * 1000 : null;
			const known = () => registry.list().filter((run) => inScope(scope, run)).map((run) => run.id).join(", ") || "none";
			const answer = async (id: string): Promise<{ text: string; result: RunResult | null }> => {
				const run = visible(scope, id);
				if (!run) return { text: `No sub-agent run with id ${id}. Known: ${known()}.`, result: null };
				const finished = params.wait ? await registry.wait(id, timeoutMs, signal) : run.endedAt !== null ? run : null;
				if (!finished) return { text: progressText(run), result: runResult(run, scope.maxResultChars()) };
				finished.fetched = true;
				const result = runResult(finished, scope.maxResultChars());
				return { text: formatResult(result, { verbose: params.verbose === true }), result };
			};
			const waits = ids.some((id) => params.wait && visible(scope, id)?.endedAt === null);
			const all = () => Promise.all(ids.map(answer));
			// A waiting call gives the caller's slot back while it waits (ADR 0173).
			const answers = waits ? await registry.whileWaiting(scope.caller, all) : await all();
			return {
				content: [{ type: "text", text: answers.map((a) => a.text).join("\n\n---\n\n") }],
				details: answers.map((a) => a.result).filter((result): result is RunResult => result !== null).map(resultDetails),
			};
		},
	};
}

/** `steer_subagent`: a message to a queued or running run of the caller's subtree. */
export function steerToolDefinition(scopeOf: ScopeOf): AnyTool {
	return {
		name: STEER_TOOL,
		label: "Steer sub-agent",
		description: STEER_DESCRIPTION,
		parameters: steerParameters,
		async execute(_toolCallId: string, params: { agent_id: string; message: string }, _signal: unknown, _onUpdate: unknown, ctx: ExtensionContext) {
			const scope = scopeOf(ctx);
			// The root session sees every run (the registry says what is unknown); a run only its subtree.
			if (scope.caller !== null && !visible(scope, params.agent_id)) throw new Error(`No sub-agent run with id ${params.agent_id} among the runs you started.`);
			const run = await scope.registry.steer(params.agent_id, params.message);
			return { content: [{ type: "text", text: `Message ${run.state === "queued" ? "buffered for" : "sent to"} ${run.id}.` }], details: undefined };
		},
	};
}

/** The three tools for one scope, `subagent` described by `description`. */
export function delegationTools(description: string, scopeOf: ScopeOf): AnyTool[] {
	return [spawnToolDefinition(description, scopeOf), resultToolDefinition(scopeOf), steerToolDefinition(scopeOf)];
}
