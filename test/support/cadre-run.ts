/**
 * `cadre run` against the chat-completions stub (test/support/chat-server.ts): a temporary world —
 * HOME, a pi agent dir whose `models.json` points at the stub and whose `settings.json` makes its
 * model pi's default, a project (optionally a git repository) — and the real `bin/cadre.js`
 * started as a child process, so a test can talk to the server while the run goes on, and signal it.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { stubModels } from "./chat-server.ts";
import { CADRE_BIN, nodeBinary, REPO_ROOT } from "./cli.ts";

export interface RunWorld {
	root: string;
	agentDir: string;
	home: string;
	project: string;
	env: NodeJS.ProcessEnv;
}

export interface RunWorldOptions {
	/** Files under the world's root (relative path → content), e.g. `agent/subagents.json`. */
	files?: Record<string, string>;
	/** Make the project a git repository with one commit. */
	git?: boolean;
	/** Model ids the stub provider lists (default `model-a`; the first is pi's default). */
	models?: string[];
}

function git(cwd: string, args: string[]): string {
	const run = spawnSync("git", args, { cwd, encoding: "utf8" });
	if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
	return run.stdout;
}

/** A world for `cadre run` against the stub at `baseUrl`. */
export function runWorld(prefix: string, baseUrl: string, options: RunWorldOptions = {}): RunWorld {
	const root = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", prefix));
	const agentDir = join(root, "agent");
	const home = join(root, "home");
	const project = join(root, "project");
	for (const dir of [agentDir, home, project]) mkdirSync(dir, { recursive: true });
	const models = options.models ?? ["model-a"];
	const files: Record<string, string> = {
		"agent/models.json": JSON.stringify(stubModels(baseUrl, models)),
		"agent/settings.json": JSON.stringify({ defaultProvider: "stub", defaultModel: models[0] }),
		...options.files,
	};
	for (const [path, text] of Object.entries(files)) {
		mkdirSync(dirname(join(root, path)), { recursive: true });
		writeFileSync(join(root, path), text);
	}
	if (options.git) {
		writeFileSync(join(project, "README.md"), "# project\n");
		git(project, ["init", "-q", "-b", "main"]);
		git(project, ["-c", "user.name=t", "-c", "user.email=t@example.com", "add", "."]);
		git(project, ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"]);
	}
	const env: NodeJS.ProcessEnv = {
		...process.env,
		HOME: home,
		PI_CODING_AGENT_DIR: agentDir,
		PI_OFFLINE: "1",
		PI_TELEMETRY: "0",
		NO_COLOR: "1",
		GIT_AUTHOR_NAME: "t",
		GIT_AUTHOR_EMAIL: "t@example.com",
		GIT_COMMITTER_NAME: "t",
		GIT_COMMITTER_EMAIL: "t@example.com",
		PATH: `${join(REPO_ROOT, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
	};
	return { root, agentDir, home, project, env };
}

/** A `cadre run` in progress. */
export interface CadreProcess {
	child: ChildProcess;
	/** Resolves when the process exits. */
	done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** Start `cadre <args>` in the world's project (stdin closed). */
export function startCadre(world: RunWorld, args: string[], options: { cwd?: string; timeoutMs?: number } = {}): CadreProcess {
	const child = spawn(nodeBinary(), [CADRE_BIN, ...args], { cwd: options.cwd ?? world.project, env: world.env, stdio: ["ignore", "pipe", "pipe"] });
	let stdout = "";
	let stderr = "";
	child.stdout?.on("data", (data: Buffer) => (stdout += data.toString("utf8")));
	child.stderr?.on("data", (data: Buffer) => (stderr += data.toString("utf8")));
	const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
	const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
		child.on("close", (code, signal) => {
			clearTimeout(timer);
			resolve({ code, signal, stdout, stderr });
		});
	});
	return { child, done };
}

/** Run `cadre <args>` to its end. */
export function cadre(world: RunWorld, args: string[], options: { cwd?: string; timeoutMs?: number } = {}) {
	return startCadre(world, args, options).done;
}

/** `git <args>` in `cwd`, its stdout (throws on failure). */
export function gitOut(cwd: string, args: string[]): string {
	return git(cwd, args);
}

/** The run records `cadre run` wrote (`<agentDir>/cadre/transcripts/<id>.run.json`). */
export function runRecords(agentDir: string): Record<string, unknown>[] {
	const dir = join(agentDir, "cadre", "transcripts");
	if (!existsSync(dir)) return [];
	return readdirSync(dir)
		.filter((name) => name.endsWith(".run.json"))
		.map((name) => JSON.parse(readFileSync(join(dir, name), "utf8")) as Record<string, unknown>);
}
