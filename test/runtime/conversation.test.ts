/**
 * A child's conversation as plain data for the TUI's viewer (src/runtime/pi/conversation.ts): pi's messages
 * translated (text, thinking, tool calls with arguments, tool results, custom messages), and a
 * transcript read back only when it is a regular file within the size bound.
 */
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { childMessages, readTranscript } from "../../src/runtime/pi/conversation.ts";

describe("child conversations", () => {
	it("translates pi's messages and leaves out what the viewer does not show", () => {
		const messages = childMessages([
			{ role: "user", content: "task delta" },
			{
				role: "assistant",
				content: [
					{ type: "thinking", thinking: "look first" },
					{ type: "text", text: "Reading." },
					{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a.ts" } },
				],
				stopReason: "toolUse",
			},
			{ role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "one\ntwo" }], isError: false },
			{ role: "custom", customType: "note", content: "hello" },
			{ role: "branchSummary", summary: "x" },
		]);
		expect(messages).toEqual([
			{ role: "user", text: "task delta" },
			{ role: "assistant", text: "Reading.", thinking: "look first", toolCalls: [{ id: "c1", name: "read", args: { path: "a.ts" } }], stopReason: "toolUse", errorMessage: null },
			{ role: "toolResult", toolCallId: "c1", toolName: "read", text: "one\ntwo", isError: false },
			{ role: "custom", customType: "note", text: "hello" },
		]);
	});

	it("reads a transcript back, but none that is missing, a directory or a symlink (even to a real one)", () => {
		const dir = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "transcript-"));
		const session = SessionManager.create(dir, dir);
		session.appendMessage({ role: "user", content: "task delta", timestamp: 1 });
		session.appendMessage({
			role: "assistant",
			content: [{ type: "text", text: "done" }],
			stopReason: "stop",
			api: "openai-completions",
			provider: "faux",
			model: "m",
			usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
			timestamp: 2,
		});
		const real = session.getSessionFile() as string;
		expect(readTranscript(real)).toEqual([
			{ role: "user", text: "task delta" },
			{ role: "assistant", text: "done", thinking: "", toolCalls: [], stopReason: "stop", errorMessage: null },
		]);
		mkdirSync(join(dir, "folder.jsonl"));
		symlinkSync(real, join(dir, "link.jsonl"));
		for (const name of ["missing.jsonl", "folder.jsonl", "link.jsonl"]) expect(readTranscript(join(dir, name))).toEqual([]);
	});
});
