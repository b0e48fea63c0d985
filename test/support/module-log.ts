/**
 * Which modules of a package a child process loads: a `--import` hook (Node's synchronous module
 * hooks) appends the URL of every module it resolves whose URL contains `needle` to a log file.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Write the hook into `dir`; returns its path, the `NODE_OPTIONS` value that loads it and how to read the log. */
export function moduleLog(dir: string, needle: string): { hook: string; nodeOptions: string; read(): string } {
	const log = join(dir, "modules.log");
	const hook = join(dir, "module-hook.mjs");
	writeFileSync(
		hook,
		[
			'import { registerHooks } from "node:module";',
			'import { appendFileSync } from "node:fs";',
			"registerHooks({",
			"\tresolve(specifier, context, next) {",
			"\t\tconst resolved = next(specifier, context);",
			`\t\tif (resolved.url.includes(${JSON.stringify(needle)})) appendFileSync(${JSON.stringify(log)}, resolved.url + "\\n");`,
			"\t\treturn resolved;",
			"\t},",
			"});",
			"",
		].join("\n"),
	);
	writeFileSync(log, "");
	return { hook, nodeOptions: `--import ${hook}`, read: () => readFileSync(log, "utf8") };
}
