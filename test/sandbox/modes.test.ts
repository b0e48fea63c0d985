/**
 * The sandbox's modes with real children (issue 27, ADR 0150): the built-in `explore` child runs `git log`
 * and `rg` through bash inside the sandbox and cannot create a file; without bubblewrap on PATH,
 * `sandbox: required` refuses the spawn with the install hint and `auto` warns and drops bash from
 * a read-only child.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sandboxPlatform } from "../../src/sandbox/platform.ts";
import { createParent, fauxAssistantMessage, fauxToolCall, fullResult, type Parent, toolResults } from "../runtime/harness.ts";

let parent: Parent | null = null;
const path = process.env.PATH;
afterEach(() => {
	parent?.dispose();
	parent = null;
	process.env.PATH = path;
});

function repo(): string {
	const dir = mkdtempSync(join(process.env.TMPDIR as string, "proj-"));
	writeFileSync(join(dir, "notes.txt"), "needle in the haystack\n");
	execFileSync("sh", ["-c", "git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm 'first commit'"], { cwd: dir });
	return dir;
}

const spawn = (type: string) => fauxAssistantMessage([fauxToolCall("subagent", { prompt: "look", description: "look", subagent_type: type })], { stopReason: "toolUse" });

describe.skipIf(!sandboxPlatform().available)("an explore child in the sandbox", () => {
	it("runs git log and rg through bash and cannot create a file", async () => {
		const cwd = repo();
		let seen = "";
		let tools = "";
		parent = await createParent({
			cwd,
			// The built-in explore, unchanged: read-only, and bash because it runs sandboxed (ADR 0185).
			script: (turn) => {
				if (turn.agent === "explore") {
					if (turn.step === 0) {
						tools = turn.system;
						return fauxAssistantMessage(
							[fauxToolCall("bash", { command: "git log --oneline && rg needle" }, { id: "a" }), fauxToolCall("bash", { command: "touch created.txt; echo x > /tmp/explore-made.txt; ls created.txt" }, { id: "b" })],
							{ stopReason: "toolUse" },
						);
					}
					seen = turn.messages.filter((m) => m.role === "toolResult").map((m) => JSON.stringify(m.content)).join("\n");
					return fauxAssistantMessage("done");
				}
				return turn.step === 0 ? spawn("explore") : fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		expect(tools).toContain("bash");
		expect(seen).toContain("first commit");
		expect(seen).toContain("needle in the haystack");
		expect(seen).toContain("Read-only file system");
		expect(existsSync(join(cwd, "created.txt"))).toBe(false);
		expect(existsSync("/tmp/explore-made.txt")).toBe(false);
		const [result] = toolResults(parent.session, "subagent");
		// Sandboxed as its mode asked and nothing blocked: the text leaves it to the record (ADR 0193).
		expect(result?.text).not.toContain("Sandbox:");
		expect(fullResult(parent, result)?.sandboxed).toBe(true);
	}, 60_000);
});

describe("without bubblewrap on PATH", () => {
	it("refuses sandbox: required with the install hint", async () => {
		process.env.PATH = "/nonexistent";
		parent = await createParent({
			agentFiles: { "agents/strict.md": "---\ndescription: strict\ntools: read\nsandbox: required\n---\nBe strict.\n" },
			script: (turn) => (turn.step === 0 ? spawn("strict") : fauxAssistantMessage("ok")),
		});
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		expect(result?.text).toContain("sandbox-unavailable");
		expect(result?.text).toContain("apt-get install -y bubblewrap socat ripgrep");
		expect(parent.requests.some((turn) => turn.agent === "strict")).toBe(false);
	}, 30_000);

	it("warns under auto and drops bash from a read-only child", async () => {
		process.env.PATH = "/nonexistent";
		let system = "";
		parent = await createParent({
			agentFiles: { "agents/explore.md": "---\ntools: read, grep, find, ls, bash\n---\n" },
			script: (turn) => {
				if (turn.agent === "explore") {
					system = turn.system;
					return fauxAssistantMessage("done");
				}
				return turn.step === 0 ? spawn("explore") : fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		expect(result?.text).toContain("sandbox-unavailable");
		expect(result?.text).toContain("Sandbox: not sandboxed");
		expect(fullResult(parent, result)?.tools).not.toContain("bash");
		expect(system).not.toContain("- bash:");
	}, 30_000);
});
