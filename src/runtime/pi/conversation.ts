/**
 * A child's conversation as plain data for the TUI's conversation viewer (issue 11): the live
 * session's messages, or a finished run's transcript read back through pi's SessionManager.
 * Owned by the pi UI area (src/hosts/pi/ui/).
 */

import { lstatSync } from "node:fs";
import { SessionManager } from "@earendil-works/pi-coding-agent";

/** One message of a child's conversation. Text is exactly what pi holds: the UI makes it safe to show. */
export type ChildMessage =
	| { role: "user"; text: string }
	| { role: "assistant"; text: string; thinking: string; toolCalls: { id: string; name: string; args: unknown }[]; stopReason: string; errorMessage: string | null }
	| { role: "toolResult"; toolCallId: string; toolName: string; text: string; isError: boolean }
	| { role: "custom"; customType: string; text: string };

type Part = { type: string; text?: string; thinking?: string; id?: string; name?: string; arguments?: unknown };

function partsOf(content: unknown): Part[] {
	if (typeof content === "string") return [{ type: "text", text: content }];
	return Array.isArray(content) ? (content as Part[]) : [];
}

function joined(parts: Part[], type: "text" | "thinking"): string {
	return parts
		.filter((part) => part.type === type)
		.map((part) => (type === "text" ? part.text : part.thinking) ?? "")
		.join("");
}

/** pi's agent messages (user, assistant, tool results, custom) as {@link ChildMessage}s; others are left out. */
export function childMessages(messages: readonly unknown[]): ChildMessage[] {
	const out: ChildMessage[] = [];
	for (const raw of messages) {
		const message = raw as { role?: string; content?: unknown; stopReason?: string; errorMessage?: string; toolCallId?: string; toolName?: string; isError?: boolean; customType?: string };
		const parts = partsOf(message.content);
		if (message.role === "user") out.push({ role: "user", text: joined(parts, "text") });
		else if (message.role === "assistant") {
			out.push({
				role: "assistant",
				text: joined(parts, "text"),
				thinking: joined(parts, "thinking"),
				toolCalls: parts.filter((part) => part.type === "toolCall").map((part) => ({ id: part.id ?? "", name: part.name ?? "", args: part.arguments ?? {} })),
				stopReason: message.stopReason ?? "stop",
				errorMessage: message.errorMessage ?? null,
			});
		} else if (message.role === "toolResult") {
			out.push({ role: "toolResult", toolCallId: message.toolCallId ?? "", toolName: message.toolName ?? "", text: joined(parts, "text"), isError: message.isError === true });
		} else if (message.role === "custom") out.push({ role: "custom", customType: message.customType ?? "", text: joined(parts, "text") });
	}
	return out;
}

/** The largest transcript the conversation viewer reads back (64 MiB). */
export const MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024;

/** A finished run's conversation from its transcript: a regular file within the size bound, else empty. */
export function readTranscript(path: string): ChildMessage[] {
	try {
		const stat = lstatSync(path);
		if (!stat.isFile() || stat.size > MAX_TRANSCRIPT_BYTES) return [];
		return childMessages(SessionManager.open(path).buildSessionContext().messages);
	} catch {
		return [];
	}
}
