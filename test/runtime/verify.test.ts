/**
 * A run's own `verify` (issue 23, ADR 0117) through real pi sessions with the faux model: cadre runs
 * `test -f done.txt` in the child's cwd after the child finishes; a child that finished without the
 * file gets one repair turn with the command's output, creates it, and its result has
 * `verify.ok: true`; a child that never fixes it ends `completed` with `verify.ok: false`, loudly in
 * the notification; an untrusted project's `verify` is not run, and a diagnostic says why.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { NotificationDetails } from "../../src/hosts/pi/notifications.ts";
import type { RunResult } from "../../src/runtime/result.ts";
import { loadRun } from "../../src/runtime/run-reader.ts";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, type Script, type Turn, fullResult, toolResults, until } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

const CHECKER = ["---", "description: Finishes a task", 'verify: "test -f done.txt || { echo done.txt is missing >&2; exit 4; }"', "---", "Do the task.", ""].join("\n");
const REPAIR = "[cadre] Your work did not pass verification";
const createDone = () => fauxAssistantMessage([fauxToolCall("write", { path: "done.txt", content: "done\n" })], { stopReason: "toolUse" });

function parentScript(request: Record<string, unknown>, child: (turn: Turn) => ReturnType<Script>): Script {
	return (turn) => {
		if (turn.agent !== "parent") return child(turn);
		if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "do it", description: "task", subagent_type: "checker", ...request } as never)], { stopReason: "toolUse" });
		return fauxAssistantMessage("noted");
	};
}

describe("verify", () => {
	it("a child that finished without done.txt gets the repair turn with the output, creates it, and ends with verify.ok true", async () => {
		const cwd = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "proj-"));
		for (const args of [["init", "-q"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"]]) execFileSync("git", args, { cwd });
		const bash = (command: string) => fauxAssistantMessage([fauxToolCall("bash", { command })], { stopReason: "toolUse" });
		const lastTool = (turn: Turn) => (turn.last?.role === "toolResult" ? (turn.last as { toolName: string }).toolName : null);
		parent = await createParent({
			cwd,
			agentFiles: { "agents/checker.md": CHECKER },
			persisted: true,
			script: parentScript({}, (turn) => {
				if (turn.lastText.includes(REPAIR)) return createDone();
				if (lastTool(turn) === "write") return bash("cat done.txt");
				if (lastTool(turn) === "bash") return fauxAssistantMessage(turn.lastText.includes("done") ? "created it" : "all done");
				return bash("ls missing-file");
			}),
		});
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		const details = result?.details as RunResult;
		const childTurns = parent.requests.filter((turn) => turn.agent !== "parent");
		const repairs = childTurns.filter((turn) => turn.lastText.includes(REPAIR));
		expect(repairs).toHaveLength(1);
		expect(repairs[0]?.lastText).toContain("exited with 4");
		expect(repairs[0]?.lastText).toContain("done.txt is missing");
		expect(existsSync(join(parent.cwd, "done.txt"))).toBe(true);
		expect(details.status).toBe("completed");
		expect(details.verify).toMatchObject({ command: "test -f done.txt || { echo done.txt is missing >&2; exit 4; }", exitCode: 0, ok: true, outputTail: "" });
		expect(details.verify?.repair).toMatchObject({ steered: true, worked: true, first: { exitCode: 4, ok: false, outputTail: "done.txt is missing" } });
		expect(typeof details.verify?.durationMs).toBe("number");
		expect(result?.text).toContain("Verify: passed");
		const stored = loadRun(join(dirname(parent?.service().get(details.id)?.transcript ?? ""), `${details.id}.run.json`));
		expect(stored.ok && stored.run.verify?.ok).toBe(true);
		// the receipt: what cadre saw, not what the child said
		const receipt = fullResult(parent, result)?.receipt;
		expect(receipt).toMatchObject({
			filesFrom: "tool-calls-and-git-status",
			files: [{ path: "done.txt", added: 1, removed: 0 }],
			commandCount: 2,
			failedCommands: 1,
			toolUses: { bash: 2, write: 1 },
		});
		expect(receipt?.commands.map((c) => [c.command, c.exitCode])).toEqual([
			["ls missing-file", 2],
			["cat done.txt", 0],
		]);
		expect(receipt?.commands.every((c) => typeof c.durationMs === "number")).toBe(true);
		expect(result?.text).toContain("Files changed (tool-calls-and-git-status): done.txt +1/-0.");
		expect(result?.text).toContain("Commands: 2 run, 1 failed; last: `ls missing-file` → exit 2");
		expect(stored.ok && stored.run.receipt?.files).toEqual([{ path: "done.txt", added: 1, removed: 0 }]);
		expect(parent.events.find((e) => e.name === "cadre:completed")?.payload.receipt).toMatchObject({ commandCount: 2 });
	});

	it("a child that never fixes it ends completed with verify.ok false, loudly in the notification", async () => {
		parent = await createParent({
			agentFiles: { "agents/checker.md": CHECKER },
			mode: "rpc",
			script: parentScript({ run_in_background: true }, () => fauxAssistantMessage("I will not")),
		});
		await parent.session.prompt("go");
		const notes = () =>
			(parent as Parent).session.messages.filter((m) => m.role === "custom" && (m as { customType?: string }).customType === "cadre-notification") as unknown as {
				content: string;
				details: NotificationDetails;
			}[];
		await until(() => notes().length > 0, "the notification");
		const note = notes()[0];
		expect(String(note?.content)).toContain("completed — VERIFY FAILED");
		expect(String(note?.content)).toContain("Verify: FAILED");
		const run = note?.details.runs[0];
		expect(run?.status).toBe("completed");
		expect(run?.verify).toMatchObject({ ok: false, exitCode: 4, repair: { steered: true, worked: false } });
		expect(parent.requests.filter((turn) => turn.agent !== "parent" && turn.lastText.includes(REPAIR))).toHaveLength(1);
	});

	it("an untrusted project's verify is not run, and a diagnostic says why", async () => {
		const { mkdirSync, writeFileSync } = await import("node:fs");
		const cwd = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "proj-"));
		mkdirSync(join(cwd, ".pi", "agents"), { recursive: true });
		writeFileSync(join(cwd, ".pi", "agents", "checker.md"), CHECKER.replace("test -f done.txt ||", "touch ran.txt; test -f done.txt ||"));
		parent = await createParent({ cwd, script: parentScript({}, () => fauxAssistantMessage("all done")) });
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		const details = result?.details as RunResult;
		expect(details.status).toBe("completed");
		expect(details.verify ?? null).toBeNull();
		expect(existsSync(join(cwd, "ran.txt"))).toBe(false);
		expect(parent.requests.some((turn) => turn.lastText.includes(REPAIR))).toBe(false);
		expect(details.warnings.join("\n")).toMatch(/\.pi\/agents\/checker\.md:3:\d+ warning verify-untrusted the definition's verify is not run: it comes from a project pi does not trust/);
	});
});
