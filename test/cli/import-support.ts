/**
 * Shared set-up for the `cadre import` tests: a project holding one tool's files copied from
 * test/fixtures/import/<source>/ (written from each tool's documentation), pi's agent dir with an
 * offline catalog, and helpers that run the real bin and read its JSON report.
 */
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { cliTree, REPO_ROOT, runCli, runCliJson, testModels } from "../support/cli.ts";

export const FIXTURES = join(REPO_ROOT, "test", "fixtures", "import");

/** The offline catalog: models the fixtures name, so `sonnet` and `gpt-5` resolve through pi. */
export const MODELS = testModels(["claude-sonnet-4-5", "claude-opus-4-1", "gpt-5", "parent-model"]);

export interface Project {
	root: string;
	dir: string;
	env: Record<string, string>;
}

/** A git project with the fixture files of `source` (and any extra files, paths from the tree root). */
export function projectWith(source: string | null, files: Record<string, string> = {}): Project {
	const root = cliTree("cadre-import-", MODELS, files);
	const dir = join(root, "project");
	mkdirSync(join(dir, ".git"), { recursive: true });
	if (source !== null) cpSync(join(FIXTURES, source), dir, { recursive: true });
	return { root, dir, env: { PI_CODING_AGENT_DIR: join(root, "agent"), HOME: join(root, "home"), PI_OFFLINE: "1" } };
}

export interface FieldJson {
	key: string;
	line: number | null;
	column: number | null;
	outcome: "mapped" | "approximated" | "dropped";
	written: string | null;
	why: string | null;
	fix: string | null;
}

export interface FileJson {
	from: string;
	to: string | null;
	kind: string;
	name: string | null;
	action: string;
	written: boolean;
	reason: string | null;
	fields: FieldJson[];
	diagnostics: { severity: string; code: string; file: string; line: number; message: string }[];
}

export interface ReportJson {
	ok: boolean;
	source: string;
	scope: string;
	dryRun: boolean;
	target: string;
	searched: string[];
	files: FileJson[];
	summary: Record<string, number>;
}

export function importJson(p: Project, source: string, args: string[] = [], nodeArgs: string[] = []) {
	return runCliJson<ReportJson>(["import", "--from", source, "--cwd", p.dir, ...args], { env: p.env, nodeArgs });
}

export function file(report: ReportJson, from: string): FileJson {
	const found = report.files.find((f) => f.from === from);
	if (!found) throw new Error(`no report for ${from}: ${report.files.map((f) => f.from).join(", ")}`);
	return found;
}

/** Each field as `key outcome → written` (the report a person reads, one line per field). */
export function fields(f: FileJson): string[] {
	return f.fields.map((field) => `${field.key} ${field.outcome}${field.written === null ? "" : ` → ${field.written}`}`);
}

export function field(f: FileJson, key: string): FieldJson {
	const found = f.fields.find((x) => x.key === key);
	if (!found) throw new Error(`no field ${key} in ${f.from}`);
	return found;
}

interface ExplainJson {
	refused: { code: string; message: string } | null;
	config: { tools: string[]; capabilityMode: string | null; model: string; reasoningEffort: string; isolation: string; maxTurns: number | null } | null;
	diagnostics: { severity: string; code: string }[];
}

/** `cadre explain TYPE --json` for a parent on test/parent-model with pi's default tools. */
export function explain(p: Project, type: string, parentTools?: string): ExplainJson {
	const tools = parentTools ? ["--parent-tools", parentTools] : [];
	return runCliJson<ExplainJson>(["explain", type, "--cwd", p.dir, "--parent-model", "test/parent-model", ...tools], { env: p.env }).json;
}

/** `cadre check --json` over the project: the imported files load with no errors. */
export function expectCheckClean(p: Project): void {
	const run = runCliJson<{ ok: boolean; errors: number; diagnostics: { severity: string; code: string; file: string; message: string }[] }>(["check", "--cwd", p.dir], { env: p.env });
	expect(run.json.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
	expect(run.code).toBe(0);
}

export { runCli };
