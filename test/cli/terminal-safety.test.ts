/**
 * Issue 9 item 3: a repository's file names, keys and bodies never reach the terminal as control
 * sequences through `list`, `check`, `explain`, `prompt` or `worktrees` — coloured or not — and
 * `--json` keeps the exact text. Examples first, then a property over arbitrary hostile files
 * (fast-check): no output line holds ESC, C1 or another control character except cadre's own styles.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stripOwnStyles } from "../../src/core/terminal-text.ts";
import type { CliIo } from "../../src/hosts/cli/io.ts";
import { main } from "../../src/hosts/cli/main.ts";
import { createWorktree } from "../../src/isolation/worktree.ts";
import { finishWorktree } from "../../src/isolation/worktree-finish.ts";
import { cadreInTree, cliTree } from "../support/cli.ts";
import { makeRepo, noFallback, writeAt } from "../isolation/support/repo.ts";

const MODELS = {
	providers: {
		test: { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "none", models: [{ id: "parent-model", reasoning: true }] },
	},
};

/** What a terminal could act on: C0 but newline and tab, DEL, C1, bidi controls, line separators. */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/u;

const tree = (files: Record<string, string>) => cliTree("tty-", MODELS, files);

/** `cadre <args>` in-process, coloured (a terminal, no NO_COLOR) or with NO_COLOR. */
const cadre = (root: string, args: string[], color: boolean) => cadreInTree(root, args, { isTty: color, env: { NO_COLOR: color ? undefined : "1" } });

/** Both streams with cadre's own styles removed: nothing else may act on the terminal. */
function expectShownOnly(run: { out: string; err: string }): void {
	for (const text of [run.out, run.err]) {
		const bare = stripOwnStyles(text);
		const bad = [...bare].find((char) => UNSAFE.test(char));
		expect(bad === undefined ? "" : `U+${(bad.codePointAt(0) as number).toString(16)} in ${JSON.stringify(bare)}`).toBe("");
	}
}

const EVIL_NAME = "red\x1b[31m\x1b]0;pwned\x07";
const EVIL_FILES = {
	[`project/.pi/agents/${EVIL_NAME}.md`]: "---\ndescription: x\n---\nbody\n",
	"project/.pi/agents/keys.md": `---\ndescription: "clear \\e[2J here"\n"title\\e]0;owned\\a": 1\nmodel: "\\e]8;;http://evil\\e\\\\link"\n---\nBody \x1b[2J \x9b31m \u202eevil\n`,
	"project/.pi/agents/broken.md": "---\nmodel: [\x1b[2J\n---\n",
	// A file with no error: its prompt is shown (keys.md, with an unknown key, is refused file-invalid).
	"project/.pi/agents/body.md": `---\ndescription: "clear \\e[2J here"\n---\nBody \x1b[2J \x9b31m \u202eevil\n`,
};
const PARENT = ["--parent-model", "test/parent-model"];

describe("human output shows control characters escaped", () => {
	for (const color of [false, true]) {
		const mode = color ? "coloured" : "NO_COLOR";

		it(`list (${mode})`, async () => {
			const run = await cadre(tree(EVIL_FILES), ["list"], color);
			expect(run.out).toContain("red\\x1b[31m\\x1b]0;pwned\\x07");
			expectShownOnly(run);
		});

		it(`check (${mode})`, async () => {
			const run = await cadre(tree(EVIL_FILES), ["check"], color);
			expect(run.out).toContain("title\\x1b]0;owned\\x07");
			expectShownOnly(run);
			if (color) expect(run.out).toContain("\x1b[31merror\x1b[39m");
		});

		it(`explain (${mode})`, async () => {
			const root = tree(EVIL_FILES);
			for (const type of ["keys", EVIL_NAME]) {
				const run = await cadre(root, ["explain", type, ...PARENT], color);
				expectShownOnly(run);
			}
			const keys = await cadre(root, ["explain", "keys", ...PARENT], color);
			expect(keys.out).toContain("\\x1b]8;;http://evil");
		});

		it(`prompt (${mode})`, async () => {
			const root = tree({ ...EVIL_FILES, "project/AGENTS.md": "Context \x1b]0;t\x07 here\r\n" });
			const refused = await cadre(root, ["prompt", "keys", ...PARENT], color);
			expect(refused.out + refused.err).toContain("file-invalid");
			expectShownOnly(refused);
			const run = await cadre(root, ["prompt", "body", ...PARENT], color);
			expect(run.out).toContain("Body \\x1b[2J \\x9b31m \\u202eevil");
			expect(run.out).toContain("Context \\x1b]0;t\\x07 here\n");
			expectShownOnly(run);
			const parentPrompt = join(root, "parent.txt");
			writeFileSync(parentPrompt, "You are pi \x1b[2J.\n");
			expectShownOnly(await cadre(root, ["prompt", "body", ...PARENT, "--parent-prompt", parentPrompt], color));
		});
	}

	it("usage errors show the argument escaped", async () => {
		const root = tree({});
		const run = await cadre(root, ["list", "--cwd", "no\x1b]0;such\x07dir"], false);
		expect(run.code).toBe(2);
		expect(run.err).toContain("no\\x1b]0;such\\x07dir");
		expectShownOnly(run);
		expectShownOnly(await cadre(root, ["list", "--bogus\x1b[2J"], false));
	});

	it("--json keeps the exact text (JSON escapes it)", async () => {
		const run = await cadre(tree(EVIL_FILES), ["list", "--json"], true);
		expect(run.out).not.toContain("\x1b");
		const names = (JSON.parse(run.out) as { entries: { name: string }[] }).entries.map((e) => e.name);
		expect(names).toContain(EVIL_NAME);
	});

	it("worktrees list shows a run's commit subject escaped", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const outcome = await createWorktree({ runId: "evil", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback });
		if (outcome.kind !== "worktree") throw new Error(JSON.stringify(outcome));
		writeAt(join(outcome.handle.worktreePath, "b.txt"), "b\n");
		await finishWorktree(outcome.handle, { type: "worker", description: "title \x1b]0;owned\x07 \x9b2J", status: "completed" });
		for (const color of [false, true]) {
			let out = "";
			const io: CliIo = { out: (t) => void (out += t), err: (t) => void (out += t), isTty: color, env: { ...process.env, PI_CODING_AGENT_DIR: repo.agentDir }, cwd: repo.root };
			expect(await main(["worktrees", "list"], io)).toBe(0);
			expect(out).toContain("title \\x1b]0;owned\\x07 \\x9b2J");
			expectShownOnly({ out, err: "" });
		}
	});
});

/** Text rich in what attacks a terminal, as a YAML double-quoted scalar would decode it. */
const hostile = fc
	.array(
		fc.oneof(
			fc.constantFrom("\x1b[2J", "\x1b]0;t\x07", "\x1b]8;;u\x1b\\", "\x1bP0q\x1b\\", "\x9b", "\x9d", "\x85", "\u202e", "\u2067", "\r", "\x7f", "\x07", "\x00"),
			fc.string({ maxLength: 6 }),
		),
		{ minLength: 1, maxLength: 6 },
	)
	.map((parts) => parts.join(""));

/** A YAML double-quoted scalar holding exactly `text`. */
function yamlString(text: string): string {
	return JSON.stringify(text).replace(/[\x7f-\x9f\u2000-\u206f]/g, (c) => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, "0")}`);
}

/** Runs per property: bounded in `npm test`; `CADRE_FUZZ_RUNS=2000 npx vitest run test/cli/terminal-safety.test.ts` for longer. */
const RUNS = Number(process.env.CADRE_FUZZ_RUNS ?? 25);

describe("property: hostile files never reach the terminal raw", () => {
	it("list, check, explain and prompt, coloured and not", async () => {
		await fc.assert(
			fc.asyncProperty(hostile, hostile, hostile, hostile, fc.boolean(), async (name, key, value, body, color) => {
				const fileName = name.replace(/[/\x00]/g, "_").slice(0, 60) || "x";
				const root = tree({
					[`project/.pi/agents/${fileName}.md`]: `---\ndescription: ${yamlString(value)}\n${yamlString(key)}: ${yamlString(value)}\nmodel: ${yamlString(value)}\n---\n${body}\n`,
					"project/.pi/agents/raw.md": `---\n${name.replace(/\n/g, " ")}: x\n---\n${body}`,
				});
				for (const args of [["list"], ["check"], ["explain", fileName, ...PARENT], ["explain", "raw", ...PARENT], ["prompt", fileName, ...PARENT]]) {
					expectShownOnly(await cadre(root, args, color));
				}
			}),
			{ numRuns: RUNS },
		);
	});
});
