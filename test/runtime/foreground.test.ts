/**
 * Foreground spawns through a real pi parent session: the child runs in-process with its own
 * prompt, tools and transcript, and its result (with usage) comes back to the parent's tool call.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, fullResult, toolResults } from "./harness.ts";
import { sandboxPlatform } from "../../src/sandbox/platform.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

describe("foreground spawn", () => {
	it("tells the parent's tool call of the child's progress only when what it says changed", async () => {
		const updates: string[] = [];
		parent = await createParent({
			extensionFactories: [
				(pi) => {
					pi.on("tool_execution_update", (event) => {
						const text = (event.partialResult as { content?: { text?: string }[] } | undefined)?.content?.[0]?.text;
						if (event.toolName === "subagent" && text) updates.push(text);
					});
				},
			],
			script: (turn) => {
				if (turn.agent === "explore") {
					if (turn.step < 2) return fauxAssistantMessage([fauxToolCall("ls", { path: "." })], { stopReason: "toolUse" });
					return fauxAssistantMessage("looked");
				}
				if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "look", description: "look around", subagent_type: "explore" })], { stopReason: "toolUse" });
				return fauxAssistantMessage("parent done");
			},
		});
		await parent.session.prompt("go");
		expect(updates.length).toBeGreaterThan(2);
		expect(updates.some((text) => /: tool ls, 1 turn, 1 tool use$/.test(text))).toBe(true);
		expect(updates.filter((text, i) => i > 0 && text === updates[i - 1])).toEqual([]);
	});

	it("runs an explore child and returns its result, transcript and usage", async () => {
		parent = await createParent({
			script: (turn) => {
				if (turn.agent === "explore") {
					if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("read", { path: "notes.txt" })], { stopReason: "toolUse" });
					return fauxAssistantMessage(`The file says: ${turn.lastText.trim()}`);
				}
				if (turn.step === 0)
					return fauxAssistantMessage(
						[fauxToolCall("subagent", { prompt: "Read notes.txt", description: "read the notes", subagent_type: "explore" })],
						{ stopReason: "toolUse" },
					);
				return fauxAssistantMessage("parent done");
			},
		});
		writeFileSync(join(parent.cwd, "notes.txt"), "hello from notes");
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		expect(result?.isError).toBe(false);
		expect(result?.text).toContain("The file says: hello from notes");
		const details = result?.details as { status: string; tools: string[]; capabilityMode: string; transcript: string; turns: number; toolUses: number };
		expect(details.status).toBe("completed");
		// explore gets bash when it runs sandboxed (ADR 0185)
		expect(fullResult(parent, result)?.tools).toEqual(["read", "grep", "find", "ls", ...(sandboxPlatform().available ? ["bash"] : [])]);
		expect(fullResult(parent, result)?.capabilityMode).toBe("read-only");
		expect(details.toolUses).toBe(1);
		expect(details.turns).toBe(2);
		const transcript = fullResult(parent, result)?.transcript ?? "";
		expect(existsSync(transcript)).toBe(true);
		const lines = readFileSync(transcript, "utf8").trim().split("\n").map((line) => JSON.parse(line));
		expect(lines[0].type).toBe("session");
		expect(lines.some((entry) => entry.type === "message" && entry.message.role === "assistant")).toBe(true);
		const childSystem = parent.requests.find((turn) => turn.agent === "explore")?.system ?? "";
		expect(childSystem).toContain('<active_agent name="explore"/>');
		expect(childSystem).not.toContain("subagent");
		// The child's own tool guidance: pi's snippet for each of its tools, also those the parent lacks.
		for (const tool of ["read", "grep", "find", "ls"]) expect(childSystem).toMatch(new RegExp(`\\n- ${tool}: \\S`));
		expect(parent.events.map((e) => e.name)).toEqual(["cadre:created", "cadre:started", "cadre:completed"]);
		// The child's usage is counted in the parent's session totals (the tool result reports it to pi).
		const childUsage = (result?.details as { usage: { input: number; output: number; cacheRead: number; cacheWrite: number } }).usage;
		const total = (u: { input: number; output: number; cacheRead: number; cacheWrite: number }) => u.input + u.output + u.cacheRead + u.cacheWrite;
		expect(total(childUsage)).toBeGreaterThan(0);
		const own = parent.session.messages
			.filter((m) => m.role === "assistant")
			.reduce((sum, m) => sum + total((m as unknown as { usage: { input: number; output: number; cacheRead: number; cacheWrite: number } }).usage), 0);
		expect(total(parent.session.getSessionStats().tokens)).toBe(own + total(childUsage));
	});

	it("a child spawned through the service before the parent's first prompt still gets pi's guidance for its tools", async () => {
		parent = await createParent({ script: () => fauxAssistantMessage("seen") });
		const { done } = await parent.service().spawn({ prompt: "look", description: "look around", subagent_type: "explore" });
		expect((await done).status).toBe("completed");
		const childSystem = parent.requests.find((turn) => turn.agent === "explore")?.system ?? "";
		for (const tool of ["read", "grep", "find", "ls"]) expect(childSystem).toMatch(new RegExp(`\\n- ${tool}: \\S`));
	});
});
