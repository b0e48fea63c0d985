/**
 * The pi tool fails closed on a file error (issue 19, ADR 0100): a `subagent` call whose definition,
 * role or persona file has an error-severity diagnostic is refused `file-invalid` inside a real pi
 * session, and no child runs.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, toolResults } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

async function spawnOnce(agentFiles: Record<string, string>, request: Record<string, unknown>) {
	parent = await createParent({
		agentFiles,
		script: (turn) => {
			if (turn.agent !== "parent") return fauxAssistantMessage("the child ran");
			if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "look", description: "look", ...request } as never)], { stopReason: "toolUse" });
			return fauxAssistantMessage("done");
		},
	});
	await parent.session.prompt("go");
	const [result] = toolResults(parent.session, "subagent");
	return { text: result?.text ?? "", children: parent.requests.filter((turn) => turn.agent !== "parent") };
}

describe("the subagent tool refuses a spawn that would read a file with an error", () => {
	it("a definition with `capabilty: read-only`", async () => {
		const { text, children } = await spawnOnce({ "agents/scout.md": "---\ndescription: Scout\ncapabilty: read-only\n---\nScout.\n" }, { subagent_type: "scout" });
		expect(text).toContain("Spawn refused (file-invalid)");
		expect(text).toContain("agents/scout.md:3:1");
		expect(children).toEqual([]);
	});

	it("the type's role and the spawn's persona with a misspelt key", async () => {
		const role = await spawnOnce({ "roles/explore.md": "---\nmodle: faux/child-model\n---\nBe brief.\n" }, { subagent_type: "explore" });
		expect(role.text).toContain("Spawn refused (file-invalid)");
		expect(role.text).toContain("roles/explore.md:2:1");
		expect(role.children).toEqual([]);
		parent?.dispose();
		const persona = await spawnOnce({ "personas/terse.md": "---\ndescription: Terse\nthinkng: low\n---\nBe terse.\n" }, { subagent_type: "explore", persona: "terse" });
		expect(persona.text).toContain("Spawn refused (file-invalid)");
		expect(persona.text).toContain("personas/terse.md:3:1");
		expect(persona.children).toEqual([]);
	});
});
