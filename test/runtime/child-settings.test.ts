/**
 * pi's settings as a child starts with them, read once and again only on a change (issue 28): a
 * settings file created where none was, in the user's or the project's folder, and an edit in place
 * are each seen by the next check, and settings nothing changed are kept; `statOf` shares one stat
 * among the checks a spawn makes in one run of the event loop.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { childSettings } from "../../src/runtime/pi/child-settings.ts";
import { statOf } from "../../src/runtime/stat-key.ts";

const pastRacyWindow = () => new Promise((resolve) => setTimeout(resolve, 150));

describe("a child's settings", () => {
	it("see a settings file created where none was, in the agent dir and in the project, and an edit in place", async () => {
		const root = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "child-settings-"));
		const agentDir = join(root, "agent");
		const cwd = join(root, "project");
		mkdirSync(agentDir);
		mkdirSync(cwd);
		await pastRacyWindow();
		const level = async () => (await childSettings(cwd, agentDir, true)).defaultThinkingLevel;
		expect(await level()).toBeUndefined();
		expect(await level()).toBeUndefined();

		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultThinkingLevel: "low" }));
		expect(await level()).toBe("low");
		await pastRacyWindow();
		expect(await level()).toBe("low");
		// Kept while nothing changed: the same settings, not read again (pi's read locks the file,
		// which changes the agent folder: the folder is no input).
		const kept = await childSettings(cwd, agentDir, true);
		expect(await childSettings(cwd, agentDir, true)).toBe(kept);

		// Same size, same folder: only the file's own stat tells.
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultThinkingLevel: "med" }));
		expect(await level()).toBe("med");
		await pastRacyWindow();

		mkdirSync(join(cwd, ".pi"));
		writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ defaultThinkingLevel: "high" }));
		expect(await level()).toBe("high");
	});
});

describe("statOf", () => {
	it("shares one stat among callers in one run of the event loop, and stats again in the next", async () => {
		const dir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "stat-of-"));
		const first = statOf(join(dir, "f"));
		expect(statOf(join(dir, "f"))).toBe(first);
		expect(await first).toBe("ENOENT");
		writeFileSync(join(dir, "f"), "x");
		const next = statOf(join(dir, "f"));
		expect(next).not.toBe(first);
		expect(typeof (await next)).toBe("object");
	});
});
