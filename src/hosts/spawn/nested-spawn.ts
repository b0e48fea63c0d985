/**
 * A run that spawns (issue 21): its session stands in for the parent of its children — their
 * parent facts are its cwd (its worktree), model, thinking level and tools — and its delegation
 * tools, bound to it: the tree's one registry, its `spawnableTypes` in the `subagent`
 * description, its slot given back while it waits (ADR 0173). The resolver caps what its children
 * get (src/resolve/delegation.ts); nothing here narrows by itself.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { normalizeThinking } from "../../core/values.ts";
import { findGitRoot } from "../../files/discovery.ts";
import type { LoadResult } from "../../files/types.ts";
import { spawnableTypes } from "../../resolve/delegation.ts";
import type { ChildMessage } from "../../runtime/pi/conversation.ts";
import type { RunRecord, RunRegistry } from "../../runtime/runs.ts";
import { subagentDescription } from "../pi/tools.ts";
import { delegationTools, inScope, type StartRun } from "./delegation-tools.ts";
import type { ParentSnapshot } from "./plan.ts";

/** The user and assistant text of a run's conversation, last `maxChars` (a nested `inherit_context`). */
function conversationText(messages: ChildMessage[] | null, maxChars = 8000): string | null {
	const parts: string[] = [];
	for (const message of messages ?? []) {
		if (message.role !== "user" && message.role !== "assistant") continue;
		if (message.text.trim()) parts.push(`${message.role}: ${message.text.trim()}`);
	}
	const text = parts.join("\n\n");
	return text ? text.slice(-maxChars) : null;
}

/**
 * The parent snapshot of a spawn by `run`, working in `cwd`: the root's prompt parts and tool
 * guidance, the run's own facts.
 */
export function nestedSnapshot(root: ParentSnapshot, run: RunRecord, cwd: string, conversation: (id: string) => ChildMessage[] | null): ParentSnapshot {
	const thinking = normalizeThinking((run.trace.reasoningEffort?.applied as string | undefined) ?? run.config.reasoningEffort ?? root.facts.thinking) ?? root.facts.thinking;
	return {
		...root,
		cwd,
		facts: {
			...root.facts,
			cwd,
			model: run.config.model ?? root.facts.model,
			thinking,
			activeTools: [...run.config.tools],
			repoRoot: findGitRoot(cwd),
		},
		conversation: () => conversationText(conversation(run.id)),
	};
}

/** Options for {@link runDelegationTools}. */
export interface RunDelegationOptions {
	run: RunRecord;
	/** Where the run works (its worktree, when it has one). */
	cwd: string;
	registry: RunRegistry;
	/** The files as last loaded (the description lists what the run may spawn among them). */
	loaded(): LoadResult | null;
	/** Starts a run spawned by `run` (the spawner's `start` with `spawner: {run, cwd}`). */
	start: StartRun;
}

/** The three delegation tools of a run whose config allows it to delegate. */
export function runDelegationTools(options: RunDelegationOptions): ToolDefinition[] {
	const { run, registry } = options;
	const loaded = options.loaded();
	const only = loaded ? spawnableTypes(loaded, run.config.delegation) : [];
	const scope = {
		registry,
		caller: run.id,
		start: (request: Parameters<StartRun>[0], startOptions: Parameters<StartRun>[1]) => {
			// A resume keeps the stored config: a run may resume only its own subtree's runs, or it
			// could continue a run with more than it has itself.
			const resumed = typeof request.resume === "string" ? registry.get(request.resume) : undefined;
			if (typeof request.resume === "string" && !(resumed && inScope({ registry, caller: run.id }, resumed))) {
				return Promise.reject(new Error(`Spawn refused (resume-refused): run ${request.resume} is not one of the runs "${run.type}" started; a sub-agent resumes only its own runs.`));
			}
			return options.start(request, startOptions);
		},
		maxResultChars: () => options.loaded()?.settings.maxResultChars ?? 20000,
	};
	return delegationTools(subagentDescription(loaded, only), () => scope);
}
