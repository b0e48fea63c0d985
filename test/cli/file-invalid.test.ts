/**
 * A file with an error never runs (issue 19, ADR 0100): a definition, role, persona or settings
 * file with an error-severity diagnostic refuses every spawn that would read it — `file-invalid`,
 * naming file:line:col of each error and the fix — in `explain` (in-process) and `cadre run` (the
 * real bin against the chat stub). Warnings never refuse; an error in a file the spawn does not
 * read does not refuse it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cadre as cadreRun, runWorld } from "../support/cadre-run.ts";
import { type ChatServer, startChatServer } from "../support/chat-server.ts";
import { cadreInTree, cliTree, testModels } from "../support/cli.ts";

const tree = (files: Record<string, string>) => cliTree("file-invalid-", testModels(), files);
const explain = async (files: Record<string, string>, args: string[]) => {
	const run = await cadreInTree(tree(files), ["explain", ...args, "--parent-model", "test/parent-model", "--json"]);
	return { ...run, json: JSON.parse(run.out) as { refused: { code: string; message: string } | null } };
};

const TYPO = "---\ndescription: Reads only\ncapabilty: read-only\n---\nLook around.\n";

describe("cadre explain refuses a spawn that would read a file with an error", () => {
	it("a definition with a misspelt capability key: file-invalid at the key, with the fix", async () => {
		const { code, json } = await explain({ "project/.pi/agents/scout.md": TYPO }, ["scout"]);
		expect(code).toBe(1);
		expect(json.refused?.code).toBe("file-invalid");
		expect(json.refused?.message).toContain(".pi/agents/scout.md:3:1 error unknown-key");
		expect(json.refused?.message).toContain("capability");
	});

	it("a real file's `capabilities: read` is refused too, and the human table says so", async () => {
		const files = { "project/.pi/agents/scout.md": "---\ndescription: Reads\ncapabilities: read\n---\nLook.\n" };
		const root = tree(files);
		const human = await cadreInTree(root, ["explain", "scout", "--parent-model", "test/parent-model"]);
		expect(human.code).toBe(1);
		expect(human.out + human.err).toContain("file-invalid");
		expect(human.out + human.err).toContain(".pi/agents/scout.md:3:1");
	});

	it("the type's role with a misspelt key refuses the type, not another type", async () => {
		const files = { "project/.pi/roles/explore.md": "---\nmodle: test/model-a\n---\nBe brief.\n" };
		const refused = await explain(files, ["explore"]);
		expect(refused.json.refused?.code).toBe("file-invalid");
		expect(refused.json.refused?.message).toContain(".pi/roles/explore.md:2:1");
		const other = await explain(files, ["plan"]);
		expect(other.json.refused).toBeNull();
	});

	it("a persona with a misspelt key refuses the spawns that use it, named by the request or the definition", async () => {
		const files = {
			"project/.pi/personas/reviewer.md": "---\ndescription: Reviews\nthinkng: high\n---\nReview.\n",
			"project/.pi/agents/checker.md": "---\ndescription: Checks\npersona: reviewer\n---\nCheck.\n",
		};
		const byRequest = await explain(files, ["explore", "--request", '{"persona": "reviewer"}']);
		expect(byRequest.json.refused?.code).toBe("file-invalid");
		expect(byRequest.json.refused?.message).toContain(".pi/personas/reviewer.md:3:1");
		const byDefinition = await explain(files, ["checker"]);
		expect(byDefinition.json.refused?.code).toBe("file-invalid");
		// A spawn that does not use the persona runs.
		expect((await explain(files, ["explore"])).json.refused).toBeNull();
	});

	it("a definition skipped whole for a syntax error does not fall back to the lower entry of its name", async () => {
		const files = { "project/.pi/agents/explore.md": "---\ndescription: [unclosed\n---\nExplore.\n" };
		const { json } = await explain(files, ["explore"]);
		expect(json.refused?.code).toBe("file-invalid");
		expect(json.refused?.message).toContain(".pi/agents/explore.md:");
	});

	it("a settings file with an error refuses every spawn", async () => {
		const files = { "project/.pi/subagents.json": '{ "maxConcurent": 2 }\n' };
		const { json } = await explain(files, ["explore"]);
		expect(json.refused?.code).toBe("file-invalid");
		expect(json.refused?.message).toContain(".pi/subagents.json:1:3");
	});

	it("warnings never refuse", async () => {
		const files = { "project/.pi/agents/scout.md": "---\ndescription: Scout\ntools: read, Glob\nprompt_mode: replace\n---\nScout.\n" };
		const { code, json } = await explain(files, ["scout"]);
		expect(json.refused).toBeNull();
		expect(code).toBe(0);
	});
});

describe("cadre run refuses it before a model is asked", () => {
	let server: ChatServer;
	beforeAll(async () => {
		server = await startChatServer(() => ({ text: "must not run" }));
	});
	afterAll(async () => {
		await server.close();
	});

	it("a definition with `capabilty: read-only` exits non-zero with file-invalid on stderr and no request", async () => {
		const world = runWorld("run-file-invalid-", server.baseUrl, { files: { "project/.pi/agents/scout.md": TYPO } });
		const before = server.requests.length;
		const run = await cadreRun(world, ["run", "scout", "look around"]);
		expect(run.code).not.toBe(0);
		expect(run.stderr).toContain("file-invalid");
		expect(run.stderr).toContain(".pi/agents/scout.md:3:1");
		expect(run.stdout).toBe("");
		expect(server.requests.length).toBe(before);
	});
});
