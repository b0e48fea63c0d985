/**
 * pi's session events translated into the few a run observes ({@link ChildEvent}): turns, tool
 * calls and assistant answers, with a failed (retried) turn not counted.
 */

import type { AgentSessionEvent } from "@earendil-works/pi-coding-agent";

/** The events a run observes, translated from pi's session events. */
export type ChildEvent =
	| { type: "turn_start"; turn: number }
	| { type: "turn_end"; turn: number; toolCalls: number }
	| { type: "tool_start"; toolName: string; args: unknown; toolCallId?: string }
	| { type: "tool_end"; toolName: string; isError: boolean; toolCallId?: string; durationMs?: number; exitCode?: number | null }
	| { type: "assistant"; text: string; stopReason: string; errorMessage: string | null };

/** Whether a turn ended with a failed model answer (`stopReason: "error"`): pi retries it or the run fails. */
export function failedTurn(event: { message?: unknown }): boolean {
	const message = event.message as { role?: string; stopReason?: string } | undefined;
	return message?.role === "assistant" && message.stopReason === "error";
}

export function translate(event: AgentSessionEvent, turn: { n: number }): ChildEvent | null {
	switch (event.type) {
		case "turn_start":
			turn.n++;
			return { type: "turn_start", turn: turn.n };
		case "turn_end": {
			const ended: ChildEvent = { type: "turn_end", turn: turn.n, toolCalls: event.toolResults.length };
			if (failedTurn(event)) turn.n--;
			return ended;
		}
		case "tool_execution_start":
			return { type: "tool_start", toolName: event.toolName, args: event.args, toolCallId: event.toolCallId };
		case "tool_execution_end":
			// the receipt's exit code: bash's structuredContent (issue 23)
			return {
				type: "tool_end",
				toolName: event.toolName,
				isError: event.isError,
				toolCallId: event.toolCallId,
				durationMs: event.durationMs,
				exitCode: (event.result as { structuredContent?: { exit_code?: number } } | undefined)?.structuredContent?.exit_code ?? null,
			};
		case "message_end": {
			const message = event.message as { role?: string; content?: unknown; stopReason?: string; errorMessage?: string };
			if (message.role !== "assistant") return null;
			const parts = Array.isArray(message.content) ? (message.content as { type: string; text?: string }[]) : [];
			const text = parts
				.filter((part) => part.type === "text")
				.map((part) => part.text ?? "")
				.join("");
			return { type: "assistant", text, stopReason: message.stopReason ?? "stop", errorMessage: message.errorMessage ?? null };
		}
		default:
			return null;
	}
}
