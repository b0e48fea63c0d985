/**
 * The spec's resolution vectors and cadre's own extra vectors, each run through the real CLI —
 * `bin/cadre.js explain … --json` as a subprocess — exactly as the vectors README says. One test per
 * vector, named after it. The spec's vectors are a copy in test/fixtures/vectors/: the repository
 * stands alone, and no test reads outside it.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SPEC_COPY = resolve(repoRoot, "test/fixtures/vectors");
const SPEC_VECTORS = join(SPEC_COPY, "spec.json");
const EXTRA_VECTORS = resolve(repoRoot, "test/cli/vectors-extra.json");
const DEFAULT_MODELS = {
	providers: {
		test: {
			baseUrl: "http://127.0.0.1:9/v1",
			api: "openai-completions",
			apiKey: "none",
			models: [
				{ id: "model-a", reasoning: true },
				{ id: "model-b", reasoning: true },
				{ id: "model-c", reasoning: true },
				{ id: "parent-model", reasoning: true },
			],
		},
	},
};

interface Vector {
	name: string;
	files: Record<string, string>;
	type: string;
	request: Record<string, unknown>;
	parentModel: string;
	/** Extra vectors only: more CLI arguments (e.g. `--trust-project`). */
	args?: string[];
	expect: {
		refused?: string | null;
		type?: string;
		config?: Record<string, unknown>;
		layers?: Record<string, string>;
		diagnosticCodes?: string[];
		/** Extra vectors only: codes that must not occur. */
		absentCodes?: string[];
	};
}

interface ExplainOutput {
	type: string;
	refused: { code: string; message: string } | null;
	config: Record<string, unknown> | null;
	trace: Record<string, { layer: string }>;
	diagnostics: { code: string }[];
}

async function explainVector(vector: Vector): Promise<{ output: ExplainOutput; exitCode: number }> {
	const tmp = mkdtempSync(join(process.env.TMPDIR as string, "vector-"));
	for (const [path, text] of Object.entries(vector.files)) {
		mkdirSync(dirname(join(tmp, path)), { recursive: true });
		writeFileSync(join(tmp, path), text);
	}
	if (!("agent/models.json" in vector.files)) {
		mkdirSync(join(tmp, "agent"), { recursive: true });
		writeFileSync(join(tmp, "agent/models.json"), JSON.stringify(DEFAULT_MODELS));
	}
	mkdirSync(join(tmp, "project"), { recursive: true });
	mkdirSync(join(tmp, "home"), { recursive: true });
	const args = [
		join(repoRoot, "bin/cadre.js"),
		"explain",
		vector.type,
		"--cwd",
		join(tmp, "project"),
		"--request",
		JSON.stringify(vector.request),
		"--parent-model",
		vector.parentModel,
		"--json",
		...(vector.args ?? []),
	];
	const env = { ...process.env, PI_CODING_AGENT_DIR: join(tmp, "agent"), HOME: join(tmp, "home"), PI_OFFLINE: "1", PI_TELEMETRY: "0" };
	try {
		const { stdout } = await run(process.execPath, args, { env, cwd: tmp });
		return { output: JSON.parse(stdout) as ExplainOutput, exitCode: 0 };
	} catch (error) {
		const failed = error as { code?: number; stdout?: string; stderr?: string };
		if (failed.code !== 1 || !failed.stdout) throw new Error(`cadre explain failed (${failed.code}): ${failed.stderr ?? ""}`);
		return { output: JSON.parse(failed.stdout) as ExplainOutput, exitCode: 1 };
	}
}

/** `{"$nonEmpty": true}` and `{"$contains": "x"}` as the vectors README defines them; otherwise equality. */
function expectValue(actual: unknown, expected: unknown, label: string): void {
	if (expected !== null && typeof expected === "object" && !Array.isArray(expected)) {
		const matcher = expected as Record<string, unknown>;
		if ("$nonEmpty" in matcher) {
			expect(typeof actual === "string" && actual.length > 0, `${label} should be a non-empty string, got ${JSON.stringify(actual)}`).toBe(true);
			return;
		}
		if ("$contains" in matcher) {
			expect(typeof actual, `${label} should be a string`).toBe("string");
			expect(actual as string, label).toContain(matcher.$contains as string);
			return;
		}
	}
	expect(actual, label).toEqual(expected);
}

function check(vector: Vector, output: ExplainOutput, exitCode: number): void {
	const want = vector.expect;
	if (want.refused !== undefined) {
		expect(output.refused?.code ?? null, `refused (${output.refused?.message ?? ""})`).toBe(want.refused);
		expect(exitCode).toBe(want.refused === null ? 0 : 1);
	}
	if (want.type !== undefined) expect(output.type).toBe(want.type);
	for (const [key, value] of Object.entries(want.config ?? {})) expectValue(output.config?.[key], value, `config.${key}`);
	for (const [key, layer] of Object.entries(want.layers ?? {})) expect(output.trace[key]?.layer, `trace.${key}.layer`).toBe(layer);
	const counts = new Map<string, number>();
	for (const code of want.diagnosticCodes ?? []) counts.set(code, (counts.get(code) ?? 0) + 1);
	for (const [code, count] of counts) {
		expect(output.diagnostics.filter((d) => d.code === code).length, `diagnostics with code ${code}`).toBeGreaterThanOrEqual(count);
	}
	for (const code of want.absentCodes ?? []) expect(output.diagnostics.map((d) => d.code)).not.toContain(code);
}

/** Each vector is a real `cadre explain` process that loads pi's SDK; a loaded 2-core machine runs five at once slowly. */
const VECTOR_TIMEOUT = 120_000;

const specVectors = JSON.parse(readFileSync(SPEC_VECTORS, "utf8")) as Vector[];
const extraVectors = JSON.parse(readFileSync(EXTRA_VECTORS, "utf8")) as Vector[];

describe("spec vectors through cadre explain --json", () => {
	it("has vectors to run", () => {
		expect(specVectors.length).toBeGreaterThan(0);
	});
	for (const vector of specVectors) {
		it.concurrent(vector.name, async () => {
			const { output, exitCode } = await explainVector(vector);
			check(vector, output, exitCode);
		}, VECTOR_TIMEOUT);
	}
});

describe("cadre's own vectors through cadre explain --json", () => {
	for (const vector of extraVectors) {
		it.concurrent(vector.name, async () => {
			const { output, exitCode } = await explainVector(vector);
			check(vector, output, exitCode);
		}, VECTOR_TIMEOUT);
	}
});
