/**
 * Issue 9 item 3 inside pi: what cadre shows the person — `/subagents` output, the completion
 * notification and the tool result text — holds no control sequence from a definition file, a
 * request or a child's output; `details` keeps the exact text.
 */
import { afterEach, describe, expect, it } from "vitest";
import { commandOutput, createParent, fauxAssistantMessage, fauxToolCall, type Parent, fullResult, toolResults, until } from "./harness.ts";

const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/u;
const EVIL = "\x1b]0;owned\x07\x1b[2J\x9b31m\u202e";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

const command = (text: string) => commandOutput(parent, text);

describe("pi: what cadre shows is escaped", () => {
	it("/subagents explain and list, the notification and the tool result", async () => {
		parent = await createParent({
			agentFiles: { [`agents/evil${EVIL.slice(0, 8)}.md`]: `---\ndescription: evil\nmodel: "\\e]0;m\\a"\n---\nBody ${EVIL}\n` },
			script: (turn) => {
				if (turn.agent === "explore") return fauxAssistantMessage(`found ${EVIL}`);
				if (turn.step === 0) {
					return fauxAssistantMessage(
						[
							fauxToolCall("subagent", { prompt: "bg", description: `bg ${EVIL}`, subagent_type: "explore", run_in_background: true }),
							fauxToolCall("subagent", { prompt: "fg", description: `fg ${EVIL}`, subagent_type: "explore" }),
							fauxToolCall("subagent", { prompt: "no", description: "refused", subagent_type: "explore", model: `bad${EVIL}` }),
						],
						{ stopReason: "toolUse" },
					);
				}
				return fauxAssistantMessage("done");
			},
		});
		await parent.session.prompt("go");
		await until(
			() => parent?.session.messages.some((m) => m.role === "custom" && (m as { customType?: string }).customType === "cadre-notification") ?? false,
			"the notification",
		);

		const notification = parent.session.messages.find((m) => m.role === "custom" && (m as { customType?: string }).customType === "cadre-notification");
		const content = String((notification as { content: unknown }).content);
		expect(content).toContain("found \\x1b]0;owned\\x07");
		expect(content).not.toMatch(UNSAFE);

		// By its description, not "fg " anywhere: a random run id can end in "fg" (explore-d37hfg).
		const foreground = toolResults(parent.session, "subagent").find((r) => (r.details as { description?: string } | undefined)?.description?.startsWith("fg "));
		expect(foreground?.text).toContain("\\x9b31m");
		expect(foreground?.text).not.toMatch(UNSAFE);
		expect(fullResult(parent, foreground)?.text).toBe(`found ${EVIL}`);

		const refused = toolResults(parent.session, "subagent").find((r) => r.text.includes("Spawn refused"));
		expect(refused?.text).toContain("bad\\x1b]0;owned\\x07");
		expect(refused?.text).not.toMatch(UNSAFE);

		const list = await command("/subagents");
		expect(list).toContain("bg \\x1b]0;owned\\x07");
		expect(list).not.toMatch(UNSAFE);

		const explained = await command(`/subagents explain evil${EVIL.slice(0, 8)}`);
		expect(explained).toContain("\\x1b]0;m\\x07");
		expect(explained).not.toMatch(UNSAFE);
	});
});
