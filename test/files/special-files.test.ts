/**
 * Only regular files are read, never blocking and never past a size limit (ADR 0060): devices,
 * FIFOs and huge (sparse) files are refused quickly with bounded memory, each with a positioned
 * diagnostic; `maxFileBytes` raises the limit from user settings or a trusted project only.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_FILE_BYTES, readConfined } from "../../src/files/read-confined.ts";
import { layout, where } from "./fixture.ts";
import { loadIsolated } from "./support/isolated.ts";

const posix = process.platform !== "win32";

function mkfifo(path: string): void {
	execFileSync("mkfifo", [path]);
}

describe.runIf(posix)("devices, FIFOs and huge files", () => {
	it("refuses each one quickly, with bounded memory and a positioned diagnostic", () => {
		const l = layout({
			"project/.pi/agents/plan.md": "---\ndescription: Plans\n---\nPlan.\n",
			"project/.pi/roles/plan.md": "---\nprompt_file: ../texts/fifo.md\n---\nRole body.\n",
			"project/.pi/personas/big.md": "---\ninstructions_file: ../texts/huge.md\n---\nBe big.\n",
			"agent/agents/ok.md": "---\ndescription: Fine\n---\nFine.\n",
		});
		const pi = join(l.project, ".pi");
		mkdirSync(join(pi, "texts"), { recursive: true });
		mkdirSync(join(l.agent, "roles"), { recursive: true });
		mkdirSync(join(l.agent, "personas"), { recursive: true });
		symlinkSync("/dev/zero", join(pi, "agents/zero.md"));
		symlinkSync("/dev/zero", join(pi, "subagents.json"));
		mkfifo(join(pi, "agents/pipe.md"));
		mkfifo(join(pi, "texts/fifo.md"));
		writeFileSync(join(pi, "texts/huge.md"), "");
		truncateSync(join(pi, "texts/huge.md"), 2 * 1024 ** 3);
		writeFileSync(join(pi, "personas/sparse.md"), "");
		truncateSync(join(pi, "personas/sparse.md"), 2 * 1024 ** 3);
		// The user's scope follows symlinks, so a device there is refused by its type.
		symlinkSync("/dev/zero", join(l.agent, "agents/zero.md"));
		symlinkSync("/dev/urandom", join(l.agent, "roles/ok.md"));
		symlinkSync("/dev/zero", join(l.agent, "subagents.json"));
		mkfifo(join(l.agent, "personas/pipe.md"));

		const r = loadIsolated({ cwd: l.project, agentDir: l.agent, homeDir: l.home, projectTrusted: false });
		const a = (p: string) => join(l.agent, p);
		expect(r.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.severity} ${d.code}`)).toEqual([
			".pi/agents/pipe.md:1:1 error not-a-file",
			".pi/agents/zero.md:1:1 error path-escape",
			".pi/personas/big.md:2:20 error file-too-large",
			".pi/personas/sparse.md:1:1 error file-too-large",
			".pi/roles/plan.md:2:14 warning not-a-file",
			".pi/subagents.json:1:1 error path-escape",
			`${a("agents/zero.md")}:1:1 error not-a-file`,
			`${a("personas/pipe.md")}:1:1 error not-a-file`,
			`${a("roles/ok.md")}:1:1 error not-a-file`,
			`${a("subagents.json")}:1:1 error not-a-file`,
		]);
		const byCode = Object.fromEntries(r.diagnostics.map((d) => [`${d.file}`, d]));
		expect(byCode[".pi/agents/pipe.md"]?.message).toMatch(/FIFO/);
		expect(byCode[a("agents/zero.md")]?.message).toMatch(/device/);
		expect(byCode[".pi/personas/sparse.md"]?.message).toMatch(/2\.0 GiB.*1\.0 MiB|1\.0 MiB.*2\.0 GiB/);
		expect(r.entries.map((e) => `${e.kind}:${e.name}`)).toEqual([
			"definition:explore",
			"definition:general-purpose",
			"definition:ok",
			"definition:plan",
			"role:plan",
			"persona:big",
		]);
		// At spawn time the files are read again, through the same checks.
		expect(r.reads.map((x) => `${x.written} ${x.read.ok ? "ok" : x.read.code}`)).toEqual([
			"../texts/fifo.md not-a-file",
			"../texts/huge.md file-too-large",
		]);
	});
});

describe("the size limit", () => {
	const BIG = DEFAULT_MAX_FILE_BYTES + 1;
	const big = (extra: Record<string, string> = {}) =>
		layout({ "project/.pi/agents/big.md": `---\ndescription: Big\n---\n${"x".repeat(BIG - 26)}\n`, ...extra });

	it("is 1 MiB per file by default", () => {
		const l = big();
		const r = l.load();
		expect(where(r)).toEqual([".pi/agents/big.md:1:1 file-too-large"]);
		expect(r.definitions.has("big")).toBe(false);
		expect(r.diagnostics[0]?.hint).toContain("maxFileBytes");
	});

	it("is raised by user settings", () => {
		const l = big({ "agent/subagents.json": '{"maxFileBytes": 4194304}' });
		const r = l.load();
		expect(r.diagnostics).toEqual([]);
		expect(r.definitions.get("big")?.keys.description?.value).toBe("Big");
		expect(r.settings.maxFileBytes).toBe(4194304);
	});

	it("is not raised by an untrusted project, and is by a trusted one", () => {
		const l = big({ "project/.pi/subagents.json": '{\n  "maxFileBytes": 4194304\n}' });
		const untrusted = l.load();
		expect(where(untrusted)).toEqual([".pi/agents/big.md:1:1 file-too-large", ".pi/subagents.json:2:3 untrusted-setting"]);
		expect(untrusted.settings.maxFileBytes).toBe(DEFAULT_MAX_FILE_BYTES);
		const trusted = l.load({ projectTrusted: true });
		expect(trusted.diagnostics).toEqual([]);
		expect(trusted.definitions.has("big")).toBe(true);
	});

	it("may be lowered by any project, and rejects a value that is not a byte count", () => {
		const l = layout({
			"project/.pi/subagents.json": '{"maxFileBytes": 64}',
			"project/.pi/agents/small.md": `${"y".repeat(100)}\n`,
		});
		expect(where(l.load())).toEqual([".pi/agents/small.md:1:1 file-too-large"]);
		l.write({ "project/.pi/subagents.json": '{"maxFileBytes": "lots"}' });
		expect(where(l.load())).toEqual([".pi/subagents.json:1:18 bad-value"]);
	});

	it("applies to a prompt_file at load and at spawn time", () => {
		const l = layout({
			"project/.pi/agents/plan.md": "Plan.\n",
			"project/.pi/roles/plan.md": "---\nprompt_file: ../texts/long.md\n---\n",
			"project/.pi/texts/long.md": "z".repeat(BIG),
		});
		const r = l.load();
		expect(where(r)).toEqual([".pi/roles/plan.md:2:14 file-too-large"]);
		const ref = r.roles.get("plan")?.keys.prompt_file?.value;
		expect(ref && readConfined(ref)).toMatchObject({ ok: false, code: "file-too-large" });
	});
});
