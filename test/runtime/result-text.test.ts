/**
 * The text the parent model reads for a finished run (ADR 0193): a compact header and only what is
 * not the default — a child that changed files, whose request was not honoured, or whose sandbox
 * blocked something still says so; an empty receipt, honoured requests, the transcript path and an
 * ordinary sandbox are left to `verbose` (get_subagent_result) and the run record.
 */
import { afterEach, describe, expect, it } from "vitest";
import { formatResult, runResult } from "../../src/runtime/result.ts";
import type { RunRecord } from "../../src/runtime/runs.ts";
import { sandboxPlatform } from "../../src/sandbox/platform.ts";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, type ParentOptions, type Script, toolResults } from "./harness.ts";
import { record } from "./record.ts";

/** A finished run that got what it asked for: no request values, sandboxed, nothing changed. */
function plain(overrides: Partial<RunRecord> = {}): RunRecord {
	const base = record({ trace: {}, ignored: [], text: "child done" });
	return {
		...base,
		config: { ...base.config, sandbox: "auto", sandboxed: true },
		receipt: { filesFrom: "tool-calls", files: [], commands: [], commandCount: 0, failedCommands: 0, toolUses: {} },
		...overrides,
	};
}

const text = (run: RunRecord, verbose = false) => formatResult(runResult(run, 10_000), { verbose });

describe("the result text the parent model reads", () => {
	it("is a compact header and the answer when everything was the default", () => {
		expect(text(plain())).toBe("explore-abc123 · completed · 1.0s · 2 turns\n\nchild done");
	});

	it("says which files a child changed, with their line counts", () => {
		const out = text(plain({ receipt: { filesFrom: "tool-calls", files: [{ path: "src/a.ts", added: 3, removed: 1 }], commands: [], commandCount: 0, failedCommands: 0, toolUses: { edit: 1 } } }));
		expect(out).toContain("Files changed (tool-calls): src/a.ts +3/-1.");
		expect(out).not.toContain("Receipt (observed by cadre): files changed (tool-calls): none");
	});

	it("lists a warning of no file once as a list item, without the place marker of `cadre check`", () => {
		const warned = plain({ diagnostics: [{ severity: "warning", file: null, line: null, column: null, code: "tool-dropped", message: "bash is not among the parent's tools" }] });
		expect(text(warned)).toContain("Warnings:\n- warning tool-dropped bash is not among the parent's tools");
		expect(text(warned)).not.toContain("- - ");
	});

	it("says when a command failed, even with no file changed", () => {
		const out = text(plain({ receipt: { filesFrom: "tool-calls", files: [], commands: [{ command: "npm test", exitCode: 1, durationMs: 2000 }], commandCount: 2, failedCommands: 1, toolUses: { bash: 2 } } }));
		expect(out).toContain("Commands: 2 run, 1 failed; last: `npm test` → exit 1 2.0s.");
	});

	it("names each request value that was not honoured, and only those", () => {
		const out = text(record({ text: "child done" }));
		expect(out).toContain("Not as requested: reasoningEffort high → medium (clamped for the model); model nope/x → faux/m (unresolvable); isolation worktree → none (ignored: resume keeps the stored config).");
		const honoured = plain({ trace: { model: { value: "faux/m", layer: "request", source: "request", candidates: [] } } });
		expect(text(honoured)).not.toMatch(/requested/i);
	});

	it("says what the sandbox blocked, and when a child ran unsandboxed though its sandbox mode asked for one", () => {
		const blocked = plain({ diagnostics: [{ severity: "warning", file: null, line: null, column: null, code: "sandbox-blocked", message: "the sandbox blocked read: read /home/me/.ssh/id_rsa" }] });
		expect(text(blocked)).toContain("Sandbox: sandboxed");
		expect(text(blocked)).toContain("It blocked 1 attempt: read: read /home/me/.ssh/id_rsa.");
		const base = plain();
		const unsandboxed = plain({ config: { ...base.config, sandbox: "auto", sandboxed: false } });
		expect(text(unsandboxed)).toContain("Sandbox: not sandboxed — its tools ran with your access.");
		const off = plain({ config: { ...base.config, sandbox: "off", sandboxed: false } });
		expect(text(off)).not.toContain("Sandbox:");
		expect(text(plain())).not.toContain("Sandbox:");
	});

	it("leaves the model line, usage, transcript and empty receipt to verbose, which still has them", () => {
		const out = text(plain());
		for (const absent of ["Transcript:", "/t/run.jsonl", "Model faux/m", "Receipt", "Requested vs used", "in /", "$0.0010"]) expect(out, absent).not.toContain(absent);
		const full = text(plain(), true);
		for (const present of ["Transcript: /t/run.jsonl", "Model faux/m, thinking high, capability read-only", "tools: read", "Sandbox: sandboxed", "Receipt (observed by cadre): files changed (tool-calls): none.", "Requested vs used: nothing requested beyond the prompt.", "10 in / 5 out, $0.0010"])
			expect(full, present).toContain(present);
	});

	it("keeps the error, a max_turns stop, an unpersisted record and the tree in the compact text", () => {
		const out = text(plain({ state: "failed", error: "boom", limitReached: true, persistError: "EACCES", descendants: 2, treeUsage: { input: 100, output: 50, cacheRead: 0, cacheWrite: 0, cost: 0.01 } }));
		expect(out.split("\n")[0]).toBe("explore-abc123 · failed at its max_turns limit · 1.0s · 2 turns");
		expect(out).toContain("Error: boom");
		expect(out).toContain("Not persisted: EACCES");
		expect(out).toContain("Tree: 2 descendants ran");
	});
});

describe("through a real parent session", () => {
	let parent: Parent | null = null;
	afterEach(() => {
		parent?.dispose();
		parent = null;
	});

	/** One foreground child: `child` scripts it; the parent calls `subagent` with `request` once. */
	async function spawnOnce(request: Record<string, unknown>, child: Script, options: Partial<ParentOptions> = {}): Promise<string> {
		parent = await createParent({
			...options,
			script: (turn) => {
				if (turn.agent !== "parent") return child(turn);
				if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "do it", description: "do it", ...request })], { stopReason: "toolUse" });
				return fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		return toolResults(parent.session, "subagent")[0]?.text ?? "";
	}

	it("a child that wrote a file says which, a plain one says only its header", async () => {
		const wrote = await spawnOnce({ subagent_type: "general-purpose" }, (turn) =>
			turn.step === 0 ? fauxAssistantMessage([fauxToolCall("write", { path: "notes.md", content: "a\nb\n" })], { stopReason: "toolUse" }) : fauxAssistantMessage("wrote it"),
		);
		expect(wrote).toMatch(/\nFiles changed \(tool-calls\): \S*notes\.md\.\n/);
		parent?.dispose();
		const plainText = await spawnOnce({ subagent_type: "explore" }, () => fauxAssistantMessage("nothing to do"));
		expect(plainText).toMatch(/^explore-\S+ · completed · \d+\.\ds · 1 turn\n\nnothing to do$/);
	});

	it("a request the run did not honour is named", async () => {
		const out = await spawnOnce({ subagent_type: "explore", thinking: "high" }, () => fauxAssistantMessage("ran anyway"));
		expect(out).toMatch(/\nNot as requested: reasoningEffort high → \S+ \(clamped for the model\)\.\n/);
	});

	it.skipIf(!sandboxPlatform().available)("a read the sandbox blocked is named", async () => {
		const out = await spawnOnce({ subagent_type: "explore" }, (turn) =>
			turn.step === 0 ? fauxAssistantMessage([fauxToolCall("read", { path: "~/.ssh/id_rsa" })], { stopReason: "toolUse" }) : fauxAssistantMessage("could not"),
		);
		expect(out).toMatch(/Sandbox: sandboxed — .* It blocked 1 attempt: read: /);
	});
});
