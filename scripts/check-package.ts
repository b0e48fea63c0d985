/**
 * `npm run check:package` (CI, after the tests): the npm package as a user gets it. Packs the
 * repository (`prepack` builds), then, in a temporary directory with its own HOME and pi agent dir,
 * offline:
 *
 * 1. the tarball holds every entry package.json names and no TypeScript sources;
 * 2. `pi install npm:cadre` — pi's own npm install, served the tarball for the name `cadre`;
 * 3. that install, which has no pi packages (pi installs packages without their peers), runs the
 *    CLI: `--version`, `list --json`, `check` on a project with one bad file (exit 1, positioned
 *    diagnostic), `explain`, which says it needs pi's packages, and `import --dry-run`, which
 *    keeps a model name it cannot resolve;
 * 4. the real `pi` loads the installed package — the three tools and `/subagents` come from it —
 *    and a scripted faux model completes one foreground spawn;
 * 5. `npm install -g` of the tarball, without its peers, below a node_modules holding pi's packages
 *    (where a global pi sits for a global cadre): `explain`, `prompt`, `worktrees` and `import` run,
 *    on an older Node `list` runs and `explain` says which version it needs, and an extension type-checks against the
 *    package's typed entry (`import type { CadreService } from "cadre"`);
 * 6. the README's install section as written, pi included, in a fresh prefix and HOME
 *    (scripts/check-install.ts): `cadre list` on Node 20 and 22, `pi install`, one spawn.
 *
 * Every failure names the step and shows the command's output. See ADR 0003.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkSteps, olderNode, type Run } from "./check-steps.ts";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(repo, "node_modules", ".bin");
const manifest = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as {
	version: string;
	bin: Record<string, string>;
	exports: Record<string, string | Record<string, string>>;
	pi: { extensions: string[] };
};
const work = realpathSync(mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "cadre-package-")));
const started = Date.now();

/** The environment of every command: this directory's HOME and agent dir, offline, npm's cache kept. */
const env: NodeJS.ProcessEnv = {
	...process.env,
	HOME: join(work, "home"),
	PI_CODING_AGENT_DIR: join(work, "agent"),
	PI_OFFLINE: "1",
	PI_TELEMETRY: "0",
	NO_COLOR: "1",
	PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`,
	npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? tmpdir(), ".npm"),
	npm_config_prefer_offline: "true",
	npm_config_update_notifier: "false",
	npm_config_audit: "false",
	npm_config_fund: "false",
};


const steps = checkSteps("check:package", () => work);
const fail: (step: string, message: string, run?: Run) => never = steps.fail;
const { expectMatch, step } = steps;

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Run {
	const result = spawnSync(command, args, { cwd: options.cwd ?? work, env: options.env ?? env, encoding: "utf8", timeout: 120_000, maxBuffer: 64 << 20 });
	if (result.error) fail(`${command} ${args.join(" ")}`, result.error.message);
	return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs and requires the exit code; returns the run. */
function expectExit(step: string, code: number, command: string, args: string[], options?: Parameters<typeof run>[2]): Run {
	const result = run(command, args, options);
	if (result.code !== code) fail(step, `expected exit ${code} from ${command} ${args.join(" ")}`, result);
	return result;
}



function write(path: string, text: string): void {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, text);
}

/** Every path package.json points at: bin, exports and pi's extension entries. */
function entryPaths(): string[] {
	const exported = Object.values(manifest.exports).flatMap((value) => (typeof value === "string" ? [value] : Object.values(value)));
	return [...Object.values(manifest.bin), ...exported, ...manifest.pi.extensions].map((path) => path.replace(/^\.\//, ""));
}

let tarball = "";

step("npm pack (prepack builds)", () => {
	const packed = expectExit("npm pack", 0, "npm", ["pack", "--json", "--pack-destination", work], { cwd: repo });
	const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as { filename: string; files: { path: string }[] }[];
	if (!info) fail("npm pack", "no tarball reported", packed);
	tarball = join(work, info.filename);
	const files = info.files.map((file) => file.path);
	const sources = files.filter((path) => path.endsWith(".ts") && !path.endsWith(".d.ts"));
	if (sources.length > 0) {
		const named = sources.slice(0, 3).join(", ") + (sources.length > 3 ? ` and ${sources.length - 3} more` : "");
		fail("package contents", `TypeScript sources in the package (Node does not strip types under node_modules): ${named}`);
	}
	for (const entry of entryPaths()) {
		if (!files.some((path) => path === entry || path.startsWith(`${entry}/`))) fail("package contents", `package.json points at ${entry}, which is not in the package (files?)`);
	}
});

const agentDir = join(work, "agent");
const installed = join(agentDir, "npm", "node_modules", "cadre");
const project = join(work, "project");

step("pi install npm:cadre (pi's npm install, served the tarball)", () => {
	const npm = join(work, "npm-from-tarball");
	write(npm, `#!/usr/bin/env bash\nargs=()\nfor arg in "$@"; do if [ "$arg" = cadre ]; then args+=(${JSON.stringify(tarball)}); else args+=("$arg"); fi; done\nexec npm "\${args[@]}"\n`);
	chmodSync(npm, 0o755);
	write(join(agentDir, "settings.json"), JSON.stringify({ npmCommand: [npm] }));
	write(join(agentDir, "auth.json"), JSON.stringify({ faux: { type: "api_key", key: "offline" } }));
	mkdirSync(join(work, "home"), { recursive: true });
	expectExit("pi install npm:cadre", 0, join(bin, "pi"), ["install", "npm:cadre"]);
	if (!existsSync(join(installed, "package.json"))) fail("pi install npm:cadre", `nothing installed at ${installed}`);
	if (existsSync(join(agentDir, "npm", "node_modules", "@earendil-works"))) fail("pi install npm:cadre", "pi installed its own packages next to cadre; the CLI-alone checks need them absent");
});

step("the CLI without pi's packages: --version, list, check, explain, import", () => {
	write(join(project, ".pi", "agents", "scout.md"), "---\ndescription: Finds where things are\ntools: read, grep\n---\nReport file paths.\n");
	write(join(project, ".pi", "agents", "bad.md"), "---\ndescription: A typo\ntoolz: read\n---\nBody.\n");
	write(join(project, "notes.txt"), "hello from the installed package\n");
	expectExit("git init", 0, "git", ["init", "-q", project]);
	const cadre = join(agentDir, "npm", "node_modules", ".bin", "cadre");
	const version = expectExit("cadre --version", 0, cadre, ["--version"]);
	if (version.stdout.trim() !== manifest.version) fail("cadre --version", `expected ${manifest.version}`, version);
	const list = expectExit("cadre list --json", 0, cadre, ["list", "--json", "--cwd", project]);
	const names = (JSON.parse(list.stdout) as { entries: { name: string }[] }).entries.map((entry) => entry.name);
	for (const name of ["general-purpose", "explore", "plan", "scout"]) if (!names.includes(name)) fail("cadre list --json", `${name} is not listed`, list);
	const check = expectExit("cadre check", 1, cadre, ["check", "--cwd", project]);
	expectMatch("cadre check", check.stdout, /^\.pi\/agents\/bad\.md:3:1 error unknown-key /m, check);
	const explain = expectExit("cadre explain (no pi)", 2, cadre, ["explain", "scout", "--cwd", project]);
	expectMatch("cadre explain (no pi)", explain.stderr, /explain needs pi's packages/, explain);
	write(join(project, ".claude", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews\ntools: Read, Grep\nmodel: sonnet\n---\nReview.\n");
	const imported = expectExit("cadre import (no pi)", 0, cadre, ["import", "--from", "claude", "--cwd", project, "--dry-run"]);
	expectMatch("cadre import (no pi)", imported.stdout, /would create {2}\.pi\/agents\/reviewer\.md/, imported);
	expectMatch("cadre import (no pi)", imported.stdout, /model: sonnet — kept as written: pi's packages are not installed here/, imported);
});

step("pi loads the installed package: tools, /subagents, one foreground spawn", () => {
	const probe = join(work, "probe.ts");
	const seen = join(work, "probe.jsonl");
	write(
		probe,
		`import { appendFileSync } from "node:fs";\nexport default function (pi) {\n\tpi.on("session_start", () => {\n\t\tconst tools = pi.getAllTools().map((t) => [t.name, t.sourceInfo?.path]);\n\t\tconst commands = pi.getCommands().map((c) => [c.name, c.sourceInfo?.path]);\n\t\tappendFileSync(${JSON.stringify(seen)}, JSON.stringify({ tools, commands }) + "\\n");\n\t});\n}\n`,
	);
	const model = join(repo, "test", "pi", "fixtures", "scripted-model.ts");
	const pi = expectExit("pi -p", 0, join(bin, "pi"), ["-e", probe, "-e", model, "--model", "faux/scripted", "-p", "read the notes with a sub-agent"], { cwd: project });
	expectMatch("pi -p", pi.stdout, /RESULT: The notes say: hello from the installed package/, pi);
	if (!existsSync(seen)) fail("pi -p", "the probe extension saw no session", pi);
	const parent = JSON.parse(readFileSync(seen, "utf8").split("\n")[0] as string) as { tools: [string, string][]; commands: [string, string][] };
	const fromPackage = (entries: [string, string][], name: string) => entries.some(([n, path]) => n === name && path?.startsWith(`${installed}/extension/index.js`));
	for (const tool of ["subagent", "get_subagent_result", "steer_subagent"]) {
		if (!fromPackage(parent.tools, tool)) fail("pi -p", `tool ${tool} is not registered by ${installed}/extension/index.js: ${JSON.stringify(parent.tools)}`);
	}
	if (!fromPackage(parent.commands, "subagents")) fail("pi -p", `/subagents is not registered by the package: ${JSON.stringify(parent.commands)}`);
});

const withPi = join(work, "with-pi");
const globalPrefix = join(withPi, "global");

step("npm install -g next to pi's packages: explain, prompt, worktrees, import, typed entry", () => {
	// pi's packages in a node_modules above the global prefix, as a global pi sits next to a global cadre.
	mkdirSync(withPi, { recursive: true });
	symlinkSync(join(repo, "node_modules"), join(withPi, "node_modules"));
	// --legacy-peer-deps: npm would otherwise install pi's packages (the peers) inside cadre's own directory.
	expectExit("npm install -g", 0, "npm", ["install", "-g", "--prefix", globalPrefix, "--legacy-peer-deps", "--prefer-offline", tarball]);
	const cadre = join(globalPrefix, "bin", "cadre");
	write(join(agentDir, "models.json"), JSON.stringify({ providers: { test: { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "none", models: [{ id: "parent-model", reasoning: true }] } } }));
	const explain = expectExit("cadre explain", 0, cadre, ["explain", "scout", "--cwd", project, "--parent-model", "test/parent-model"]);
	expectMatch("cadre explain", explain.stdout, /scout/, explain);
	const prompt = expectExit("cadre prompt", 0, cadre, ["prompt", "scout", "--cwd", project, "--parent-model", "test/parent-model"]);
	expectMatch("cadre prompt", prompt.stdout, /Report file paths\./, prompt);
	expectExit("cadre worktrees list", 0, cadre, ["worktrees", "list", "--cwd", project]);
	const imported = expectExit("cadre import", 0, cadre, ["import", "--from", "claude", "--cwd", project]);
	expectMatch("cadre import", imported.stdout, /created {2}\.pi\/agents\/reviewer\.md/, imported);
	// check still fails on bad.md, never on the imported file.
	const checked = expectExit("cadre check after import", 1, cadre, ["check", "--cwd", project]);
	if (/^\.pi\/agents\/reviewer\.md:\d+:\d+ error /m.test(checked.stdout)) fail("cadre check after import", "the imported file has an error", checked);
	const old = olderNode();
	if (old) {
		// list runs on Node 20; a command that loads pi says which Node it needs (ADR 0101).
		const installedBin = join(globalPrefix, "lib", "node_modules", "cadre", "bin", "cadre.js");
		expectExit("cadre list on an older Node", 0, old, [installedBin, "list", "--cwd", project]);
		const refused = expectExit("cadre explain on an older Node", 2, old, [installedBin, "explain", "scout", "--cwd", project]);
		expectMatch("cadre explain on an older Node", refused.stderr, /^cadre explain loads pi, which needs Node >= 22\.19 .*Install Node 22\.19 or newer/, refused);
	}
	const consumer = join(withPi, "consumer");
	write(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
	mkdirSync(join(consumer, "node_modules"), { recursive: true });
	symlinkSync(join(globalPrefix, "lib", "node_modules", "cadre"), join(consumer, "node_modules", "cadre"));
	write(
		join(consumer, "tsconfig.json"),
		JSON.stringify({ compilerOptions: { target: "ES2023", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ["ext.ts"] }),
	);
	write(
		join(consumer, "ext.ts"),
		[
			'import type { CadreEvents, CadreService, RunResult } from "cadre";',
			"export async function use(cadre: CadreService): Promise<string> {",
			'\tconst { done } = await cadre.spawn({ prompt: "p", description: "d", subagent_type: "explore" });',
			"\tconst result: RunResult = await done;",
			'\tconst completed = {} as CadreEvents["cadre:completed"];',
			"\t// @ts-expect-error a run's status is a RunState, never a number",
			"\tconst wrong: number = result.status;",
			"\treturn `${completed.usage.input} ${wrong}`;",
			"}",
		].join("\n"),
	);
	expectExit("typed entry (tsc)", 0, join(bin, "tsc"), ["-p", consumer]);
});


step("the README's install section as written (scripts/check-install.ts)", () => {
	const install = spawnSync(process.execPath, [join(repo, "scripts", "check-install.ts"), tarball], { cwd: repo, stdio: "inherit", timeout: 600_000 });
	if (install.status !== 0) fail("check-install", `scripts/check-install.ts exited ${install.status}`);
});

unlinkSync(join(withPi, "node_modules")); // the link to the repository's node_modules, before removing the rest
rmSync(work, { recursive: true, force: true });
process.stdout.write(`check:package passed in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
