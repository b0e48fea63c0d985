/**
 * Children inherit the parent's compaction and retry settings (spec 04 "In-process children"),
 * also when they run in another directory than the parent.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createParent, fauxAssistantMessage, fauxToolCall, type Parent, toolResults } from "./harness.ts";

let parent: Parent | null = null;
afterEach(() => {
	parent?.dispose();
	parent = null;
});

describe("child settings", () => {
	it("a child in a subdirectory keeps the parent's retry settings (retry off: an overloaded answer fails the run)", async () => {
		const cwd = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "proj-"));
		mkdirSync(join(cwd, ".pi"), { recursive: true });
		mkdirSync(join(cwd, "sub"), { recursive: true });
		writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ retry: { enabled: false } }));
		let childRequests = 0;
		parent = await createParent({
			cwd,
			projectTrusted: true,
			script: (turn) => {
				if (turn.agent === "general-purpose") {
					childRequests++;
					if (childRequests === 1) return fauxAssistantMessage("", { stopReason: "error", errorMessage: "overloaded_error: the server is overloaded" });
					return fauxAssistantMessage("answered after a retry");
				}
				if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("subagent", { prompt: "p", description: "in a subdir", cwd: "sub" })], { stopReason: "toolUse" });
				return fauxAssistantMessage("ok");
			},
		});
		await parent.session.prompt("go");
		const [result] = toolResults(parent.session, "subagent");
		const details = result?.details as { status: string; error: string | null };
		expect(childRequests).toBe(1);
		expect(details.status).toBe("failed");
		expect(details.error).toContain("overloaded");
	});
});
