/**
 * cadre through the real `pi -e <repo> -p` command line, offline: a test extension registers a
 * scripted faux model; the parent spawns an `explore` child in-process and prints its answer.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const piBin = join(repo, "node_modules", ".bin", "pi");

describe("pi -e . -p", () => {
	it("spawns a child through the real pi CLI and prints its answer", () => {
		const root = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "cli-"));
		const home = join(root, "home");
		const agentDir = join(root, "agent");
		const project = join(root, "project");
		for (const dir of [home, agentDir, project]) mkdirSync(dir, { recursive: true });
		writeFileSync(join(agentDir, "auth.json"), JSON.stringify({ faux: { type: "api_key", key: "offline" } }));
		writeFileSync(join(project, "notes.txt"), "hello from the cli test");
		const result = spawnSync(
			piBin,
			["-e", repo, "-e", join(repo, "test/pi/fixtures/scripted-model.ts"), "--model", "faux/scripted", "-p", "read the notes with a sub-agent"],
			{
				cwd: project,
				encoding: "utf8",
				timeout: 60_000,
				env: {
					...process.env,
					HOME: home,
					PI_CODING_AGENT_DIR: agentDir,
					PI_OFFLINE: "1",
					PI_TELEMETRY: "0",
					PATH: `${join(repo, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
				},
			},
		);
		expect(result.stderr).not.toMatch(/cadre supports pi/);
		expect(result.stdout).toContain("RESULT: The notes say: hello from the cli test");
		expect(result.status).toBe(0);
		const transcripts = join(agentDir, "sessions");
		const found = JSON.stringify(readdirSync(transcripts, { recursive: true }));
		expect(found).toMatch(/cadre/);
	});

	it("pi --no-extensions: children load only the -e extensions, never the discovered ones the parent skipped", () => {
		const root = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "cli-ne-"));
		const home = join(root, "home");
		const agentDir = join(root, "agent");
		const project = join(root, "project");
		for (const dir of [home, agentDir, project, join(agentDir, "extensions")]) mkdirSync(dir, { recursive: true });
		writeFileSync(join(agentDir, "auth.json"), JSON.stringify({ faux: { type: "api_key", key: "offline" } }));
		writeFileSync(join(project, "notes.txt"), "hello from the cli test");
		const marker = join(root, "marker.log");
		writeFileSync(
			join(agentDir, "extensions", "global-marker.ts"),
			`import { appendFileSync } from "node:fs";\nexport default function () { appendFileSync(${JSON.stringify(marker)}, "loaded\\n"); }\n`,
		);
		const result = spawnSync(
			piBin,
			["-ne", "-e", repo, "-e", join(repo, "test/pi/fixtures/scripted-model.ts"), "--model", "faux/scripted", "-p", "read the notes with a sub-agent"],
			{
				cwd: project,
				encoding: "utf8",
				timeout: 60_000,
				env: {
					...process.env,
					HOME: home,
					PI_CODING_AGENT_DIR: agentDir,
					PI_OFFLINE: "1",
					PI_TELEMETRY: "0",
					PATH: `${join(repo, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
				},
			},
		);
		expect(result.stdout).toContain("RESULT: The notes say: hello from the cli test");
		expect(result.status).toBe(0);
		expect(existsSync(marker)).toBe(false);
	});

	it("stops a still-running background child when pi -p ends, recorded as stopped", () => {
		const root = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "cli-bg-"));
		const home = join(root, "home");
		const agentDir = join(root, "agent");
		const project = join(root, "project");
		for (const dir of [home, agentDir, project]) mkdirSync(dir, { recursive: true });
		writeFileSync(join(agentDir, "auth.json"), JSON.stringify({ faux: { type: "api_key", key: "offline" } }));
		const log = join(root, "events.log");
		const result = spawnSync(
			piBin,
			["-e", repo, "-e", join(repo, "test/pi/fixtures/background-sleeper.ts"), "--model", "faux/scripted", "-p", "start a sleeper"],
			{
				cwd: project,
				encoding: "utf8",
				timeout: 25_000,
				env: {
					...process.env,
					HOME: home,
					PI_CODING_AGENT_DIR: agentDir,
					PI_OFFLINE: "1",
					PI_TELEMETRY: "0",
					CADRE_EVENT_LOG: log,
					PATH: `${join(repo, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
				},
			},
		);
		expect(result.stdout).toContain("parent done");
		expect(result.status).toBe(0);
		expect(existsSync(log)).toBe(true);
		const ends = readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line));
		expect(ends).toHaveLength(1);
		expect(ends[0].status).toBe("stopped");
		expect(ends[0].description).toBe("sleeper");
	});
});
