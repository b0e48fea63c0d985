/**
 * Definitions are cached per parent (issue 28) but keyed on the files' and directories' stat: a
 * definition edited in place between two spawns (same path, same inode, same size) is what the
 * second spawn uses, and the `subagent` tool's description follows it.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createParent, fauxAssistantMessage, type Parent } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

const scout = (word: string) => `---\ndescription: Scout ${word}\ntools: [read]\n---\nSay ${word} now.\n`;

describe("definitions edited in place", () => {
	it("the next spawn and the tool description use the edit", async () => {
		const systems: string[] = [];
		let description = "";
		parent = await createParent({
			agentFiles: { "agents/scout.md": scout("AAAA") },
			extensionFactories: [
				(pi) => {
					pi.on("before_agent_start", () => {
						description = pi.getAllTools().find((tool) => tool.name === "subagent")?.description ?? "";
					});
				},
			],
			script: (turn) => {
				if (turn.agent === "scout") systems.push(turn.system);
				return fauxAssistantMessage("done");
			},
		});
		// Past the cache's racy window, so the first load is kept and only the edit can refresh it.
		await new Promise((resolve) => setTimeout(resolve, 300));
		const service = parent.service();
		const first = await service.spawn({ prompt: "go", description: "one", subagent_type: "scout" });
		await first.done;
		expect(systems[0]).toContain("Say AAAA now.");
		// Same path, same size, same inode: only the content (and mtime) changes.
		writeFileSync(join(parent.agentDir, "agents", "scout.md"), scout("BBBB"));
		const second = await service.spawn({ prompt: "go", description: "two", subagent_type: "scout" });
		await second.done;
		expect(systems[1]).toContain("Say BBBB now.");
		expect(systems[1]).not.toContain("AAAA");
		await parent.session.prompt("hi");
		expect(description).toContain("Scout BBBB");
		expect(description).not.toContain("Scout AAAA");
	});

	it("a type added after the last spawn is spawnable at once, and one removed is refused", async () => {
		const systems: string[] = [];
		parent = await createParent({
			agentFiles: { "agents/scout.md": scout("AAAA") },
			script: (turn) => {
				if (turn.agent !== "parent") systems.push(`${turn.agent}: ${turn.system}`);
				return fauxAssistantMessage("done");
			},
		});
		await new Promise((resolve) => setTimeout(resolve, 300));
		const service = parent.service();
		await (await service.spawn({ prompt: "go", description: "one", subagent_type: "scout" })).done;
		writeFileSync(join(parent.agentDir, "agents", "newbie.md"), "---\ndescription: New\ntools: [read]\n---\nSay NEWBIE now.\n");
		const added = await service.spawn({ prompt: "go", description: "two", subagent_type: "newbie" });
		expect((await added.done).status).toBe("completed");
		expect(systems.at(-1)).toContain("Say NEWBIE now.");
		// And an edit that makes the cached plan wrong: the type is gone, the spawn is refused.
		rmSync(join(parent.agentDir, "agents", "scout.md"));
		await expect(service.spawn({ prompt: "go", description: "three", subagent_type: "scout" })).rejects.toThrow(/scout/);
	});
});
