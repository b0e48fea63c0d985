/**
 * Property-based fuzzing support (fast-check): how many runs and which seed, the arbitraries for
 * what a repository may hold — frontmatter, TOML, JSON settings, random bytes, deep nesting, YAML
 * alias bombs, prototype names — a temp tree to write them into, and the invariants every load
 * keeps. `npm test` runs a few dozen cases per property; `npm run fuzz` runs many more
 * (`CADRE_FUZZ_RUNS`, `CADRE_FUZZ_SEED`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { stringify as tomlStringify } from "smol-toml";
import { stringify as yamlStringify } from "yaml";
import type { Diagnostic } from "../../src/core/diagnostics.ts";

/** Runs per property: `base` in `npm test`, `CADRE_FUZZ_RUNS` when set. */
export function runs(base: number): number {
	const n = Number(process.env.CADRE_FUZZ_RUNS);
	return Number.isInteger(n) && n > 0 ? n : base;
}

/** fast-check parameters for `fc.assert`: the runs, and `CADRE_FUZZ_SEED` to replay a failure. */
export function params(base: number): fc.Parameters<unknown> {
	const seed = Number(process.env.CADRE_FUZZ_SEED);
	return { numRuns: runs(base), ...(Number.isInteger(seed) ? { seed } : {}) };
}

/** A test timeout that fits the run count (a long fuzz may take minutes). */
export const FUZZ_TIMEOUT = process.env.CADRE_FUZZ_RUNS ? 60 * 60_000 : 60_000;

export const PROTO_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf"];

const ENTRY_KEYS = [
	"description",
	"display_name",
	"tools",
	"capability",
	"model",
	"thinking",
	"effort",
	"reasoning_effort",
	"isolation",
	"persona",
	"max_turns",
	"run_in_background",
	"inherit_context",
	"enabled",
	"name",
	"prompt_file",
	"instructions_file",
	"inputs",
	"outputs",
	"prompt",
	"instructions",
	"default_capability_mode",
	"default_isolation",
	"prompt_mode",
	"locked",
	"color",
	"hooks",
	"permissionMode",
	"io_type",
	"required",
];

/** Values that mean something to some key, and paths a hostile file would name. */
const SPECIAL_VALUES = [
	"inherit",
	"none",
	"all",
	"read-only",
	"READ_ONLY",
	"worktree",
	"high",
	"max",
	"off",
	"read, bash",
	"read,,",
	"*",
	"mcp_*",
	"test/model-a",
	"texts/a.md",
	"../texts/a.md",
	"../../../../etc/passwd",
	"/dev/zero",
	"texts",
	"",
	" ",
	"\u0000",
	"\u001b[31m",
	"constructor",
	"__proto__",
];

export const TYPE_NAMES = ["explore", "plan", "general-purpose", "scout", "EXPLORE", "README", ...PROTO_NAMES];

const key = fc.oneof(
	{ weight: 4, arbitrary: fc.constantFrom(...ENTRY_KEYS) },
	{ weight: 1, arbitrary: fc.constantFrom(...PROTO_NAMES) },
	{ weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
);

const scalar = fc.oneof(
	fc.string({ maxLength: 40 }),
	fc.integer(),
	fc.double(),
	fc.boolean(),
	fc.constant(null),
	fc.constantFrom(...SPECIAL_VALUES),
);

/** Nested values: scalars, lists and mappings a few levels deep. */
export const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
	v: fc.oneof({ depthSize: "small" }, scalar, fc.array(tie("v"), { maxLength: 4 }), fc.dictionary(key, tie("v"), { maxKeys: 4 })),
})).v;

const fields = fc.dictionary(key, value, { maxKeys: 8 });

/** One line that looks like YAML, with the characters YAML gives meaning to. */
const yamlishLine = fc
	.tuple(
		fc.oneof(fc.constantFrom(...ENTRY_KEYS, ...PROTO_NAMES, "- ", "? ", "  ", "#", "&a", "*a", "!!str", "<<"), fc.string({ maxLength: 8 })),
		fc.constantFrom(": ", ":", " ", ": [", ": {", ": |", ": >", ": '", ': "', ": &x ", ": *x", ": !!binary ", ""),
		fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom(...SPECIAL_VALUES), fc.stringMatching(/^[\][{}:,#&*!|>'"%@`\- ]{0,12}$/)),
	)
	.map(([k, sep, v]) => `${k}${sep}${v}`);

const body = fc.oneof(fc.string({ maxLength: 200 }), fc.constantFrom("", "Do the task.", "# Heading\n\nA paragraph. Second sentence.", "```\ncode\n```\n"));

function safeYaml(data: unknown): string {
	try {
		return yamlStringify(data);
	} catch {
		return "";
	}
}

/** Markdown with frontmatter: written by a YAML library, hand-typed lines, none, or never closed. */
export const markdown = fc.oneof(
	{ weight: 3, arbitrary: fc.tuple(fields, body).map(([f, b]) => `---\n${safeYaml(f)}---\n${b}\n`) },
	{ weight: 2, arbitrary: fc.tuple(fc.array(yamlishLine, { maxLength: 8 }), body).map(([lines, b]) => `---\n${lines.join("\n")}\n---\n${b}`) },
	{ weight: 1, arbitrary: body },
	{ weight: 1, arbitrary: fc.array(yamlishLine, { maxLength: 5 }).map((lines) => `---\n${lines.join("\n")}\n`) },
	{ weight: 1, arbitrary: fc.tuple(fields, body).map(([f, b]) => `\uFEFF---\r\n${safeYaml(f).replaceAll("\n", "\r\n")}---\r\n${b}`) },
);

const tomlLine = fc
	.tuple(
		fc.oneof(fc.constantFrom(...ENTRY_KEYS, ...PROTO_NAMES, "[inputs]", "[[inputs]]", "[[outputs]]", '"a.b"'), fc.string({ maxLength: 8 })),
		fc.constantFrom(" = ", "=", " ", ""),
		fc.oneof(fc.constantFrom('"x"', "'x'", "1", "true", "[1, 2]", "{a = 1}", '"""\nmulti\n"""', "1979-05-27T07:32:00Z", "inf", "nan", "0x10"), fc.string({ maxLength: 20 })),
	)
	.map(([k, sep, v]) => `${k}${sep}${v}`);

function safeToml(data: unknown): string {
	try {
		return tomlStringify(data as Record<string, unknown>);
	} catch {
		return "";
	}
}

/** TOML: written by a TOML library, or hand-typed lines. */
export const toml = fc.oneof(fields.map(safeToml), fc.array(tomlLine, { maxLength: 8 }).map((lines) => lines.join("\n")));

/** Collections nested `depth` levels, in each syntax cadre parses. */
export const deep = fc
	.tuple(fc.constantFrom("yaml-flow", "yaml-seq", "yaml-block", "json", "toml-array", "toml-table"), fc.integer({ min: 10, max: 5000 }))
	.map(([shape, depth]): string => {
		switch (shape) {
			case "yaml-flow":
				return `---\ntools: ${"[".repeat(depth)}${"]".repeat(depth)}\n---\n`;
			case "yaml-seq":
				return `---\ninputs:\n  ${"- ".repeat(depth)}x\n---\n`;
			case "yaml-block": {
				const d = Math.min(depth, 400);
				const lines = Array.from({ length: d }, (_, i) => `${"  ".repeat(i)}a:`);
				return `---\n${lines.join("\n")}\n${"  ".repeat(d)}b: 1\n---\n`;
			}
			case "json":
				return `{"roles": ${'{"a": '.repeat(depth)}1${"}".repeat(depth)}}`;
			case "toml-array":
				return `prompt = ${"[".repeat(depth)}${"]".repeat(depth)}\n`;
			default:
				return `prompt = ${"{a = ".repeat(depth)}1${"}".repeat(depth)}\n`;
		}
	});

/** "Billion laughs": each level refers to the one below `width` times. */
export const aliasBomb = fc
	.tuple(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 2, max: 9 }), fc.boolean())
	.map(([levels, width, asFrontmatter]) => {
		const lines = [`l0: &l0 [${Array(width).fill('"lol"').join(", ")}]`];
		for (let i = 1; i < levels; i++) lines.push(`l${i}: &l${i} [${Array(width).fill(`*l${i - 1}`).join(", ")}]`);
		lines.push(`description: *l${levels - 1}`);
		return asFrontmatter ? `---\n${lines.join("\n")}\n---\nBody.\n` : lines.join("\n");
	});

export const bytes = fc.uint8Array({ maxLength: 400 });

/** Anything a file in a kind folder may hold. */
export const content: fc.Arbitrary<string | Uint8Array> = fc.oneof(
	{ weight: 5, arbitrary: markdown },
	{ weight: 2, arbitrary: toml },
	{ weight: 1, arbitrary: bytes },
	{ weight: 1, arbitrary: deep },
	{ weight: 1, arbitrary: aliasBomb },
);

const typeName = fc.oneof(fc.constantFrom(...TYPE_NAMES), fc.string({ maxLength: 10 }));

/** A `subagents.json` built from its keys with random values, plus random keys. */
const settingsObject = fc.record(
	{
		maxConcurrent: scalar,
		defaultMaxTurns: scalar,
		defaultBackground: scalar,
		maxResultChars: scalar,
		maxFileBytes: fc.oneof(scalar, fc.constantFrom(1, 64, 1024 * 1024 * 1024, 1024 * 1024 * 1024 + 1)),
		strict: scalar,
		toggle: fc.oneof(fc.dictionary(typeName, fc.oneof(fc.boolean(), scalar), { maxKeys: 4 }), scalar),
		models: fc.oneof(fc.dictionary(typeName, fc.oneof(fc.constantFrom("test/model-a", "inherit", "nope/x"), scalar), { maxKeys: 4 }), scalar),
		thinking: fc.dictionary(typeName, fc.oneof(fc.constantFrom("high", "max", "inherit", "none"), scalar), { maxKeys: 4 }),
		roles: fc.oneof(fc.dictionary(typeName, fc.oneof(fields, scalar), { maxKeys: 3 }), scalar),
		personas: fc.dictionary(typeName, fc.oneof(fields, scalar), { maxKeys: 3 }),
		toolKinds: fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("mcp_*", "*", ...PROTO_NAMES)), fc.oneof(fc.constantFrom("read", "write", "execute"), scalar), { maxKeys: 3 }),
		childExtensions: fc.oneof(fc.record({ exclude: value }, { requiredKeys: [] }), value),
		worktree: fc.oneof(fc.record({ baseDir: scalar, allowSharedFallback: scalar, other: scalar }, { requiredKeys: [] }), scalar),
		extra: value,
	},
	{ requiredKeys: [] },
);

/** Settings text: JSON of the settings keys (whole or cut short), other JSON, YAML, bytes, nesting, bombs. */
export const settings: fc.Arbitrary<string | Uint8Array> = fc.oneof(
	{ weight: 4, arbitrary: settingsObject.map((o) => JSON.stringify(o)) },
	{ weight: 1, arbitrary: fc.tuple(settingsObject, fc.nat()).map(([o, cut]) => { const s = JSON.stringify(o); return s.slice(0, cut % (s.length + 1)); }) },
	{ weight: 1, arbitrary: fc.json() },
	{ weight: 1, arbitrary: fc.array(yamlishLine, { maxLength: 6 }).map((lines) => lines.join("\n")) },
	{ weight: 1, arbitrary: bytes },
	{ weight: 1, arbitrary: deep },
	{ weight: 1, arbitrary: aliasBomb },
);

const FOLDERS = ["project/.pi/agents", "project/.pi/roles", "project/.pi/personas", "agent/agents", "agent/roles", "agent/personas"];

const fileName = fc.oneof(
	fc.constantFrom(...TYPE_NAMES, "readme", "x"),
	fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,9}$/),
);

/** One project and agent dir: files in kind folders, both settings files, a text files point to. */
export const tree = fc.record({
	files: fc.array(
		fc.record({ folder: fc.constantFrom(...FOLDERS), name: fileName, ext: fc.constantFrom(".md", ".md", ".toml", ".MD"), content }),
		{ maxLength: 6 },
	),
	projectSettings: fc.option(settings),
	userSettings: fc.option(settings),
	text: fc.oneof(body, bytes),
});

export type Tree = typeof tree extends fc.Arbitrary<infer T> ? T : never;

/** A temp root written anew for each case: `project/` (a repository), `agent/`, `home/`. */
export interface Sandbox {
	project: string;
	agent: string;
	home: string;
	/** Writes the tree (after removing the previous one); returns the bytes written. */
	write(tree: Tree): number;
}

export function sandbox(): Sandbox {
	const root = mkdtempSync(join(process.env.TMPDIR as string, "cadre-fuzz-"));
	const project = join(root, "project");
	const agent = join(root, "agent");
	const home = join(root, "home");
	const put = (rel: string, data: string | Uint8Array): number => {
		const path = join(root, rel);
		mkdirSync(dirname(path), { recursive: true });
		writeFileSync(path, data);
		return typeof data === "string" ? Buffer.byteLength(data) : data.length;
	};
	return {
		project,
		agent,
		home,
		write(t) {
			for (const dir of [project, agent]) rmSync(dir, { recursive: true, force: true });
			mkdirSync(join(project, ".git"), { recursive: true });
			mkdirSync(agent, { recursive: true });
			mkdirSync(home, { recursive: true });
			let total = put("project/.pi/texts/a.md", t.text) + put("project/texts/a.md", t.text) + put("agent/texts/a.md", t.text);
			for (const f of t.files) total += put(`${f.folder}/${f.name}${f.ext}`, f.content);
			if (t.projectSettings !== null) total += put("project/.pi/subagents.json", t.projectSettings);
			if (t.userSettings !== null) total += put("agent/subagents.json", t.userSettings);
			return total;
		},
	};
}

/** Every diagnostic says where: a file, a line and a column from 1, a severity, a code and a message. */
export function assertPositioned(diagnostics: readonly Diagnostic[]): void {
	for (const d of diagnostics) {
		const ok =
			typeof d.file === "string" &&
			d.file.length > 0 &&
			Number.isInteger(d.line) &&
			(d.line as number) >= 1 &&
			Number.isInteger(d.column) &&
			(d.column as number) >= 1 &&
			(d.severity === "error" || d.severity === "warning") &&
			typeof d.code === "string" &&
			typeof d.message === "string" &&
			d.message.length > 0;
		if (!ok) throw new Error(`diagnostic without a position or text: ${JSON.stringify(d)}`);
	}
}

/** The JSON size of anything the loader or resolver returned (Maps as their values, BigInts as text). */
export function sizeOf(value: unknown): number {
	return JSON.stringify(value, (_k, v) => (v instanceof Map ? [...v.values()] : typeof v === "bigint" ? String(v) : v)).length;
}

/**
 * What came out is bounded by what went in: a few KB of built-ins and messages, plus a small
 * multiple of the bytes written. An alias bomb that expanded would be far past this.
 */
export function assertBounded(out: unknown, inputBytes: number, diagnostics: number): void {
	const size = sizeOf(out);
	const bound = 100_000 + 50 * inputBytes + 3_000 * diagnostics;
	if (size > bound) throw new Error(`output of ${size} characters from ${inputBytes} bytes of input (bound ${bound})`);
}
