/**
 * Runs the real `bin/cadre.js` in a child process, the way a user does: arguments, environment
 * and working directory in; stdout, stderr and exit code out. Shared by every CLI test.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CliIo } from "../../src/hosts/cli/io.ts";
import { main } from "../../src/hosts/cli/main.ts";

/** The repository root (this file is `test/support/cli.ts`). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The `cadre` bin. */
export const CADRE_BIN = join(REPO_ROOT, "bin", "cadre.js");

export interface RunCliOptions {
	/** Working directory of the process (default: the test's temporary directory). */
	cwd?: string;
	/** Environment variables added to (or, when undefined, removed from) the test's environment. */
	env?: Record<string, string | undefined>;
	/** Extra Node flags before the script, e.g. `["--import", hook]`. */
	nodeArgs?: string[];
	/** Text written to the process's stdin. */
	input?: string;
	/** Milliseconds before the process is killed (default 30 s). */
	timeout?: number;
}

export interface CliRun {
	stdout: string;
	stderr: string;
	/** The exit code; null when the process was killed by a signal. */
	code: number | null;
}

/** A Node that can run cadre (>= 22.19): this process's if new enough, else the repo's devDependency. */
export function nodeBinary(): string {
	const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
	if (major > 22 || (major === 22 && minor >= 19)) return process.execPath;
	const local = join(REPO_ROOT, "node_modules", ".bin", "node");
	return existsSync(local) ? local : process.execPath;
}

/** Runs `cadre <args>` and waits for it to finish. */
export function runCli(args: string[], options: RunCliOptions = {}): CliRun {
	const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
	for (const [key, value] of Object.entries(options.env ?? {})) {
		if (value === undefined) delete env[key];
		else env[key] = value;
	}
	const result = spawnSync(nodeBinary(), [...(options.nodeArgs ?? []), CADRE_BIN, ...args], {
		cwd: options.cwd ?? process.env.TMPDIR,
		env,
		input: options.input,
		encoding: "utf8",
		timeout: options.timeout ?? 30_000,
	});
	if (result.error) throw result.error;
	return { stdout: result.stdout, stderr: result.stderr, code: result.status };
}

/** Runs `cadre <args> --json` and parses stdout (throws with stderr when it is not JSON). */
export function runCliJson<T = unknown>(args: string[], options: RunCliOptions = {}): CliRun & { json: T } {
	const run = runCli([...args, "--json"], options);
	try {
		return { ...run, json: JSON.parse(run.stdout) as T };
	} catch {
		throw new Error(`cadre ${args.join(" ")} --json did not print JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
	}
}

/**
 * A catalog for {@link cliTree}: one offline `test` provider (an address nothing listens on, never
 * reached by `explain` or `check`) whose models all reason.
 */
export function testModels(ids: readonly string[] = ["model-a", "model-b", "parent-model"]): unknown {
	return { providers: { test: { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "none", models: ids.map((id) => ({ id, reasoning: true })) } } };
}

/** A temp tree with `agent/models.json` (the given catalog), `home/` and `project/`, plus the given files. */
export function cliTree(prefix: string, models: unknown, files: Record<string, string> = {}): string {
	const root = mkdtempSync(join(process.env.TMPDIR as string, prefix));
	const all: Record<string, string> = { "agent/models.json": JSON.stringify(models), ...files };
	for (const [path, text] of Object.entries(all)) {
		mkdirSync(dirname(join(root, path)), { recursive: true });
		writeFileSync(join(root, path), text);
	}
	mkdirSync(join(root, "project"), { recursive: true });
	mkdirSync(join(root, "home"), { recursive: true });
	return root;
}

/** Runs `cadre <args>` in-process (`main`) over a {@link cliTree}, from its `project/`, capturing both streams. */
export async function cadreInTree(
	root: string,
	args: string[],
	tty: { isTty: boolean; env?: NodeJS.ProcessEnv } = { isTty: false },
): Promise<{ code: number; out: string; err: string }> {
	let out = "";
	let err = "";
	const io: CliIo = {
		out: (text) => void (out += text),
		err: (text) => void (err += text),
		isTty: tty.isTty,
		env: { ...process.env, NO_COLOR: undefined, ...tty.env, PI_CODING_AGENT_DIR: join(root, "agent"), HOME: join(root, "home") },
		cwd: join(root, "project"),
	};
	const code = await main(args, io);
	return { code, out, err };
}
