/**
 * A child's system prompt is kept for the next spawn of the same inputs (issue 28,
 * src/hosts/spawn/prompt-memo.ts): spawns through the tool in parent turns whose prompt options
 * are equal share one text, and what changes between two spawns — the parent's prompt options,
 * or a definition edited in place — is in the next child's prompt.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

const scout = (word: string) => `---\ndescription: Scout\ntools: [read]\n---\nSay ${word} now.\n`;

describe("kept child prompts", () => {
	it("follow the parent's prompt options and an edited definition, and are shared while neither changed", async () => {
		const systems: string[] = [];
		let addendum = "ADDENDUM-ONE";
		parent = await createParent({
			agentFiles: { "agents/scout.md": scout("AAAA") },
			extensionFactories: [
				(pi) => {
					// Another extension's words in the parent's prompt: pi's options of the turn carry them.
					pi.on("before_agent_start", (event) => {
						event.systemPromptOptions.appendSystemPrompt = addendum;
					});
				},
			],
			script: (turn) => {
				if (turn.agent === "scout") {
					systems.push(turn.system);
					return fauxAssistantMessage("done");
				}
				if (turn.last?.role === "toolResult") return fauxAssistantMessage("ok");
				return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "go", description: "look", subagent_type: "scout" })], { stopReason: "toolUse" });
			},
		});
		// Each turn past the files' racy window (the first spawn makes cadre's folders in the agent
		// dir): the files, and so the resolution, are kept, and only an edit refreshes them.
		const turn = async (text: string) => {
			await new Promise((resolve) => setTimeout(resolve, 150));
			await parent?.session.prompt(text);
		};
		await turn("one");
		await turn("two");
		expect(systems).toHaveLength(2);
		expect(systems[0]).toContain("ADDENDUM-ONE");
		expect(systems[0]).toContain("Say AAAA now.");
		expect(systems[1]).toBe(systems[0]);

		addendum = "ADDENDUM-TWO";
		await turn("three");
		expect(systems[2]).toContain("ADDENDUM-TWO");
		expect(systems[2]).not.toContain("ADDENDUM-ONE");

		// Same path, same size: only the content (and mtime) changes.
		writeFileSync(join(parent.agentDir, "agents", "scout.md"), scout("BBBB"));
		await turn("four");
		expect(systems[3]).toContain("Say BBBB now.");
		expect(systems[3]).not.toContain("AAAA");
		expect(systems[3]).toContain("ADDENDUM-TWO");
	});
});
