/**
 * cadre through the real `pi -e <repo> -p` command line, offline: a test extension registers a
 * scripted faux model; the parent spawns children in-process.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { until } from "../runtime/harness.ts";
import { piCommand, piWorld, runPi } from "../support/pi-cli.ts";

/** Every run record under the agent dir's sessions (ADR 0068), parsed; one being replaced is skipped. */
function runRecords(agentDir: string): Record<string, unknown>[] {
	const sessions = join(agentDir, "sessions");
	if (!existsSync(sessions)) return [];
	return (readdirSync(sessions, { recursive: true }) as string[])
		.filter((name) => name.endsWith(".run.json") && !name.includes(`${sep}.`))
		.flatMap((name) => {
			try {
				return [JSON.parse(readFileSync(join(sessions, name), "utf8")) as Record<string, unknown>];
			} catch {
				return [];
			}
		});
}

describe("pi -e . -p", () => {
	it("spawns a child through the real pi CLI and prints its answer", () => {
		const world = piWorld("cli-");
		writeFileSync(join(world.project, "notes.txt"), "hello from the cli test");
		const result = runPi(world, { fixture: "scripted-model.ts", prompt: "read the notes with a sub-agent" });
		expect(result.stderr).not.toMatch(/cadre supports pi/);
		expect(result.stdout).toContain("RESULT: The notes say: hello from the cli test");
		expect(result.status).toBe(0);
		const found = JSON.stringify(readdirSync(join(world.agentDir, "sessions"), { recursive: true }));
		expect(found).toMatch(/cadre/);
	});

	it("pi --no-extensions: children load only the -e extensions, never the discovered ones the parent skipped", () => {
		const world = piWorld("cli-ne-");
		writeFileSync(join(world.project, "notes.txt"), "hello from the cli test");
		const marker = join(world.root, "marker.log");
		mkdirSync(join(world.agentDir, "extensions"), { recursive: true });
		writeFileSync(
			join(world.agentDir, "extensions", "global-marker.ts"),
			`import { appendFileSync } from "node:fs";\nexport default function () { appendFileSync(${JSON.stringify(marker)}, "loaded\\n"); }\n`,
		);
		const result = runPi(world, { fixture: "scripted-model.ts", prompt: "read the notes with a sub-agent", flags: ["-ne"] });
		expect(result.stdout).toContain("RESULT: The notes say: hello from the cli test");
		expect(result.status).toBe(0);
		expect(existsSync(marker)).toBe(false);
	});

	it("stops a still-running background child when pi -p ends, recorded as stopped", () => {
		const world = piWorld("cli-bg-");
		const log = join(world.root, "events.log");
		const result = runPi(world, { fixture: "background-sleeper.ts", prompt: "start a sleeper", env: { CADRE_EVENT_LOG: log }, timeout: 25_000 });
		expect(result.stdout).toContain("parent done");
		expect(result.status).toBe(0);
		expect(existsSync(log)).toBe(true);
		const ends = readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line));
		expect(ends).toHaveLength(1);
		expect(ends[0].status).toBe("stopped");
		expect(ends[0].description).toBe("sleeper");
	});

	it("pi -c: a restarted parent lists the earlier process's run and resumes it from its transcript", () => {
		const world = piWorld("cli-c-");
		const spawned = runPi(world, { fixture: "remembering-model.ts", prompt: "spawn" });
		expect(spawned.stdout).toContain("spawned");
		const listed = runPi(world, { fixture: "remembering-model.ts", prompt: "/subagents", flags: ["-c"] });
		// pi -p keeps stdout for the answer: what a command prints goes to stderr.
		expect(`${listed.stdout}${listed.stderr}`).toMatch(/^explore-\S+ +completed +explore +"remember a word"/m);
		const resumed = runPi(world, { fixture: "remembering-model.ts", prompt: "resume", flags: ["-c"] });
		expect(resumed.stdout).toContain("RESUMED: The word was kiwi");
		expect(resumed.status).toBe(0);
	});

	it("a parent pi killed mid-run: the next pi -c lists its running child as interrupted and resumes it", async () => {
		const world = piWorld("cli-kill-");
		const command = piCommand(world, { fixture: "interrupted-child.ts", prompt: "start working" });
		const parent = spawn(command.bin, command.args, { cwd: command.cwd, env: command.env, stdio: "ignore" });
		const exited = new Promise((resolve) => parent.once("exit", resolve));
		// Killed once the record says the child runs and names its transcript.
		const running = () => runRecords(world.agentDir).some((record) => record.state === "running" && typeof record.transcript === "string");
		try {
			await until(() => running() || parent.exitCode !== null, "the child's running record", 45_000);
		} finally {
			parent.kill("SIGKILL");
			await exited;
		}
		expect(running()).toBe(true);
		const listed = runPi(world, { fixture: "interrupted-child.ts", prompt: "/subagents", flags: ["-c"] });
		expect(`${listed.stdout}${listed.stderr}`).toMatch(/^general-purpose-\S+ +interrupted +general-purpose +"long work"/m);
		const resumed = runPi(world, { fixture: "interrupted-child.ts", prompt: "resume", flags: ["-c"] });
		expect(resumed.stdout).toContain("RESUMED: resumed after the crash");
		expect(resumed.status).toBe(0);
	}, 120_000);
});

/** A `pi -p` / `--mode json` run of the print-notify fixture: its output, parent requests and records. */
function printNotifyRun(prefix: string, flags: string[]) {
	const world = piWorld(prefix);
	const requests = join(world.root, "requests.log");
	const events = join(world.root, "events.log");
	const result = runPi(world, { fixture: "print-notify.ts", prompt: "start three children", flags, env: { CADRE_REQUEST_LOG: requests, CADRE_EVENT_LOG: events }, timeout: 40_000 });
	const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line)) : []);
	const sessions = join(world.agentDir, "sessions");
	// The parent's session file; children's transcripts live under its `cadre/` folder.
	const sessionFiles = readdirSync(sessions, { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile() && entry.name.endsWith(".jsonl") && !relative(sessions, entry.parentPath).split(sep).includes("cadre"))
		.map((entry) => join(entry.parentPath, entry.name));
	const entries = sessionFiles.flatMap((file) => readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line)));
	return { result, requests: lines(requests), failed: lines(events), entries };
}

/** What every single-shot run must show: no turn after the answer, the sleeper reported and recorded stopped. */
function expectStoppedAtExit(run: ReturnType<typeof printNotifyRun>) {
	expect(run.result.status).toBe(0);
	// Two parent requests: the spawns and the final answer; no notification started a third.
	expect(run.requests).toHaveLength(2);
	const sleeper = run.failed.find((payload) => payload.description === "sleeper");
	expect(sleeper?.status).toBe("stopped");
	expect(run.result.stderr).toContain(`cadre: sub-agent ${sleeper?.id} (general-purpose: sleeper) stopped at exit`);
	expect(run.result.stderr).not.toMatch(/\((general-purpose: (mid|late))\)/);
	const usage = run.entries.filter((entry) => entry.type === "custom" && entry.customType === "cadre-usage").map((entry) => entry.data);
	expect(usage.find((data) => data.id === sleeper?.id)?.status).toBe("stopped");
	expect(usage.filter((data) => data.status === "completed").map((data) => data.type)).toHaveLength(2);
}

describe("pi -p with background children (issue 11 item 6)", () => {
	it("prints the parent's final answer though children finish during and after its turn; a child still running is reported on stderr", () => {
		const run = printNotifyRun("cli-print-", []);
		expect(run.result.stdout).toBe("parent done\n");
		expectStoppedAtExit(run);
	});

	it("--mode json: the event stream ends with the parent's answer, no turn after it", () => {
		const run = printNotifyRun("cli-json-", ["--mode", "json"]);
		const events = run.result.stdout.trim().split("\n").map((line) => JSON.parse(line));
		const answers = events
			.filter((event) => event.type === "message_end" && event.message?.role === "assistant")
			.map((event) => JSON.stringify(event.message.content));
		expect(answers.at(-1)).toContain("parent done");
		expect(run.result.stdout).not.toContain("EXTRA TURN");
		expectStoppedAtExit(run);
	});
});
