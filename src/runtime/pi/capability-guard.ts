/**
 * The call-time capability guard and the turn ceiling (`max_turns`): a hand-built extension that
 * runs before every other handler of a child, blocks tools outside its resolved list, and ends
 * the run at the turn limit without a further model request.
 */

import type { Extension, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { StructuredState } from "../contract.ts";
import { type ResultTool, SUBMIT_RESULT_TOOL } from "../structured-result.ts";
import { failedTurn } from "./child-events.ts";
import { submitResultTool } from "./submit-result.ts";

/** Decides whether a child may call a tool: null allows, a string is the refusal reason. */
export type ToolGuard = (toolName: string) => string | null;

/** What an allowed call waits for before it runs (set once the run knows it: the receipt's look at the tree); null: nothing. */
export interface ToolWait {
	wait: ((toolName: string) => Promise<void> | null) | null;
}

const GUARD_PATH = "<cadre:capability-guard>";

/**
 * A hand-built extension holding the `tool_call` guard; it runs before every other handler. With
 * a turn limit, every tool call of the last allowed turn is blocked with `terminate`, so pi makes
 * no further model request (the hard `max_turns` ceiling). With an output schema it also holds
 * the child's `submit_result` tool, which the guard always lets through. A call it lets through
 * waits for `before` first.
 */
export function guardExtension(guard: ToolGuard, turnLimit: number | null, result: { tool: ResultTool; state: StructuredState } | null, before: ToolWait = { wait: null }): Extension {
	let turns = 0;
	const onTurnStart = async (...args: unknown[]) => {
		turns++;
		// A turn past the ceiling (the last turn's calls never reached tool_call, e.g. unknown
		// tools): abort before its model request goes out.
		if (turnLimit !== null && turns > turnLimit) (args[1] as ExtensionContext).abort();
	};
	// A turn whose answer failed (pi retries it, or the run ends) does not count toward the limit.
	const onTurnEnd = async (...args: unknown[]) => {
		if (failedTurn(args[0] as { message?: unknown })) turns--;
	};
	const onToolCall = async (...args: unknown[]) => {
		const event = args[0] as { toolName: string };
		const reason = result && event.toolName === SUBMIT_RESULT_TOOL ? null : guard(event.toolName);
		if (reason !== null) return { block: true, reason };
		if (turnLimit !== null && turns >= turnLimit && event.toolName !== SUBMIT_RESULT_TOOL) {
			return { block: true, reason: `cadre: the turn limit (max_turns ${turnLimit}) is reached; give your final answer.`, terminate: true };
		}
		await before.wait?.(event.toolName);
		return undefined;
	};
	return {
		path: GUARD_PATH,
		resolvedPath: GUARD_PATH,
		hidden: true,
		sourceInfo: { path: GUARD_PATH, source: "cadre", scope: "temporary", origin: "top-level" } as Extension["sourceInfo"],
		handlers: new Map([
			["turn_start", [onTurnStart]],
			["turn_end", [onTurnEnd]],
			["tool_call", [onToolCall]],
		]),
		tools: new Map(result ? [[SUBMIT_RESULT_TOOL, submitResultTool(result.tool, result.state, GUARD_PATH)]] : []),
		messageRenderers: new Map(),
		commands: new Map(),
		flags: new Map(),
		shortcuts: new Map(),
	};
}
