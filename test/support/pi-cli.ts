/**
 * The real `pi` command line for tests, offline: a temporary world (HOME, agent directory with the
 * faux provider's key, project) and the command that runs pi there with cadre and a fixture
 * extension from `test/pi/fixtures` that registers the scripted faux model.
 */
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./cli.ts";

const piBin = join(REPO_ROOT, "node_modules", ".bin", "pi");

/** A temporary HOME, agent directory and project for pi runs. */
export interface PiWorld {
	root: string;
	agentDir: string;
	project: string;
}

/** Options of one pi run. */
export interface PiRunOptions {
	/** The fixture extension in `test/pi/fixtures`. */
	fixture: string;
	prompt: string;
	/** pi flags before `-e`. */
	flags?: string[];
	env?: Record<string, string>;
	/** Milliseconds before a synchronous run is killed (default 60 s). */
	timeout?: number;
}

/** A temporary HOME, agent dir (with the faux provider's key) and project for one pi run. */
export function piWorld(prefix: string): PiWorld {
	const root = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", prefix));
	const agentDir = join(root, "agent");
	const project = join(root, "project");
	for (const dir of [join(root, "home"), agentDir, project]) mkdirSync(dir, { recursive: true });
	writeFileSync(join(agentDir, "auth.json"), JSON.stringify({ faux: { type: "api_key", key: "offline" } }));
	return { root, agentDir, project };
}

/** The binary, arguments and spawn options of `pi` in the world's project, offline, with cadre and the fixture model. */
export function piCommand(world: PiWorld, options: PiRunOptions): { bin: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv } {
	const fixture = join(REPO_ROOT, "test/pi/fixtures", options.fixture);
	const args = [...(options.flags ?? []), "-e", REPO_ROOT, "-e", fixture, "--model", "faux/scripted", "-p", options.prompt];
	const env = {
		...process.env,
		HOME: join(world.root, "home"),
		PI_CODING_AGENT_DIR: world.agentDir,
		PI_OFFLINE: "1",
		PI_TELEMETRY: "0",
		PATH: `${join(REPO_ROOT, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
		...options.env,
	};
	return { bin: piBin, args, cwd: world.project, env };
}

/** Runs the real `pi` in the world's project and waits for it. */
export function runPi(world: PiWorld, options: PiRunOptions): SpawnSyncReturns<string> {
	const command = piCommand(world, options);
	return spawnSync(command.bin, command.args, { cwd: command.cwd, env: command.env, encoding: "utf8", timeout: options.timeout ?? 60_000 });
}
