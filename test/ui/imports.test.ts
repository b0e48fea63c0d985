/**
 * ADR 0080: only `src/hosts/pi/ui/` imports pi-tui, and it takes nothing but types from
 * pi-coding-agent (its SDK runtime goes through `src/runtime/pi/`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli.ts";

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
	);
}

/** Every import statement of a file, whole (multi-line ones included). */
function imports(file: string): string[] {
	return readFileSync(file, "utf8").match(/^import[\s\S]*?from\s+"[^"]+";/gm) ?? [];
}

const UI = join(REPO_ROOT, "src/hosts/pi/ui");

describe("the UI's dependencies", () => {
	it("nothing outside src/hosts/pi/ui imports pi-tui", () => {
		const offenders = sources(join(REPO_ROOT, "src"))
			.filter((file) => !file.startsWith(UI))
			.filter((file) => imports(file).some((line) => line.includes('"@earendil-works/pi-tui"')))
			.map((file) => relative(REPO_ROOT, file));
		expect(offenders).toEqual([]);
	});

	it("the UI imports only types from pi-coding-agent", () => {
		const offenders = sources(UI).flatMap((file) =>
			imports(file)
				.filter((line) => line.includes('"@earendil-works/pi-coding-agent"') && !/^import type /.test(line))
				.map((line) => `${relative(REPO_ROOT, file)}: ${line}`),
		);
		expect(offenders).toEqual([]);
	});
});
