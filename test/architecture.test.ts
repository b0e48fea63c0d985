/**
 * The house rules of docs/architecture.md that a reader cannot keep by eye (issue 20): no function
 * in src/ over 120 lines, no import circle in src/, and one adapter to pi — only src/runtime/pi/
 * imports pi's SDK (`@earendil-works/pi-coding-agent`, `pi-ai`, `pi-agent-core`) at run time;
 * other modules take its types only (`import type`), as the hosts and the UI do. Parsed with the
 * repository's own TypeScript compiler.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/cli.ts";

const SRC = join(REPO_ROOT, "src");
const ADAPTER = join(SRC, "runtime/pi");
const MAX_FUNCTION_LINES = 120;
const PI_SDK = /^@earendil-works\/(pi-coding-agent|pi-ai|pi-agent-core)(\/|$)/;

/** Circles allowed to stay (each as its modules, sorted): none. */
const KNOWN_CIRCLES: readonly string[] = [];

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
	);
}

const FILES = sources(SRC);
const parsed = new Map(FILES.map((file) => [file, ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)]));
const where = (file: string) => relative(REPO_ROOT, file);

/** One module specifier a file names: static import/export (type-only or not) or a literal `import()`. */
interface ModuleReference {
	specifier: string;
	typeOnly: boolean;
	line: number;
}

function references(source: ts.SourceFile): ModuleReference[] {
	const found: ModuleReference[] = [];
	const at = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
	const visit = (node: ts.Node): void => {
		if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
			found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.importClause?.isTypeOnly === true, line: at(node) });
		} else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
			found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly, line: at(node) });
		} else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
			found.push({ specifier: node.argument.literal.text, typeOnly: true, line: at(node) });
		} else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
			const [arg] = node.arguments;
			if (arg && ts.isStringLiteralLike(arg)) found.push({ specifier: arg.text, typeOnly: false, line: at(node) });
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

/** Functions (declarations, methods, arrows, expressions) longer than `limit` lines, longest first. */
function longFunctions(limit: number): string[] {
	const rows: [number, string][] = [];
	for (const [file, source] of parsed) {
		const visit = (node: ts.Node): void => {
			if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
				const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
				const lines = source.getLineAndCharacterOfPosition(node.end).line - start + 1;
				const named = node.name?.getText() ?? (node.parent as { name?: ts.Node }).name?.getText() ?? "(anonymous)";
				if (lines > limit) rows.push([lines, `${lines} lines ${where(file)}:${start + 1} ${named}`]);
			}
			ts.forEachChild(node, visit);
		};
		visit(source);
	}
	return rows.sort((a, b) => b[0] - a[0]).map(([, row]) => row);
}

/** The src/ modules a file imports (any kind of reference), by absolute path. */
function localEdges(file: string): string[] {
	const source = parsed.get(file);
	if (!source) return [];
	return references(source)
		.filter((reference) => reference.specifier.startsWith("."))
		.map((reference) => resolve(dirname(file), reference.specifier))
		.filter((target) => parsed.has(target));
}

/** The strongly connected components of src/'s import graph with more than one module (Tarjan). */
function importCircles(): string[] {
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const circles: string[] = [];
	let counter = 0;
	const connect = (file: string): void => {
		index.set(file, counter);
		low.set(file, counter++);
		stack.push(file);
		onStack.add(file);
		for (const next of localEdges(file)) {
			if (!index.has(next)) {
				connect(next);
				low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
			} else if (onStack.has(next)) low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
		}
		if (low.get(file) !== index.get(file)) return;
		const component: string[] = [];
		for (let member = stack.pop(); member !== undefined; member = member === file ? undefined : stack.pop()) {
			onStack.delete(member);
			component.push(where(member));
		}
		if (component.length > 1) circles.push(component.sort().join(" "));
	};
	for (const file of FILES) if (!index.has(file)) connect(file);
	return circles.sort();
}

describe("the architecture's rules", () => {
	it(`no function in src/ is over ${MAX_FUNCTION_LINES} lines`, () => {
		expect(longFunctions(MAX_FUNCTION_LINES)).toEqual([]);
	});

	it("src/ has no import circle", () => {
		expect(importCircles().filter((circle) => !KNOWN_CIRCLES.includes(circle))).toEqual([]);
	});

	it("only src/runtime/pi/ imports pi's SDK at run time; others import its types only", () => {
		const offenders = FILES.filter((file) => !file.startsWith(`${ADAPTER}/`)).flatMap((file) =>
			references(parsed.get(file) as ts.SourceFile)
				.filter((reference) => PI_SDK.test(reference.specifier) && !reference.typeOnly)
				.map((reference) => `${where(file)}:${reference.line} ${reference.specifier}`),
		);
		expect(offenders).toEqual([]);
	});

	it("the checks see what they check: the adapter imports pi, and the graph has edges", () => {
		const adapterImportsPi = FILES.filter((file) => file.startsWith(`${ADAPTER}/`)).some((file) =>
			references(parsed.get(file) as ts.SourceFile).some((reference) => PI_SDK.test(reference.specifier) && !reference.typeOnly),
		);
		expect(adapterImportsPi).toBe(true);
		expect(FILES.reduce((edges, file) => edges + localEdges(file).length, 0)).toBeGreaterThan(FILES.length);
		expect(longFunctions(40).length).toBeGreaterThan(0);
	});
});
