/**
 * pi's settings as a child starts with them, read once and again only on a change (issue 28): a
 * settings file created where none was, in the user's or the project's folder, and an edit in place
 * are each seen by the next check, and settings nothing changed are kept; `statOf` answers a path
 * that is not there with its code (ADR 0198).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { childSettings, childSettingsManager } from "../../src/runtime/pi/child-settings.ts";
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
		const level = async () => childSettings(cwd, agentDir, true).defaultThinkingLevel;
		expect(await level()).toBeUndefined();
		expect(await level()).toBeUndefined();

		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultThinkingLevel: "low" }));
		expect(await level()).toBe("low");
		await pastRacyWindow();
		expect(await level()).toBe("low");
		// Kept while nothing changed: the same settings, not read again (pi's read locks the file,
		// which changes the agent folder: the folder is no input).
		const kept = childSettings(cwd, agentDir, true);
		expect(childSettings(cwd, agentDir, true)).toBe(kept);

		// Same size, same folder: only the file's own stat tells.
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultThinkingLevel: "med" }));
		expect(await level()).toBe("med");
		await pastRacyWindow();

		mkdirSync(join(cwd, ".pi"));
		writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ defaultThinkingLevel: "high" }));
		expect(await level()).toBe("high");
	});
});

describe("a child's settings manager", () => {
	it("holds a copy: what one child changes, neither its siblings nor the settings read see", async () => {
		const root = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "child-settings-"));
		const agentDir = join(root, "agent");
		mkdirSync(agentDir);
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultThinkingLevel: "low", defaultModel: "m1" }));
		const one = childSettingsManager(root, agentDir, true);
		const two = childSettingsManager(root, agentDir, true);
		one.setDefaultModel("changed");
		one.setDefaultThinkingLevel("high");
		expect(one.getDefaultModel()).toBe("changed");
		expect(two.getDefaultModel()).toBe("m1");
		expect(two.getDefaultThinkingLevel()).toBe("low");
		expect(childSettings(root, agentDir, true).defaultModel).toBe("m1");
		expect(childSettings(root, agentDir, true).defaultThinkingLevel).toBe("low");
	});
});

describe("statOf", () => {
	it("answers a missing path, and a path under a file, as not there instead of throwing; an existing one with its stat", () => {
		const dir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "stat-of-"));
		expect(statOf(join(dir, "f"))).toBe("ENOENT");
		writeFileSync(join(dir, "f"), "x");
		expect(statOf(join(dir, "f", "g"))).toBe("ENOENT");
		const found = statOf(join(dir, "f"));
		expect(typeof found === "object" && found.size).toBe(1n);
	});
});
