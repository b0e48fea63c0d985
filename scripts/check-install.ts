/**
 * The README's install section, run as written (issue 19, ADR 0101): called by
 * `scripts/check-package.ts` with the packed tarball (`node scripts/check-install.ts TARBALL`), in a
 * fresh npm prefix and a fresh HOME (no `PI_CODING_AGENT_DIR`: pi's default `~/.pi/agent`), offline
 * for pi, npm served from its cache:
 *
 * 1. `npm install -g @earendil-works/pi-coding-agent@1` — pi itself, on PATH as `pi`;
 * 2. `npm install -g ./cadre-*.tgz`;
 * 3. `pi install "$(npm root -g)/cadre"`;
 * 4. `cadre list` on Node 20 (when the machine has one) and on Node 22, `cadre explain` on Node 20
 *    says it needs 22.19;
 * 5. one spawn: the real `pi -p` with the installed cadre extension, a scripted faux model
 *    delegating to an `explore` child that reads a file, and the child's answer in the output.
 *
 * Every failure names the step and shows the command's output.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkSteps, olderNode, type Run } from "./check-steps.ts";

const tarball = process.argv[2];
if (!tarball || !existsSync(tarball)) {
	process.stderr.write("usage: node scripts/check-install.ts CADRE_TARBALL\n");
	process.exit(2);
}
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const work = realpathSync(mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "cadre-install-")));
const prefix = join(work, "prefix");
const home = join(work, "home");
const project = join(work, "project");
const started = Date.now();
/** pi needs Node >= 22.19: this script runs on it (an npm script), so its directory goes first. */
const node22 = dirname(process.execPath);

/** As a user's shell: the fresh HOME and prefix, the prefix's bin first; no agent dir of ours. */
const env: NodeJS.ProcessEnv = {
	...process.env,
	HOME: home,
	PI_CODING_AGENT_DIR: undefined,
	PI_OFFLINE: "1",
	PI_TELEMETRY: "0",
	NO_COLOR: "1",
	npm_config_prefix: prefix,
	PATH: [join(prefix, "bin"), node22, ...(process.env.PATH ?? "").split(delimiter).filter((dir) => !dir.includes("node_modules"))].join(delimiter),
	npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? tmpdir(), ".npm"),
	npm_config_prefer_offline: "true",
	npm_config_update_notifier: "false",
	npm_config_audit: "false",
	npm_config_fund: "false",
};
delete env.PI_CODING_AGENT_DIR;


const steps = checkSteps("check:install", () => work);
const fail: (step: string, message: string, run?: Run) => never = steps.fail;
const { expectMatch, step } = steps;

function expectExit(step: string, code: number, command: string, args: string[], cwd = work): Run {
	const result = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: 300_000, maxBuffer: 64 << 20 });
	if (result.error) fail(step, result.error.message);
	const done = { code: result.status, stdout: result.stdout, stderr: result.stderr };
	if (done.code !== code) fail(step, `expected exit ${code} from ${command} ${args.join(" ")}`, done);
	return done;
}




for (const dir of [prefix, home, project]) mkdirSync(dir, { recursive: true });
const piVersion = (JSON.parse(spawnSync("npm", ["pkg", "get", "devDependencies"], { cwd: repo, encoding: "utf8" }).stdout) as Record<string, string>)["@earendil-works/pi-coding-agent"];

step("npm install -g @earendil-works/pi-coding-agent (pi itself)", () => {
	// The README says `@1`; the check pins the version the repository tests with (in npm's cache).
	expectExit("npm install -g pi", 0, "npm", ["install", "-g", `@earendil-works/pi-coding-agent@${piVersion ?? "1"}`]);
	if (!existsSync(join(prefix, "bin", "pi"))) fail("npm install -g pi", `no pi in ${join(prefix, "bin")}`);
});

step("npm install -g ./cadre-*.tgz", () => {
	expectExit("npm install -g cadre", 0, "npm", ["install", "-g", tarball]);
});

const cadre = join(prefix, "bin", "cadre");
step('pi install "$(npm root -g)/cadre"', () => {
	const root = expectExit("npm root -g", 0, "npm", ["root", "-g"]).stdout.trim();
	expectExit("pi install", 0, "pi", ["install", join(root, "cadre")]);
});

step("cadre list on Node 22 and Node 20; explain on Node 20 says what it needs", () => {
	const list = expectExit("cadre list", 0, cadre, ["list"], project);
	expectMatch("cadre list", list.stdout, /general-purpose/, list);
	const old = olderNode();
	if (!old) {
		process.stdout.write("    (no Node older than 22.19 on PATH: the Node 20 checks are skipped)\n");
		return;
	}
	const oldList = expectExit("cadre list (Node 20)", 0, old, [cadre, "list"], project);
	expectMatch("cadre list (Node 20)", oldList.stdout, /general-purpose/, oldList);
	expectExit("cadre check (Node 20)", 0, old, [cadre, "check"], project);
	const explain = expectExit("cadre explain (Node 20)", 2, old, [cadre, "explain", "explore"], project);
	expectMatch("cadre explain (Node 20)", explain.stderr, /cadre explain loads pi, which needs Node >= 22\.19/, explain);
});

step("one spawn: pi -p with the installed cadre delegates to explore and reports its answer", () => {
	writeFileSync(join(project, "notes.txt"), "hello from the README install\n");
	mkdirSync(join(home, ".pi", "agent"), { recursive: true });
	writeFileSync(join(home, ".pi", "agent", "auth.json"), JSON.stringify({ faux: { type: "api_key", key: "offline" } }));
	const model = join(repo, "test", "pi", "fixtures", "scripted-model.ts");
	const pi = expectExit("pi -p", 0, "pi", ["-e", model, "--model", "faux/scripted", "-p", "read the notes with a sub-agent"], project);
	expectMatch("pi -p", pi.stdout, /RESULT: The notes say: hello from the README install/, pi);
});

rmSync(work, { recursive: true, force: true });
process.stdout.write(`check:install passed in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
