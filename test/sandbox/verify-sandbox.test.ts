/**
 * A sandboxed child's `verify` runs inside the child's sandbox (issue 23 × issue 27): it cannot
 * write outside the child's write root and sees no credential variable; the same verify of an
 * unsandboxed child (`sandbox: off`, a user file) can — proving the test can fail.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/runtime/result.ts";
import { sandboxPlatform } from "../../src/sandbox/platform.ts";
import { createParent, fauxAssistantMessage, fauxToolCall, fullResult, type Parent, toolResults } from "../runtime/harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
	delete process.env.CADRE_VERIFY_API_KEY;
});

async function verifyOf(sandbox: "auto" | "off"): Promise<{ details: RunResult; outside: string }> {
	const outside = mkdtempSync(join(process.env.TMPDIR as string, "outside-"));
	const cwd = mkdtempSync(join(process.env.TMPDIR as string, "proj-"));
	execFileSync("sh", ["-c", "git init -q && git -c user.name=t -c user.email=t@t commit -qm init --allow-empty"], { cwd });
	process.env.CADRE_VERIFY_API_KEY = "sekrit-value";
	const verify = `echo "key=\${CADRE_VERIFY_API_KEY:-none}"; touch '${outside}/verify-wrote.txt' && echo wrote-outside; touch inside.txt && echo wrote-inside`;
	const checker = ["---", "description: checks", "tools: read, bash", `sandbox: ${sandbox}`, `verify: ${JSON.stringify(verify)}`, "---", "Do the task.", ""].join("\n");
	parent = await createParent({
		cwd,
		agentFiles: { "agents/checker.md": checker },
		script: (turn) => {
			if (turn.agent !== "parent") return fauxAssistantMessage("done");
			if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "do it", description: "task", subagent_type: "checker" })], { stopReason: "toolUse" });
			return fauxAssistantMessage("noted");
		},
	});
	await parent.session.prompt("go");
	const [result] = toolResults(parent.session, "subagent");
	// The stored details are slim (ADR 0188): the whole result is the service's, by id.
	return { details: fullResult(parent, result) as RunResult, outside };
}

describe.skipIf(!sandboxPlatform().available)("verify of a sandboxed child", () => {
	it("runs in the child's sandbox: nothing written outside its write root, no credential variable", async () => {
		const { details, outside } = await verifyOf("auto");
		expect(details.sandboxed).toBe(true);
		expect(details.verify?.outputTail).toContain("key=none");
		expect(details.verify?.outputTail).not.toContain("sekrit-value");
		expect(details.verify?.outputTail).not.toContain("wrote-outside");
		expect(details.verify?.outputTail).toContain("wrote-inside");
		expect(existsSync(join(outside, "verify-wrote.txt"))).toBe(false);
	}, 60_000);

	it("of an unsandboxed child (sandbox: off) runs with the user's access", async () => {
		const { details, outside } = await verifyOf("off");
		expect(details.sandboxed).toBe(false);
		expect(details.verify?.outputTail).toContain("key=sekrit-value");
		expect(details.verify?.outputTail).toContain("wrote-outside");
		expect(existsSync(join(outside, "verify-wrote.txt"))).toBe(true);
	}, 60_000);
});
