/**
 * The `cadre` command where it is installed rather than checked out: on a Node older than pi
 * needs, a checkout says which version it needs, an installed package runs list/check/import and
 * refuses only the commands that load pi, naming the version (ADR 0101),
 * and without pi's packages `list`, `check` and `worktrees` still run while `explain` and `prompt`
 * say they need pi. The packed package itself is exercised by `npm run check:package` (in CI).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { CADRE_BIN, nodeBinary, REPO_ROOT, runCli } from "../support/cli.ts";

/** A `node` on PATH older than 22.19 (machines have Node 20 there), or null. */
function oldNode(): string | null {
	for (const dir of (process.env.PATH ?? "").split(delimiter)) {
		if (!dir || dir.includes("node_modules")) continue;
		const candidate = join(dir, "node");
		if (!existsSync(candidate)) continue;
		const version = execFileSync(candidate, ["--version"], { encoding: "utf8" }).trim().slice(1);
		const [major = 0, minor = 0] = version.split(".").map(Number);
		if (major < 22 || (major === 22 && minor < 19)) return candidate;
	}
	return null;
}

describe("on an older Node", () => {
	const node = oldNode();

	it("in the repository: names the version and points at npx, which brings the repository's Node", (context) => {
		if (!node) context.skip("no Node older than 22.19 on PATH");
		const run = spawnSync(node as string, [CADRE_BIN, "list"], { encoding: "utf8" });
		expect(run.status).toBe(2);
		expect(run.stderr).toMatch(/^cadre needs Node >= 22\.19 \(this is \d+\.\d+\.\d+\)\./);
		expect(run.stderr).toContain("npx cadre");
	});

	it("installed from the package: a command that loads pi names the version it needs and says to install it, never 'inside the repository'", (context) => {
		if (!node) context.skip("no Node older than 22.19 on PATH");
		const pkg = mkdtempSync(join(process.env.TMPDIR as string, "installed-"));
		mkdirSync(join(pkg, "bin"));
		copyFileSync(CADRE_BIN, join(pkg, "bin", "cadre.js"));
		writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "cadre", type: "module" }));
		for (const command of ["explain", "prompt", "run"]) {
			const run = spawnSync(node as string, [join(pkg, "bin", "cadre.js"), command, "explore"], { encoding: "utf8" });
			expect(run.status).toBe(2);
			expect(run.stderr).toMatch(new RegExp(`^cadre ${command} loads pi, which needs Node >= 22\\.19 \\(this is \\d+\\.\\d+\\.\\d+\\)\\.`));
			expect(run.stderr).toContain("Install Node 22.19 or newer");
			expect(run.stderr).not.toMatch(/repository|npx/);
		}
	});

	it("installed from the package: list, check and import are not refused for the Node version (they never load pi)", (context) => {
		if (!node) context.skip("no Node older than 22.19 on PATH");
		const pkg = mkdtempSync(join(process.env.TMPDIR as string, "installed-"));
		mkdirSync(join(pkg, "bin"));
		mkdirSync(join(pkg, "dist", "hosts", "cli"), { recursive: true });
		copyFileSync(CADRE_BIN, join(pkg, "bin", "cadre.js"));
		writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "cadre", type: "module" }));
		// A stand-in for the build: the real one runs on Node 20 in npm run check:package.
		writeFileSync(join(pkg, "dist", "hosts", "cli", "main.js"), "export async function main(args) { process.stdout.write(`ran ${args[0]}\\n`); return 0; }\n");
		for (const command of ["list", "check", "import"]) {
			const run = spawnSync(node as string, [join(pkg, "bin", "cadre.js"), command], { encoding: "utf8" });
			expect(run.stderr).toBe("");
			expect(run).toMatchObject({ status: 0, stdout: `ran ${command}\n` });
		}
	});
});

describe("without pi's packages", () => {
	/** A resolve hook that answers `@earendil-works/*` as Node does when the package is not installed. */
	function withoutPi(): string[] {
		const dir = mkdtempSync(join(process.env.TMPDIR as string, "no-pi-"));
		const hook = join(dir, "no-pi.mjs");
		writeFileSync(
			hook,
			[
				'import { registerHooks } from "node:module";',
				"registerHooks({ resolve(specifier, context, next) {",
				'  if (!specifier.startsWith("@earendil-works/")) return next(specifier, context);',
				"  const error = new Error(`Cannot find package '${specifier}' imported from ${context.parentURL}`);",
				'  error.code = "ERR_MODULE_NOT_FOUND";',
				"  throw error;",
				"} });",
			].join("\n"),
		);
		return ["--import", hook];
	}

	function project(): { cwd: string; env: Record<string, string> } {
		const root = mkdtempSync(join(process.env.TMPDIR as string, "no-pi-project-"));
		for (const dir of ["project/.pi/agents", "home", "agent"]) mkdirSync(join(root, dir), { recursive: true });
		writeFileSync(join(root, "project/.pi/agents/scout.md"), "---\ndescription: Finds things\n---\nFind things.\n");
		execFileSync("git", ["init", "-q", join(root, "project")]);
		return { cwd: join(root, "project"), env: { HOME: join(root, "home"), PI_CODING_AGENT_DIR: join(root, "agent") } };
	}

	it("the hook does hide pi (control)", () => {
		const run = spawnSync(nodeBinary(), [...withoutPi(), "--input-type=module", "-e", 'await import("@earendil-works/pi-coding-agent")'], {
			encoding: "utf8",
			cwd: REPO_ROOT,
		});
		expect(run.status).not.toBe(0);
		expect(run.stderr).toContain("ERR_MODULE_NOT_FOUND");
	});

	it("list, check and worktrees list still run", () => {
		const p = project();
		for (const args of [["list"], ["check"], ["worktrees", "list"]]) {
			const run = runCli([...args, "--cwd", p.cwd], { nodeArgs: withoutPi(), env: p.env });
			expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(0);
		}
		expect(runCli(["list", "--cwd", p.cwd], { nodeArgs: withoutPi(), env: p.env }).stdout).toContain("scout");
	});

	it("explain, prompt and run say they need pi's packages and how to get them (exit 2)", () => {
		const p = project();
		for (const command of ["explain", "prompt", "run"]) {
			const run = runCli([command, "scout", "--cwd", p.cwd], { nodeArgs: withoutPi(), env: p.env });
			expect(run.code).toBe(2);
			expect(run.stderr).toContain(`cadre: ${command} needs pi's packages (@earendil-works/pi-coding-agent >=1.6.0 <2)`);
			expect(run.stderr).toMatch(/npm install/);
			expect(run.stderr).not.toMatch(/\n\s+at /);
		}
	});
});
