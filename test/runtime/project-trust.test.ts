/**
 * cadre's trust of a project that holds only cadre files (ADR 0190): the user's explicit decision,
 * seen as soon as it is made or changed, and read from pi's files only when they changed — pi reads
 * them under a lock made in the agent dir, which would change that folder at every spawn (issue 28).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cadreProjectTrust } from "../../src/runtime/pi/project-trust.ts";

const pastRacyWindow = () => new Promise((resolve) => setTimeout(resolve, 150));

function world() {
	const root = realpathSync(mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "project-trust-")));
	const agentDir = join(root, "agent");
	const home = join(root, "home");
	const cwd = join(root, "project");
	for (const dir of [agentDir, home, join(cwd, ".pi", "agents")]) mkdirSync(dir, { recursive: true });
	writeFileSync(join(cwd, ".pi", "agents", "helper.md"), "---\ndescription: helper\n---\nHelp.\n");
	return { agentDir, home, cwd, trusted: () => cadreProjectTrust(true, cwd, agentDir, home) };
}

describe("an explicit trust decision", () => {
	it("is needed for a project with only cadre files, and seen at once when stored, changed or taken back", async () => {
		const { agentDir, cwd, trusted } = world();
		expect(trusted()).toBe(false);
		writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ [cwd]: true }));
		expect(trusted()).toBe(true);
		await pastRacyWindow();
		expect(trusted()).toBe(true);
		writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ [cwd]: false }));
		expect(trusted()).toBe(false);
		await pastRacyWindow();
		rmSync(join(agentDir, "trust.json"));
		expect(trusted()).toBe(false);
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProjectTrust: "always" }));
		expect(trusted()).toBe(true);
	});

	it("is read again only when trust.json or settings.json changed: asking leaves the agent dir as it was", async () => {
		const { agentDir, cwd, trusted } = world();
		writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ [cwd]: true }));
		await pastRacyWindow();
		expect(trusted()).toBe(true);
		const before = statSync(agentDir, { bigint: true }).mtimeNs;
		for (let i = 0; i < 5; i++) expect(trusted()).toBe(true);
		expect(statSync(agentDir, { bigint: true }).mtimeNs).toBe(before);
	});
});
